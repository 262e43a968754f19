// Package reward is the verifier's result contract: the file a verifier writes under
// /logs/verifier (reward.json, a flat object of finite numbers, or failing that reward.txt, one
// number), the keys SWE-sweep's graders write in it, how it is read, validated and encoded, and
// the outcome a trial derives from it. The hook, both built-in graders, the trial controller,
// scoring, `sweep info` and `sweep export` all go through this package, so that a trial and
// its campaign never read one result two ways.
//
// A result is one of three things to a trial and its campaign (Outcome):
//
//   - not measured: grader_failed is 1 or more, whatever else it holds (SWE-sweep's nine keys,
//     or the bare {"reward": 0, "grader_failed": 1} of a grader that crashed early). The hook
//     and the failure classifier end such a trial Failed with reason GraderFailed; scoring
//     counts it as an evaluation failure, never a 0, in a cluster and in a job directory alike.
//   - skipped: measured, but it lacks one of reward, n_subtasks, n_resolved and visible_ok, as
//     the result of a reward-only Harbor task (reward.txt, or reward.json with only "reward").
//     SWE-sweep's scoring skips such a file, and so do we: the trial succeeds and shows its
//     reward, but it counts neither as bugs nor as an evaluation failure.
//   - scored: measured with all four keys. It counts n_subtasks bugs of which n_resolved are
//     resolved, and it is regressed when visible_ok is below 1.
//
// A result is also checked against what its keys can mean and the trial's own bug count
// (CheckBounds): one out of bounds is never scored, whichever of the three it would be.
//
// SWE-sweep's own scoring reads a bare grader failure as skipped too, because it lacks the
// keys; we decide "measured" first, so that every grader failure stays visible as an
// evaluation failure and a campaign reads the same in the cluster and from `sweep export`.
package reward

import (
	"encoding/json"
	"fmt"
	"math"
)

// The file names a verifier writes its result under, in its output directory.
const (
	FileJSON = "reward.json"
	FileText = "reward.txt"
	// FileGraderError holds, beside reward.json, why a grader that could not grade failed
	// (one line of text), as SWE-sweep's grader writes it.
	FileGraderError = "grader_error.txt"
)

// Keys of a result. A reward-only task writes only KeyReward; SWE-sweep's graders write all.
const (
	// KeyReward is the trial's reward in [0, 1]: 0 when anything regressed, else the fraction of
	// bugs resolved. reward.txt holds this key alone.
	KeyReward = "reward"
	// KeySubtasks is the number of bugs graded.
	KeySubtasks = "n_subtasks"
	// KeyResolved is the number of bugs resolved; KeyPartial of bugs partly resolved.
	KeyResolved = "n_resolved"
	KeyPartial  = "n_partial"
	// KeyVisibleOK is 1 when the build passed and no visible test regressed.
	KeyVisibleOK = "visible_ok"
	// KeyRegressions counts the visible tests that passed at the base and do not pass now.
	KeyRegressions = "n_regressions"
	// KeyPatchApplied and KeyBuildOK are 1 when the agent's patch applied and built.
	KeyPatchApplied = "agent_patch_applied"
	KeyBuildOK      = "agent_build_ok"
	// KeyGraderFailed is 1 when the grader crashed: the result is not a measurement.
	KeyGraderFailed = "grader_failed"
	// KeyRegressionsCleared counts the visible suite's regressions that the bundle grader's
	// flake re-check cleared (docs/task-format.md): tests that failed in the visible run and
	// passed in a re-run, so that n_regressions no longer counts them. It is written only when
	// the re-check is on, so a result without it is graded as SWE-sweep grades.
	KeyRegressionsCleared = "n_regressions_cleared"
)

// Bounds on a result, so that it always fits in the collector's summary.
const (
	MaxKeys   = 32
	MaxKeyLen = 64
)

// Result is a verifier's result: key to finite number.
type Result map[string]float64

// GraderFailed is the result of a grader that could not grade, nor write its own failure: the
// bare form SWE-sweep writes only when its grader crashed before it could (its scoring skips
// the file, for lack of the scoring keys; ours counts it as an evaluation failure).
func GraderFailed() Result { return Result{KeyReward: 0, KeyGraderFailed: 1} }

// EvaluationFailed is the result a grader writes when its evaluation failed (a setup that
// failed, a pristine run with nothing to read, an error of its own): all nine keys, as
// SWE-sweep's grader folds such an error, so that SWE-sweep's scoring reads the file and lists
// the task among its evaluation failures. No bug was graded (n_subtasks 0); agent_patch_applied
// and agent_build_ok are 1, SWE-sweep's defaults when nothing said otherwise. Not measured.
func EvaluationFailed() Result {
	return Result{KeyReward: 0, KeySubtasks: 0, KeyResolved: 0, KeyPartial: 0, KeyVisibleOK: 0, KeyRegressions: 0,
		KeyPatchApplied: 1, KeyBuildOK: 1, KeyGraderFailed: 1}
}

// Measured reports whether the result is a measurement: a grader failure is not.
func (r Result) Measured() bool { return r[KeyGraderFailed] < 1 }

// Validate checks the bounds on keys and that every value is a finite number.
func (r Result) Validate() error { return r.validate("the result") }

func (r Result) validate(subject string) error {
	if len(r) == 0 {
		return fmt.Errorf("%s is empty", subject)
	}
	if len(r) > MaxKeys {
		return fmt.Errorf("%s has %d keys, at most %d allowed", subject, len(r), MaxKeys)
	}
	for k, v := range r {
		if k == "" || len(k) > MaxKeyLen {
			return fmt.Errorf("%s key %q: keys must have 1 to %d bytes", subject, k, MaxKeyLen)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s key %q: %v is not a finite number", subject, k, v)
		}
	}
	return nil
}

// Encode renders a valid result as the bytes of reward.json: one compact object, keys sorted,
// and a newline.
func Encode(r Result) ([]byte, error) {
	if err := r.validate(FileJSON); err != nil {
		return nil, err
	}
	b, err := json.Marshal(map[string]float64(r))
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", FileJSON, err)
	}
	return append(b, '\n'), nil
}
