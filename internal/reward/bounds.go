package reward

import (
	"fmt"
	"math"
)

// countKeys hold a number of bugs or tests: non-negative integers.
var countKeys = []string{KeySubtasks, KeyResolved, KeyPartial, KeyRegressions, KeyRegressionsCleared}

// flagKeys hold a yes or a no: 0 or 1.
var flagKeys = []string{KeyVisibleOK, KeyPatchApplied, KeyBuildOK, KeyGraderFailed}

// CheckBounds checks the result against what its keys can mean and against the trial's own
// bug count, so that a grader (or code under test that writes its result) cannot claim more
// than the trial has: reward in [0, 1]; counts non-negative integers; flags 0 or 1;
// n_resolved, n_partial and their sum at most n_subtasks (SWE-sweep counts a bug as resolved
// or partial, never both); and n_subtasks equal to declaredBugs when declaredBugs is above 0
// (the trial's spec.bugsTotal: the task's declared count, or the size of its bug subset).
// Only the keys present are checked, so a reward-only result passes when its reward is in
// [0, 1]. The error names the key, its value and the bound.
func (r Result) CheckBounds(declaredBugs int) error {
	if v, ok := r[KeyReward]; ok && (v < 0 || v > 1) {
		return fmt.Errorf("%s is %v, outside [0, 1]", KeyReward, v)
	}
	for _, k := range countKeys {
		if v, ok := r[k]; ok && (v < 0 || v != math.Trunc(v)) {
			return fmt.Errorf("%s is %v, not a non-negative integer", k, v)
		}
	}
	for _, k := range flagKeys {
		if v, ok := r[k]; ok && v != 0 && v != 1 {
			return fmt.Errorf("%s is %v, not 0 or 1", k, v)
		}
	}
	subtasks, ok := r[KeySubtasks]
	if !ok {
		// Without n_subtasks scoring skips the result (Outcome), so there is nothing to bound.
		return nil
	}
	if declaredBugs > 0 && subtasks != float64(declaredBugs) {
		return fmt.Errorf("%s is %v, not the trial's %d declared bugs", KeySubtasks, subtasks, declaredBugs)
	}
	for _, k := range []string{KeyResolved, KeyPartial} {
		if v := r[k]; v > subtasks {
			return fmt.Errorf("%s is %v, above %s (%v)", k, v, KeySubtasks, subtasks)
		}
	}
	if sum := r[KeyResolved] + r[KeyPartial]; sum > subtasks {
		return fmt.Errorf("%s + %s is %v, above %s (%v): a bug is resolved or partial, not both",
			KeyResolved, KeyPartial, sum, KeySubtasks, subtasks)
	}
	return nil
}
