package failure

import (
	"fmt"
	"time"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// Step is what the trial does after a finished stage.
type Step string

const (
	// StepProceed: go on (agent → verifier; verifier → graded).
	StepProceed Step = "Proceed"
	// StepRetry: run the same stage again as a new Job after Backoff.
	StepRetry Step = "Retry"
	// StepFinish: end the trial in Phase.
	StepFinish Step = "Finish"
)

// Used counts the retries a trial has spent.
type Used struct {
	Infrastructure, Verifier int32
}

// Decision is the next step with the reason it records.
type Decision struct {
	Step    Step
	Phase   evalv1.TrialPhase
	Backoff time.Duration
	Reason  string
	Message string
}

// Next decides what follows a finished stage verdict under the retry policy.
func Next(v Verdict, used Used, policy evalv1.RetryPolicy) Decision {
	d := Decision{Reason: v.Reason, Message: v.Message}
	switch v.Class {
	case ClassNone, ClassAgent, ClassScored:
		d.Step = StepProceed
	case ClassInfrastructure:
		if used.Infrastructure < policy.InfrastructureRetries {
			d.Step, d.Backoff = StepRetry, backoff(policy.BackoffSeconds, used.Infrastructure)
			d.Message = fmt.Sprintf("%s (retry %d of %d)", v.Message, used.Infrastructure+1, policy.InfrastructureRetries)
		} else {
			d.Step, d.Phase = StepFinish, evalv1.TrialError
			d.Message = fmt.Sprintf("%s (infrastructure retries exhausted: %d)", v.Message, policy.InfrastructureRetries)
		}
	case ClassVerifier:
		if policy.RetryVerifierFailures && !deterministicVerifierFailure(v.Reason) && used.Verifier < policy.InfrastructureRetries {
			d.Step, d.Backoff = StepRetry, backoff(policy.BackoffSeconds, used.Verifier)
			d.Message = fmt.Sprintf("%s (retry %d of %d)", v.Message, used.Verifier+1, policy.InfrastructureRetries)
		} else {
			d.Step, d.Phase = StepFinish, evalv1.TrialFailed
		}
	case ClassInput:
		d.Step, d.Phase = StepFinish, evalv1.TrialError
	}
	return d
}

// deterministicVerifierFailure says that grading again would end the same way: a result out
// of bounds is what this grader wrote over this patch (and the first run's results are kept);
// a bug subset the verifier image's bundle cannot take is a fact of that image.
func deterministicVerifierFailure(reason string) bool {
	switch reason {
	case reasons.RewardOutOfBounds, reasons.UnknownBugs, reasons.BugSubsetUnsupported:
		return true
	}
	return false
}

// backoff doubles from base for each retry already spent, capped at an hour.
func backoff(baseSeconds, spent int32) time.Duration {
	d := time.Duration(baseSeconds) * time.Second
	for range spent {
		d *= 2
		if d > time.Hour {
			return time.Hour
		}
	}
	return d
}

// RerunByDefault are the reasons `sweep retry` reruns when it is not given any: those a trial
// can end with by chance, so that running it again may measure it. They are the
// infrastructure reasons and the verifier failures the retry policy retries (every one but
// deterministicVerifierFailure's); a reason the agent's patch or the task itself caused
// (InvalidTask, a result out of bounds, a bug subset refused) ends the same way again and is
// rerun only when named.
var RerunByDefault = []string{
	reasons.ImagePullFailed, reasons.PodEvicted, reasons.NodeLost, reasons.Preempted,
	reasons.EnvironmentStartTimeout, reasons.CollectorLost, reasons.ArtifactsLost,
	reasons.VerifierTimeout, reasons.GraderFailed, reasons.RewardMissing,
}
