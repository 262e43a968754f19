// Package failure decides, from what a stage's Job, Pod and collector report, how the stage
// ended and what the trial does next (docs/design.md §6). Decisions are chains of pure
// functions; the first that matches gives the reason, which becomes the condition reason.
package failure

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
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
	// ClassScored: the agent caused how the stage ended (a patch too large or refused, tests
	// that hung on its tree, a verifier it ran out of its own memory): the trial goes on and is
	// scored, usually 0, with the reason saying why. The agent cannot opt out of being scored.
	ClassScored Class = "Scored"
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
	// Started: the main container has started at some point; StartedAt is when it first did,
	// zero when the Pod does not say.
	Started   bool
	StartedAt time.Time
	// Succeeded: the Pod is Succeeded, or every container of it has ended with exit code 0,
	// which the kubelet reports before the phase (ContainersSucceeded). Terminal: Succeeded,
	// or the Pod is Failed.
	Terminal, Succeeded bool
	// EndedAt is when the last of its containers ended, zero while one has not.
	EndedAt time.Time
	Waiting []ContainerWaiting
	// Disruption is the reason of a true DisruptionTarget condition, if any.
	Disruption string
	// OOMKilled: the main container was terminated with reason OOMKilled.
	OOMKilled bool
	// MemoryLimited: the main container has a memory limit of its own, so an OOM kill in it
	// is its own doing rather than the node's.
	MemoryLimited bool
}

// Stage is one observation of a stage.
type Stage struct {
	Stage      podcontract.Stage
	Now        time.Time
	JobCreated time.Time
	// JobStarted is when the Job last started running (its status.startTime): for a Job that
	// waited suspended in a queue (Kueue), its admission, set again at each re-admission after
	// an eviction. Zero until the Job controller set it.
	JobStarted time.Time
	// Suspended: the Job waits for admission (created suspended for a queue, or suspended
	// again by an eviction or preemption); its time there is not the stage's.
	Suspended bool
	// JobComplete: the Job completed, or its Pod succeeded before the Job's deadline
	// (Stage.ObservePod), which the Job controller will count as its completion.
	JobComplete bool
	JobFailed   bool
	// JobFailureReason is the Job's Failed condition reason (DeadlineExceeded, PodFailurePolicy,
	// BackoffLimitExceeded).
	JobFailureReason  string
	JobFailureMessage string
	// JobFinishedAt is when the Job's Complete or Failed condition became true, or when its
	// Pod ended if that settled the stage first.
	JobFinishedAt time.Time
	// ActiveDeadline is the Job's activeDeadlineSeconds, zero when it has none.
	ActiveDeadline time.Duration
	// Pod is nil until the Job created one.
	Pod *Pod
	// Summary is the collector's report, nil when it left none; SummaryError says why a
	// termination message was rejected.
	Summary      *podcontract.Summary
	SummaryError error
	// StartTimeout bounds the time from the Job's start (StartClock) to the main container
	// starting.
	StartTimeout time.Duration
}

// StartClock is when the start timeout began: the Job's last start when the Job controller
// recorded one (a queued Job's admission), else its creation.
func (s Stage) StartClock() time.Time {
	if s.JobStarted.After(s.JobCreated) {
		return s.JobStarted
	}
	return s.JobCreated
}

// Finished reports whether the Job ended.
func (s Stage) Finished() bool { return s.JobComplete || s.JobFailed }

// Verdict is how a stage stands. Done is false while it is still running normally.
type Verdict struct {
	Done    bool
	Class   Class
	Reason  string
	Message string
	// ZeroScore: the trial is scored reward.Zero of its bugs; there is no grader result to
	// read (the verifier died of what the agent's code did).
	ZeroScore bool
}

type rule func(Stage) (Verdict, bool)

// Classify runs the chain over one observation.
func Classify(s Stage) Verdict {
	for _, r := range []rule{queued, imagePull, outOfStorage, disrupted, startTimeout, stillRunning, awaitPodStatus, outOfMemory, fromSummary, lostCollector} {
		if v, ok := r(s); ok {
			return v
		}
	}
	return Verdict{}
}

// queued holds every decision while the Job waits for its Kueue queue, for its first
// admission or after an eviction: the Job is not running, and a Pod the Job controller
// deleted on the eviction (killed, perhaps mid-pull) is no failure of the stage. The same Job
// runs the stage once admitted again.
func queued(s Stage) (Verdict, bool) {
	return Verdict{}, s.Suspended && !s.Finished()
}

var imagePullReasons = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true, "InvalidImageName": true}

func imagePull(s Stage) (Verdict, bool) {
	if s.Pod == nil {
		return Verdict{}, false
	}
	for _, w := range s.Pod.Waiting {
		if imagePullReasons[w.Reason] {
			return Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.ImagePullFailed,
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
	reason := disruption(s.Pod)
	if reason == "" {
		return Verdict{}, false
	}
	return Verdict{Done: true, Class: ClassInfrastructure, Reason: reason, Message: podMessage(s.Pod)}, true
}

// disruption is the infrastructure reason a Pod was lost for (evicted, its node gone,
// preempted), empty when it was not.
func disruption(p *Pod) string {
	switch {
	case p.Reason == "Evicted" || p.Disruption == "EvictionByEvictionAPI" || p.Disruption == "TerminationByKubelet":
		return reasons.PodEvicted
	case p.Reason == "NodeLost" || p.Reason == "NodeShutdown" || p.Disruption == "DeletionByTaintManager" || p.Disruption == "DeletionByPodGC":
		return reasons.NodeLost
	case p.Reason == "Preempting" || p.Disruption == "PreemptionByScheduler":
		return reasons.Preempted
	case p.Reason == "UnexpectedAdmissionError" || p.Reason == "NodeAffinity":
		return reasons.PodEvicted
	case p.Disruption != "":
		return reasons.PodEvicted
	}
	return ""
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
	if s.Finished() || s.Suspended || s.StartTimeout <= 0 || (s.Pod != nil && s.Pod.Started) || s.Now.Sub(s.StartClock()) < s.StartTimeout {
		return Verdict{}, false
	}
	msg := fmt.Sprintf("the %s container did not start within %s", s.Stage, s.StartTimeout)
	if s.Pod != nil {
		for _, w := range s.Pod.Waiting {
			msg += fmt.Sprintf("; %s: %s %s", w.Container, w.Reason, w.Message)
		}
	}
	return Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.EnvironmentStartTimeout, Message: msg}, true
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

// ownStorageLimit are the beginnings of the kubelet's eviction messages for a Pod that wrote
// past a limit of its own (a container's or the Pod's ephemeral-storage limit, an emptyDir's
// size limit), as opposed to a node that ran short of disk. Such evictions carry no
// DisruptionTarget condition.
var ownStorageLimit = []*regexp.Regexp{
	regexp.MustCompile(`^Container \S+ exceeded its local ephemeral storage limit `),
	regexp.MustCompile(`^Pod ephemeral local storage usage exceeds the total limit of containers `),
	regexp.MustCompile(`^Usage of EmptyDir volume "[^"]*" exceeds the limit `),
}

// outOfStorage attributes a verifier Pod the kubelet evicted for writing past its own storage
// limit: the agent's code filled the disk it was given, so the trial is scored 0
// (VerifierOutOfStorage) instead of being retried as infrastructure, the way an OOM kill
// within the container's own memory limit is. A measured result stands.
func outOfStorage(s Stage) (Verdict, bool) {
	if s.Stage != podcontract.StageVerifier || s.Pod == nil || s.Pod.Reason != "Evicted" || s.Pod.Disruption != "" {
		return Verdict{}, false
	}
	if !slices.ContainsFunc(ownStorageLimit, func(re *regexp.Regexp) bool { return re.MatchString(s.Pod.Message) }) {
		return Verdict{}, false
	}
	if v, ok := fromSummary(s); ok && (v.Class == ClassNone || v.Class == ClassScored) {
		return Verdict{}, false
	}
	return Verdict{Done: true, Class: ClassScored, Reason: reasons.VerifierOutOfStorage, ZeroScore: true,
		Message: "the verifier wrote past its own storage limit running the agent's code: scored 0 (" + strings.TrimSpace(s.Pod.Message) +
			"); raise the task's storage_mb if the unpatched tree needs more"}, true
}

// outOfMemory attributes a verifier whose main container was OOM-killed (the attribution rule
// of docs/security.md):
//
//   - a measured result stands: the grader saw what was killed and graded it;
//   - a Pod that was evicted, preempted or lost to its node is the infrastructure's (caught
//     before this rule when it failed the Job; the check here covers a Pod the Job replaced);
//   - a container with a memory limit of its own ran out of it running the agent's code: the
//     trial is scored 0 (VerifierOutOfMemory), so that a patch cannot opt out of being scored
//     by exhausting memory;
//   - a container without a limit was killed because the node ran out of memory, which its
//     neighbours share: infrastructure, retried.
func outOfMemory(s Stage) (Verdict, bool) {
	if s.Stage != podcontract.StageVerifier || s.Pod == nil || !s.Pod.OOMKilled || disruption(s.Pod) != "" {
		return Verdict{}, false
	}
	if v, ok := fromSummary(s); ok && (v.Class == ClassNone || v.Class == ClassScored) {
		return Verdict{}, false
	}
	if !s.Pod.MemoryLimited {
		return Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted,
			Message: "the verifier container was OOM-killed without a memory limit of its own: the node ran out of memory; set the task's memory_mb so that the verifier's memory is its own"}, true
	}
	return Verdict{Done: true, Class: ClassScored, Reason: reasons.VerifierOutOfMemory, ZeroScore: true,
		Message: "the verifier container ran out of its own memory limit running the agent's code: scored 0; raise the task's memory_mb if the unpatched tree needs more"}, true
}

// scoredByGrader are the reasons a grader gives a measured result whose score the agent's
// patch caused; the trial is scored with them.
var scoredByGrader = map[string]bool{reasons.PatchRefused: true, reasons.TestsHungOnPatch: true}

func fromSummary(s Stage) (Verdict, bool) {
	sum := s.Summary
	if sum == nil {
		return Verdict{}, false
	}
	deadline := s.JobFailed && s.JobFailureReason == "DeadlineExceeded"
	if s.Stage == podcontract.StageAgent {
		switch {
		case deadline || sum.Reason == reasons.AgentTimeout:
			return Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentTimeout, Message: orDefault(sum.Message, "the agent ran past its timeout; its work so far is verified")}, true
		case sum.Reason == reasons.AgentFailed || sum.Reason == reasons.PatchApplyFailed:
			return Verdict{Done: true, Class: ClassAgent, Reason: sum.Reason, Message: sum.Message}, true
		case !sum.Done || s.JobFailed:
			return Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentFailed, Message: orDefault(sum.Message, s.JobFailureMessage)}, true
		}
		return Verdict{Done: true}, true
	}
	switch {
	case sum.Reason == reasons.ArtifactsLost:
		return Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.ArtifactsLost, Message: sum.Message}, true
	// A verifier past the stage's own limit is not measured, never the agent's 0: the
	// controller cannot tell a hang the patch caused from a limit too short for the task. The
	// built-in graders stop their suites before the stage deadline (--deadline) and decide that
	// themselves, scoring TestsHungOnPatch when the unpatched tree finishes within the limit.
	case deadline || sum.Reason == reasons.VerifierTimeout:
		return Verdict{Done: true, Class: ClassVerifier, Reason: reasons.VerifierTimeout, Message: orDefault(sum.Message, "the verifier ran past its timeout")}, true
	case sum.Reason == reasons.GraderFailed || !reward.Result(sum.Rewards).Measured():
		return Verdict{Done: true, Class: ClassVerifier, Reason: reasons.GraderFailed, Message: orDefault(sum.Message, "the grader reported grader_failed")}, true
	case scoredByGrader[sum.Reason] && len(sum.Rewards) == 0:
		return Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardMissing, Message: "the grader reported " + sum.Reason + " but wrote no reward: " + sum.Message}, true
	case scoredByGrader[sum.Reason]:
		return Verdict{Done: true, Class: ClassScored, Reason: sum.Reason, Message: orDefault(sum.Message, "the grader scored the patch "+sum.Reason)}, true
	case sum.Reason != "" && sum.Reason != reasons.CollectorInterrupted:
		return Verdict{Done: true, Class: ClassVerifier, Reason: sum.Reason, Message: sum.Message}, true
	case len(sum.Rewards) == 0:
		return Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardMissing, Message: orDefault(sum.Message, "the verifier wrote no reward")}, true
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
	return Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.CollectorLost, Message: msg}, true
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
