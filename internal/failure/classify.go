// Package failure decides, from what a stage's Job, Pod and collector report, how the stage
// ended and what the trial does next (DESIGN section 6). Decisions are chains of pure
// functions; the first that matches gives the reason, which becomes the condition reason.
package failure

import (
	"fmt"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// Class groups reasons by what happens next.
type Class string

const (
	// ClassNone: the stage did its work.
	ClassNone Class = ""
	// ClassAgent: the agent failed or timed out; its patch so far is still verified.
	ClassAgent Class = "Agent"
	// ClassInfrastructure: not the agent's fault; retried with backoff, never scored.
	ClassInfrastructure Class = "Infrastructure"
	// ClassVerifier: no measurement; excluded from the score.
	ClassVerifier Class = "Verifier"
	// ClassInput: the trial cannot run as specified.
	ClassInput Class = "Input"
)

// Reasons the controller adds to those sweep-hook reports (podcontract.Reason*).
const (
	ReasonImagePullFailed         = "ImagePullFailed"
	ReasonPodEvicted              = "PodEvicted"
	ReasonNodeLost                = "NodeLost"
	ReasonPreempted               = "Preempted"
	ReasonEnvironmentStartTimeout = "EnvironmentStartTimeout"
	ReasonCollectorLost           = "CollectorLost"
	ReasonInvalidTask             = "InvalidTask"
	ReasonPatchTooLarge           = "PatchTooLarge"
)

// ContainerWaiting is a container the kubelet cannot start yet.
type ContainerWaiting struct {
	Container, Reason, Message string
}

// Pod is what the stage's latest Pod shows.
type Pod struct {
	// Reason is the Pod's status reason (Evicted, NodeLost, UnexpectedAdmissionError, ...).
	Reason  string
	Message string
	// Started: the main container has started at some point.
	Started bool
	// Terminal: the Pod's phase is Succeeded or Failed.
	Terminal bool
	Waiting  []ContainerWaiting
	// Disruption is the reason of a true DisruptionTarget condition, if any.
	Disruption string
}

// Stage is one observation of a stage.
type Stage struct {
	Stage       podcontract.Stage
	Now         time.Time
	JobCreated  time.Time
	JobComplete bool
	JobFailed   bool
	// JobFailureReason is the Job's Failed condition reason (DeadlineExceeded, PodFailurePolicy,
	// BackoffLimitExceeded).
	JobFailureReason  string
	JobFailureMessage string
	// JobFinishedAt is when the Job's Complete or Failed condition became true.
	JobFinishedAt time.Time
	// Pod is nil until the Job created one.
	Pod *Pod
	// Summary is the collector's report, nil when it left none; SummaryError says why a
	// termination message was rejected.
	Summary      *podcontract.Summary
	SummaryError error
	// StartTimeout bounds the time from Job creation to the main container starting.
	StartTimeout time.Duration
}

// Finished reports whether the Job ended.
func (s Stage) Finished() bool { return s.JobComplete || s.JobFailed }

// Verdict is how a stage stands. Done is false while it is still running normally.
type Verdict struct {
	Done    bool
	Class   Class
	Reason  string
	Message string
}

type rule func(Stage) (Verdict, bool)

// Classify runs the chain over one observation.
func Classify(s Stage) Verdict {
	for _, r := range []rule{imagePull, disrupted, startTimeout, stillRunning, awaitPodStatus, fromSummary, lostCollector} {
		if v, ok := r(s); ok {
			return v
		}
	}
	return Verdict{}
}

var imagePullReasons = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true, "InvalidImageName": true}

func imagePull(s Stage) (Verdict, bool) {
	if s.Pod == nil {
		return Verdict{}, false
	}
	for _, w := range s.Pod.Waiting {
		if imagePullReasons[w.Reason] {
			return Verdict{Done: true, Class: ClassInfrastructure, Reason: ReasonImagePullFailed,
				Message: fmt.Sprintf("container %s: %s: %s", w.Container, w.Reason, w.Message)}, true
		}
	}
	return Verdict{}, false
}

// disrupted catches a Job that failed because its Pod was lost to the node rather than to
// the stage (the pod failure policy ignores DisruptionTarget, so this is the rest).
func disrupted(s Stage) (Verdict, bool) {
	if !s.JobFailed || s.Pod == nil {
		return Verdict{}, false
	}
	reason := ""
	switch {
	case s.Pod.Reason == "Evicted" || s.Pod.Disruption == "EvictionByEvictionAPI" || s.Pod.Disruption == "TerminationByKubelet":
		reason = ReasonPodEvicted
	case s.Pod.Reason == "NodeLost" || s.Pod.Reason == "NodeShutdown" || s.Pod.Disruption == "DeletionByTaintManager" || s.Pod.Disruption == "DeletionByPodGC":
		reason = ReasonNodeLost
	case s.Pod.Reason == "Preempting" || s.Pod.Disruption == "PreemptionByScheduler":
		reason = ReasonPreempted
	case s.Pod.Reason == "UnexpectedAdmissionError" || s.Pod.Reason == "NodeAffinity":
		reason = ReasonPodEvicted
	default:
		return Verdict{}, false
	}
	return Verdict{Done: true, Class: ClassInfrastructure, Reason: reason, Message: podMessage(s.Pod)}, true
}

func podMessage(p *Pod) string {
	if p.Message != "" {
		return p.Message
	}
	if p.Disruption != "" {
		return "pod disrupted: " + p.Disruption
	}
	return "pod " + p.Reason
}

func startTimeout(s Stage) (Verdict, bool) {
	if s.Finished() || s.StartTimeout <= 0 || (s.Pod != nil && s.Pod.Started) || s.Now.Sub(s.JobCreated) < s.StartTimeout {
		return Verdict{}, false
	}
	msg := fmt.Sprintf("the %s container did not start within %s", s.Stage, s.StartTimeout)
	if s.Pod != nil {
		for _, w := range s.Pod.Waiting {
			msg += fmt.Sprintf("; %s: %s %s", w.Container, w.Reason, w.Message)
		}
	}
	return Verdict{Done: true, Class: ClassInfrastructure, Reason: ReasonEnvironmentStartTimeout, Message: msg}, true
}

func stillRunning(s Stage) (Verdict, bool) {
	return Verdict{}, !s.Finished()
}

// PodStatusSettle is how long after its Job finished a Pod may still look unfinished. Jobs and
// Pods reach the controller through separate watches, so a finished Job can be seen before its
// Pod's final status with the collector's summary; deciding then would call the collector lost.
const PodStatusSettle = 30 * time.Second

func awaitPodStatus(s Stage) (Verdict, bool) {
	settled := s.Pod != nil && s.Pod.Terminal
	return Verdict{}, !settled && s.Now.Sub(s.JobFinishedAt) < PodStatusSettle
}

func fromSummary(s Stage) (Verdict, bool) {
	sum := s.Summary
	if sum == nil {
		return Verdict{}, false
	}
	deadline := s.JobFailed && s.JobFailureReason == "DeadlineExceeded"
	if s.Stage == podcontract.StageAgent {
		switch {
		case deadline || sum.Reason == podcontract.ReasonAgentTimeout:
			return Verdict{Done: true, Class: ClassAgent, Reason: podcontract.ReasonAgentTimeout, Message: orDefault(sum.Message, "the agent ran past its timeout; its work so far is verified")}, true
		case sum.Reason == podcontract.ReasonAgentFailed || sum.Reason == podcontract.ReasonPatchApplyFailed:
			return Verdict{Done: true, Class: ClassAgent, Reason: sum.Reason, Message: sum.Message}, true
		case !sum.Done || s.JobFailed:
			return Verdict{Done: true, Class: ClassAgent, Reason: podcontract.ReasonAgentFailed, Message: orDefault(sum.Message, s.JobFailureMessage)}, true
		}
		return Verdict{Done: true}, true
	}
	switch {
	case deadline || sum.Reason == podcontract.ReasonVerifierTimeout:
		return Verdict{Done: true, Class: ClassVerifier, Reason: podcontract.ReasonVerifierTimeout, Message: orDefault(sum.Message, "the verifier ran past its timeout")}, true
	case sum.Reason == podcontract.ReasonGraderFailed || !reward.Result(sum.Rewards).Measured():
		return Verdict{Done: true, Class: ClassVerifier, Reason: podcontract.ReasonGraderFailed, Message: orDefault(sum.Message, "the grader reported grader_failed")}, true
	case sum.Reason != "" && sum.Reason != podcontract.ReasonCollectorInterrupted:
		return Verdict{Done: true, Class: ClassVerifier, Reason: sum.Reason, Message: sum.Message}, true
	case len(sum.Rewards) == 0:
		return Verdict{Done: true, Class: ClassVerifier, Reason: podcontract.ReasonRewardMissing, Message: orDefault(sum.Message, "the verifier wrote no reward")}, true
	}
	return Verdict{Done: true}, true
}

func lostCollector(s Stage) (Verdict, bool) {
	msg := "the collector left no summary"
	if s.SummaryError != nil {
		msg = "the collector's summary was rejected: " + s.SummaryError.Error()
	}
	if s.JobFailureMessage != "" {
		msg += "; job: " + s.JobFailureMessage
	}
	return Verdict{Done: true, Class: ClassInfrastructure, Reason: ReasonCollectorLost, Message: msg}, true
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
