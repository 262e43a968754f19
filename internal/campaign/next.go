package campaign

import evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"

// Unfinished counts the trials that hold a parallelism slot: created (seen or not yet seen)
// and not finished.
func Unfinished(c evalv1.TrialCounts) int { return int(c.Created - FinishedTrials(c)) }

// ToCreate picks the planned trials to create now: those that do not exist, in plan order,
// while fewer than parallelism trials are unfinished. unfinished counts existing unfinished
// trials plus those created but not yet seen.
func ToCreate(plan []Planned, exists func(name string) bool, unfinished int, parallelism int32, suspended bool) []Planned {
	if suspended {
		return nil
	}
	var out []Planned
	for _, p := range plan {
		if unfinished >= int(parallelism) {
			break
		}
		if exists(p.Name) {
			continue
		}
		out = append(out, p)
		unfinished++
	}
	return out
}
