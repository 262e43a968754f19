package failure

import (
	"fmt"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// OutOfBounds is the verdict on a verifier result that claims what the trial cannot have
// (reward.Result.CheckBounds against the trial's declared bug count): a verifier error, so the
// trial is Failed and never scored. ok is false when the result is within bounds.
func OutOfBounds(result reward.Result, declaredBugs int) (v Verdict, ok bool) {
	err := result.CheckBounds(declaredBugs)
	if err == nil {
		return Verdict{}, false
	}
	return Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardOutOfBounds,
		Message: fmt.Sprintf("the verifier's result is out of bounds: %v; the trial is not scored (its results are kept): fix the grader or tests/test.sh", err)}, true
}
