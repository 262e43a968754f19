package reward

// Outcome is what a trial and its campaign derive from a result (see the package doc).
type Outcome struct {
	// Measured is false for a grader failure (grader_failed ≥ 1): an evaluation failure,
	// whatever else the result holds.
	Measured bool
	// Skipped: a measured result that lacks one of reward, n_subtasks, n_resolved and
	// visible_ok; scoring ignores it (neither bugs nor an evaluation failure).
	Skipped bool
	// Scored: a measured result with all four keys; it counts in bugs.
	Scored bool
	// Bugs and Resolved are n_subtasks and n_resolved of a scored result, else 0.
	Bugs     int
	Resolved float64
	// Regressed: a scored result with visible_ok < 1 (its reward is then 0).
	Regressed bool
	// Reward is the result's reward, 0 when it has none.
	Reward float64
}

// scoredKeys are the keys without which SWE-sweep's scoring skips a result.
var scoredKeys = []string{KeyReward, KeySubtasks, KeyResolved, KeyVisibleOK}

// Outcome derives the outcome of the result.
func (r Result) Outcome() Outcome {
	o := Outcome{Measured: r.Measured(), Reward: r[KeyReward]}
	if !o.Measured {
		return o
	}
	for _, k := range scoredKeys {
		if _, ok := r[k]; !ok {
			o.Skipped = true
			return o
		}
	}
	o.Scored = true
	o.Bugs, o.Resolved = int(r[KeySubtasks]), r[KeyResolved]
	o.Regressed = r[KeyVisibleOK] < 1
	return o
}
