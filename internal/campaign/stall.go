package campaign

import (
	"fmt"
	"slices"
	"strings"
	"time"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// StallTrials is how many of a campaign's most recently finished trials must all have ended
// Error on infrastructure for the campaign to be Stalled. Each of them already spent its own
// infrastructure retries, so three in a row, none measured in between, say the cluster (an
// image, the nodes, a quota) fails every new trial, not one unlucky Pod.
const StallTrials = 3

// InfrastructureStall is a campaign whose last StallTrials finished trials all ended Error on
// infrastructure.
type InfrastructureStall struct {
	// Trials are those trials, the most recent last, and Reasons their reasons.
	Trials, Reasons []string
}

// FindInfrastructureStall reports the stall of a campaign with trials, nil when it has none:
// fewer than StallTrials trials finished, or one of the last StallTrials was measured, ended
// Failed (a verifier's failure, not the cluster's) or is an invalid task. Trials finished at
// the same time are ordered by name.
func FindInfrastructureStall(trials []*evalv1.TaskTrial) *InfrastructureStall {
	names, why, ok := lastInfrastructureErrors(trials, StallTrials, time.Time{})
	if !ok {
		return nil
	}
	return &InfrastructureStall{Trials: names, Reasons: why}
}

// lastInfrastructureErrors are the names and reasons of the last n trials that finished after
// since, the most recent last, when there are n and all ended Error on infrastructure (not an
// invalid task). Trials finished at the same time are ordered by name.
func lastInfrastructureErrors(trials []*evalv1.TaskTrial, n int, since time.Time) (names, why []string, ok bool) {
	var finished []*evalv1.TaskTrial
	for i := range trials {
		if trials[i].Status.Phase.Finished() && (since.IsZero() || completedAt(trials[i]).After(since)) {
			finished = append(finished, trials[i])
		}
	}
	if len(finished) < n {
		return nil, nil, false
	}
	slices.SortFunc(finished, func(a, b *evalv1.TaskTrial) int {
		if c := completedAt(a).Compare(completedAt(b)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, t := range finished[len(finished)-n:] {
		if t.Status.Phase != evalv1.TrialError || t.Status.Reason == reasons.InvalidTask {
			return nil, nil, false
		}
		names = append(names, t.Name)
		why = append(why, t.Status.Reason)
	}
	return names, why, true
}

func completedAt(t *evalv1.TaskTrial) time.Time {
	if t.Status.CompletionTime == nil {
		return time.Time{}
	}
	return t.Status.CompletionTime.Time
}

// Message names the trials and their reasons, and what to do.
func (s *InfrastructureStall) Message() string {
	parts := make([]string, len(s.Trials))
	for i := range s.Trials {
		parts[i] = fmt.Sprintf("%s (%s)", s.Trials[i], s.Reasons[i])
	}
	return fmt.Sprintf("the last %d finished trials all ended Error on infrastructure, their retries spent: %s; new trials still start: "+
		"read the trials' messages (`kubectl describe tasktrial`) and fix the cluster (images, nodes, quotas)", len(s.Trials), strings.Join(parts, ", "))
}
