package failure

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func stage(st podcontract.Stage) Stage {
	return Stage{Stage: st, Now: t0.Add(time.Minute), JobCreated: t0, StartTimeout: 10 * time.Minute}
}

func TestClassify(t *testing.T) {
	agent, verifier := podcontract.StageAgent, podcontract.StageVerifier
	done := func(reason string, rewards map[string]float64) *podcontract.Summary {
		return &podcontract.Summary{Done: true, Reason: reason, Rewards: rewards, Message: "m"}
	}
	oom := Verdict{Done: true, Class: ClassScored, Reason: reasons.VerifierOutOfMemory, ZeroScore: true,
		Message: "the verifier container ran out of its own memory limit running the agent's code: scored 0; raise the task's memory_mb if the unpatched tree needs more"}
	cases := map[string]struct {
		obs  func(s *Stage)
		st   podcontract.Stage
		want Verdict
	}{
		"agent running":                        {st: agent, obs: func(s *Stage) { s.Pod = &Pod{Started: true} }, want: Verdict{}},
		"not yet started within the allowance": {st: agent, obs: func(s *Stage) { s.Pod = &Pod{} }, want: Verdict{}},
		"image pull fails while running": {st: agent, obs: func(s *Stage) {
			s.Pod = &Pod{Waiting: []ContainerWaiting{{Container: "agent", Reason: "ErrImageNeverPull", Message: "image not present"}}}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.ImagePullFailed, Message: "container agent: ErrImageNeverPull: image not present"}},
		"pod never starts": {st: verifier, obs: func(s *Stage) {
			s.Now = t0.Add(11 * time.Minute)
			s.Pod = &Pod{Waiting: []ContainerWaiting{{Container: "verifier", Reason: "ContainerCreating"}}}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.EnvironmentStartTimeout, Message: "the verifier container did not start within 10m0s; verifier: ContainerCreating "}},
		"an hour in a queue is not the stage's": {st: agent, obs: func(s *Stage) {
			s.Now, s.Suspended = t0.Add(time.Hour), true
		}, want: Verdict{}},
		"admitted from a queue: the timeout counts from admission": {st: agent, obs: func(s *Stage) {
			s.Now, s.JobStarted = t0.Add(time.Hour), t0.Add(55*time.Minute)
			s.Pod = &Pod{Waiting: []ContainerWaiting{{Container: "agent", Reason: "ContainerCreating"}}}
		}, want: Verdict{}},
		"admitted from a queue and never started": {st: agent, obs: func(s *Stage) {
			s.Now, s.JobStarted = t0.Add(time.Hour), t0.Add(45*time.Minute)
			s.Pod = &Pod{Waiting: []ContainerWaiting{{Container: "agent", Reason: "ContainerCreating"}}}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.EnvironmentStartTimeout, Message: "the agent container did not start within 10m0s; agent: ContainerCreating "}},
		"evicted back to the queue: waits for re-admission": {st: agent, obs: func(s *Stage) {
			s.Now, s.Suspended = t0.Add(time.Hour), true
			s.Pod = &Pod{Started: true, Reason: "Terminating"}
		}, want: Verdict{}},
		"evicted pod failed the job": {st: agent, obs: func(s *Stage) {
			s.JobFailed = true
			s.Pod = &Pod{Reason: "Evicted", Message: "node low on memory"}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted, Message: "node low on memory"}},
		"preempted": {st: agent, obs: func(s *Stage) {
			s.JobFailed = true
			s.Pod = &Pod{Disruption: "PreemptionByScheduler"}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.Preempted, Message: "pod disrupted: PreemptionByScheduler"}},
		"a disruption of a kind not known yet is the infrastructure's": {st: verifier, obs: func(s *Stage) {
			s.JobFailed = true
			s.Pod = &Pod{Disruption: "SomethingNew"}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted, Message: "pod disrupted: SomethingNew"}},
		"node lost": {st: verifier, obs: func(s *Stage) {
			s.JobFailed = true
			s.Pod = &Pod{Disruption: "DeletionByTaintManager"}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.NodeLost, Message: "pod disrupted: DeletionByTaintManager"}},
		"job finished but its pod's final status not seen yet": {st: agent, obs: func(s *Stage) {
			s.JobComplete, s.JobFinishedAt = true, s.Now.Add(-time.Second)
			s.Pod = &Pod{Started: true}
		}, want: Verdict{}},
		"job finished and its pod never settles": {st: agent, obs: func(s *Stage) {
			s.JobComplete, s.JobFinishedAt = true, s.Now.Add(-PodStatusSettle)
			s.Pod = &Pod{Started: true}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.CollectorLost, Message: "the collector left no summary"}},
		"agent done": {st: agent, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done("", nil) }, want: Verdict{Done: true}},
		"agent failed is still verified": {st: agent, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done(reasons.AgentFailed, nil) },
			want: Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentFailed, Message: "m"}},
		"patch that does not apply": {st: agent, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done(reasons.PatchApplyFailed, nil) },
			want: Verdict{Done: true, Class: ClassAgent, Reason: reasons.PatchApplyFailed, Message: "m"}},
		"agent timeout reported by the hook": {st: agent, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done(reasons.AgentTimeout, nil) },
			want: Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentTimeout, Message: "m"}},
		"job deadline on the agent with a summary": {st: agent, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "DeadlineExceeded"
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentTimeout, Message: "the agent ran past its timeout; its work so far is verified"}},
		"agent container crashed": {st: agent, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason, s.JobFailureMessage = true, "PodFailurePolicy", "container agent exited 137"
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentFailed, Message: "container agent exited 137"}},
		"finished without a summary": {st: agent, obs: func(s *Stage) { s.JobComplete = true },
			want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.CollectorLost, Message: "the collector left no summary"}},
		"rejected summary": {st: verifier, obs: func(s *Stage) { s.JobComplete = true; s.SummaryError = errors.New("not JSON") },
			want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.CollectorLost, Message: "the collector's summary was rejected: not JSON"}},
		"verifier graded": {st: verifier, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done("", map[string]float64{"reward": 1}) },
			want: Verdict{Done: true}},
		// The verifier graded nothing: the patch it received was not the agent's.
		"artifacts lost": {st: verifier, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done(reasons.ArtifactsLost, nil) },
			want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.ArtifactsLost, Message: "m"}},
		"grader failed": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Summary = done("", map[string]float64{"reward": 0, "grader_failed": 1})
		}, want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.GraderFailed, Message: "m"}},
		// SWE-sweep's nine-key form: n_subtasks 0 and every scoring key present, yet not measured
		// (never harvested, so never bounds-checked against the trial's declared bugs).
		"grader failed with all nine keys": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Summary = done("", reward.EvaluationFailed())
		}, want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.GraderFailed, Message: "m"}},
		"reward missing": {st: verifier, obs: func(s *Stage) { s.JobComplete = true; s.Summary = done(reasons.RewardMissing, nil) },
			want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardMissing, Message: "m"}},
		"no rewards and no reason": {st: verifier, obs: func(s *Stage) { s.JobComplete = true; s.Summary = &podcontract.Summary{Done: true} },
			want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardMissing, Message: "the verifier wrote no reward"}},
		"verifier deadline": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "DeadlineExceeded"
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.VerifierTimeout, Message: "the verifier ran past its timeout"}},
		// The stage's own deadline is never the agent's: the built-in graders decide hangs.
		"verifier timeout with a partial result is not measured": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Summary = done(reasons.VerifierTimeout, map[string]float64{reward.KeyReward: 0.5})
		}, want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.VerifierTimeout, Message: "m"}},
		"grader refused the patch: scored": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Summary = done(reasons.PatchRefused, reward.Zero(2))
		}, want: Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchRefused, Message: "m"}},
		"tests hung on the patch: scored": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Summary = done(reasons.TestsHungOnPatch, reward.Zero(2))
		}, want: Verdict{Done: true, Class: ClassScored, Reason: reasons.TestsHungOnPatch, Message: "m"}},
		"tests hung on the patch without a result": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Summary = done(reasons.TestsHungOnPatch, nil)
		}, want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardMissing, Message: "the grader reported TestsHungOnPatch but wrote no reward: m"}},
		"verifier out of its own memory: scored 0": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Started: true, Terminal: true, OOMKilled: true, MemoryLimited: true}
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: oom},
		"verifier out of its own memory, no summary": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Started: true, Terminal: true, OOMKilled: true, MemoryLimited: true}
		}, want: oom},
		"grader killed by the container's memory limit": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Pod = &Pod{Started: true, Terminal: true, OOMKilled: true, MemoryLimited: true}
			s.Summary = done(reasons.GraderFailed, map[string]float64{reward.KeyReward: 0, reward.KeyGraderFailed: 1})
		}, want: oom},
		"OOM kill with a measured result: the grader's result stands": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Pod = &Pod{Started: true, Terminal: true, OOMKilled: true, MemoryLimited: true}
			s.Summary = done("", map[string]float64{reward.KeyReward: 0.5})
		}, want: Verdict{Done: true}},
		"OOM kill without a memory limit is the node's": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Started: true, Terminal: true, OOMKilled: true}
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted,
			Message: "the verifier container was OOM-killed without a memory limit of its own: the node ran out of memory; set the task's memory_mb so that the verifier's memory is its own"}},
		"verifier past its own ephemeral-storage limit: scored 0": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Reason: "Evicted", Message: `Container verifier exceeded its local ephemeral storage limit "1Gi". `, Terminal: true, Started: true}
		}, want: Verdict{Done: true, Class: ClassScored, Reason: reasons.VerifierOutOfStorage, ZeroScore: true,
			Message: `the verifier wrote past its own storage limit running the agent's code: scored 0 (Container verifier exceeded its local ephemeral storage limit "1Gi".); raise the task's storage_mb if the unpatched tree needs more`}},
		"verifier past the Pod's total storage limit: scored 0": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Reason: "Evicted", Message: "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi. ", Terminal: true, Started: true}
		}, want: Verdict{Done: true, Class: ClassScored, Reason: reasons.VerifierOutOfStorage, ZeroScore: true,
			Message: "the verifier wrote past its own storage limit running the agent's code: scored 0 (Pod ephemeral local storage usage exceeds the total limit of containers 2Gi.); raise the task's storage_mb if the unpatched tree needs more"}},
		"verifier past an emptyDir's size limit: scored 0": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Reason: "Evicted", Message: `Usage of EmptyDir volume "logs" exceeds the limit "64Mi". `, Terminal: true, Started: true}
		}, want: Verdict{Done: true, Class: ClassScored, Reason: reasons.VerifierOutOfStorage, ZeroScore: true,
			Message: `the verifier wrote past its own storage limit running the agent's code: scored 0 (Usage of EmptyDir volume "logs" exceeds the limit "64Mi".); raise the task's storage_mb if the unpatched tree needs more`}},
		"verifier evicted because the node ran short of disk is the node's": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Reason: "Evicted", Message: "The node was low on resource: ephemeral-storage. ", Terminal: true, Started: true}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted, Message: "The node was low on resource: ephemeral-storage. "}},
		"agent past its own storage limit stays an eviction": {st: agent, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Reason: "Evicted", Message: `Container agent exceeded its local ephemeral storage limit "1Gi". `, Terminal: true, Started: true}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted, Message: `Container agent exceeded its local ephemeral storage limit "1Gi". `}},
		"storage eviction with a measured result: the grader's result stands": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Pod = &Pod{Reason: "Evicted", Message: `Container verifier exceeded its local ephemeral storage limit "1Gi". `, Terminal: true, Started: true}
			s.Summary = done("", map[string]float64{reward.KeyReward: 0.5})
		}, want: Verdict{Done: true}},
		"OOM kill in a Pod evicted for node pressure is the node's": {st: verifier, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason = true, "PodFailurePolicy"
			s.Pod = &Pod{Reason: "Evicted", Message: "node low on memory", Terminal: true, OOMKilled: true, MemoryLimited: true}
		}, want: Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted, Message: "node low on memory"}},
		"OOM kill in a preempted Pod is not the agent's": {st: verifier, obs: func(s *Stage) {
			s.JobComplete = true
			s.Pod = &Pod{Terminal: true, Disruption: "PreemptionByScheduler", OOMKilled: true, MemoryLimited: true}
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardMissing, Message: "the verifier wrote no reward"}},
		"agent out of memory is the agent's failure, still verified": {st: agent, obs: func(s *Stage) {
			s.JobFailed, s.JobFailureReason, s.JobFailureMessage = true, "PodFailurePolicy", "container agent exited 137"
			s.Pod = &Pod{Started: true, Terminal: true, OOMKilled: true, MemoryLimited: true}
			s.Summary = &podcontract.Summary{Reason: reasons.CollectorInterrupted}
		}, want: Verdict{Done: true, Class: ClassAgent, Reason: reasons.AgentFailed, Message: "container agent exited 137"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := stage(tc.st)
			tc.obs(&s)
			if diff := cmp.Diff(tc.want, Classify(s)); diff != "" {
				t.Errorf("Classify (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNext(t *testing.T) {
	policy := evalv1.RetryPolicy{InfrastructureRetries: 2, BackoffSeconds: 10}
	infra := Verdict{Done: true, Class: ClassInfrastructure, Reason: reasons.PodEvicted, Message: "evicted"}
	grader := Verdict{Done: true, Class: ClassVerifier, Reason: reasons.GraderFailed, Message: "crash"}
	cases := map[string]struct {
		v      Verdict
		used   Used
		policy evalv1.RetryPolicy
		want   Decision
	}{
		"success proceeds": {v: Verdict{Done: true}, policy: policy, want: Decision{Step: StepProceed}},
		"a scored cause proceeds": {v: Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchTooLarge, Message: "big"}, policy: policy,
			want: Decision{Step: StepProceed, Reason: reasons.PatchTooLarge, Message: "big"}},
		"agent failure proceeds":                {v: Verdict{Done: true, Class: ClassAgent, Reason: "AgentTimeout", Message: "t"}, policy: policy, want: Decision{Step: StepProceed, Reason: "AgentTimeout", Message: "t"}},
		"first infra retry":                     {v: infra, policy: policy, want: Decision{Step: StepRetry, Backoff: 10 * time.Second, Reason: reasons.PodEvicted, Message: "evicted (retry 1 of 2)"}},
		"second infra retry":                    {v: infra, used: Used{Infrastructure: 1}, policy: policy, want: Decision{Step: StepRetry, Backoff: 20 * time.Second, Reason: reasons.PodEvicted, Message: "evicted (retry 2 of 2)"}},
		"infra retries exhausted":               {v: infra, used: Used{Infrastructure: 2}, policy: policy, want: Decision{Step: StepFinish, Phase: evalv1.TrialError, Reason: reasons.PodEvicted, Message: "evicted (infrastructure retries exhausted: 2)"}},
		"grader failure not retried by default": {v: grader, policy: policy, want: Decision{Step: StepFinish, Phase: evalv1.TrialFailed, Reason: reasons.GraderFailed, Message: "crash"}},
		"grader failure retried when asked": {v: grader, policy: evalv1.RetryPolicy{InfrastructureRetries: 1, RetryVerifierFailures: true, BackoffSeconds: 5},
			want: Decision{Step: StepRetry, Backoff: 5 * time.Second, Reason: reasons.GraderFailed, Message: "crash (retry 1 of 1)"}},
		"result out of bounds is not retried, even when asked": {v: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.RewardOutOfBounds, Message: "n"},
			policy: evalv1.RetryPolicy{InfrastructureRetries: 1, RetryVerifierFailures: true, BackoffSeconds: 5},
			want:   Decision{Step: StepFinish, Phase: evalv1.TrialFailed, Reason: reasons.RewardOutOfBounds, Message: "n"}},
		"unknown bug ids in the verifier image are not retried, even when asked": {v: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.UnknownBugs, Message: "n"},
			policy: evalv1.RetryPolicy{InfrastructureRetries: 1, RetryVerifierFailures: true, BackoffSeconds: 5},
			want:   Decision{Step: StepFinish, Phase: evalv1.TrialFailed, Reason: reasons.UnknownBugs, Message: "n"}},
		"a bundle that cannot take the subset is not retried, even when asked": {v: Verdict{Done: true, Class: ClassVerifier, Reason: reasons.BugSubsetUnsupported, Message: "n"},
			policy: evalv1.RetryPolicy{InfrastructureRetries: 1, RetryVerifierFailures: true, BackoffSeconds: 5},
			want:   Decision{Step: StepFinish, Phase: evalv1.TrialFailed, Reason: reasons.BugSubsetUnsupported, Message: "n"}},
		"input error ends the trial": {v: Verdict{Done: true, Class: ClassInput, Reason: reasons.InvalidTask, Message: "bad"}, policy: policy,
			want: Decision{Step: StepFinish, Phase: evalv1.TrialError, Reason: reasons.InvalidTask, Message: "bad"}},
		"backoff is capped": {v: infra, used: Used{Infrastructure: 15}, policy: evalv1.RetryPolicy{InfrastructureRetries: 20, BackoffSeconds: 3600},
			want: Decision{Step: StepRetry, Backoff: time.Hour, Reason: reasons.PodEvicted, Message: "evicted (retry 16 of 20)"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Next(tc.v, tc.used, tc.policy)); diff != "" {
				t.Errorf("Next (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRerunByDefault keeps `sweep retry`'s default in step with the retry policy: every
// default reason is a reason, and the policy retries it (infrastructure, or a verifier
// failure that is not deterministic).
func TestRerunByDefault(t *testing.T) {
	policy := evalv1.RetryPolicy{InfrastructureRetries: 1, RetryVerifierFailures: true}
	for _, r := range RerunByDefault {
		if !reasons.Known(r) {
			t.Errorf("%q is not a reason of api/v1alpha1/reasons", r)
		}
		if d := Next(Verdict{Done: true, Class: ClassVerifier, Reason: r}, Used{}, policy); d.Step != StepRetry {
			t.Errorf("%q: the retry policy does not retry it, so a rerun ends the same way", r)
		}
	}
	for _, r := range []string{reasons.RewardOutOfBounds, reasons.UnknownBugs, reasons.BugSubsetUnsupported, reasons.InvalidTask} {
		if slices.Contains(RerunByDefault, r) {
			t.Errorf("%q ends the same way again and is rerun only when named", r)
		}
	}
}
