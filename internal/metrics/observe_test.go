package metrics

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func at(sec int) *metav1.Time {
	t := metav1.NewTime(t0.Add(time.Duration(sec) * time.Second))
	return &t
}

func f(v float64) *float64 { return &v }

func TestObserveTrial(t *testing.T) {
	started := &evalv1.StageStatus{Run: 1, StartTime: at(5), ContainerStartTime: at(30)}
	ended := &evalv1.StageStatus{Run: 1, StartTime: at(5), ContainerStartTime: at(30), JobFinishTime: at(600), CompletionTime: at(603)}
	verifying := &evalv1.StageStatus{Run: 1, StartTime: at(603)}
	verified := &evalv1.StageStatus{Run: 1, StartTime: at(603), JobFinishTime: at(700), CompletionTime: at(701)}
	cases := map[string]struct {
		before, after evalv1.TaskTrialStatus
		replaced      *evalv1.StageStatus
		want          Observations
	}{
		"nothing changed": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
		},
		"the agent's container started: queue wait from the trial's creation": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5)}},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
			want:   Observations{QueueWait: f(30)},
		},
		"a started container seen first at its end: queue wait, duration and harvest at once": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5)}},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: ended},
			want: Observations{QueueWait: f(30), Stages: []StageSeconds{{podcontract.StageAgent, 598}},
				Harvests: []StageSeconds{{podcontract.StageAgent, 3}}},
		},
		"a retried agent run's start is no queue wait": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 2, StartTime: at(100)}},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 2, StartTime: at(100), ContainerStartTime: at(120)}},
		},
		"the agent stage ended": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Agent: ended, Verifier: verifying},
			want:   Observations{Stages: []StageSeconds{{podcontract.StageAgent, 598}}, Harvests: []StageSeconds{{podcontract.StageAgent, 3}}},
		},
		"a stage that ended on its start timeout has no harvest": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5)}},
			after: evalv1.TaskTrialStatus{Phase: evalv1.TrialError, Reason: reasons.EnvironmentStartTimeout, CompletionTime: at(605),
				Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5), CompletionTime: at(605)}},
			want: Observations{Stages: []StageSeconds{{podcontract.StageAgent, 600}}, Trial: &TrialEnd{evalv1.TrialError, 605}},
		},
		"graded: the verifier's end and the trial's": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Agent: ended, Verifier: verifying},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Reason: reasons.Graded, CompletionTime: at(701), Agent: ended, Verifier: verified},
			want: Observations{Stages: []StageSeconds{{podcontract.StageVerifier, 98}}, Harvests: []StageSeconds{{podcontract.StageVerifier, 1}},
				Trial: &TrialEnd{evalv1.TrialSucceeded, 701}},
		},
		"a finished trial written again observes nothing": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, CompletionTime: at(701), Agent: ended, Verifier: verified},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, CompletionTime: at(701), Agent: ended, Verifier: verified, ObservedGeneration: 2},
		},
		"an infrastructure retry, by its reason": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
			after: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Reason: reasons.PodEvicted, InfrastructureRetries: 1,
				Agent: &evalv1.StageStatus{Run: 2}},
			want: Observations{Retries: []Retry{{RetryInfrastructure, reasons.PodEvicted, 1}}},
		},
		"a first agent run retried after its container started, its start not written: queue wait with the retry": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5)}},
			after: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Reason: reasons.PodEvicted, InfrastructureRetries: 1,
				Agent: &evalv1.StageStatus{Run: 2}},
			replaced: started,
			want:     Observations{QueueWait: f(30), Retries: []Retry{{RetryInfrastructure, reasons.PodEvicted, 1}}},
		},
		"a first agent run retried after its start was written: no second queue wait": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
			after: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Reason: reasons.PodEvicted, InfrastructureRetries: 1,
				Agent: &evalv1.StageStatus{Run: 2}},
			replaced: started,
			want:     Observations{Retries: []Retry{{RetryInfrastructure, reasons.PodEvicted, 1}}},
		},
		"a verifier retry": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Agent: ended, Verifier: verifying, VerifierRetries: 1},
			after: evalv1.TaskTrialStatus{Phase: evalv1.TrialVerifying, Reason: reasons.GraderFailed, VerifierRetries: 2,
				Agent: ended, Verifier: &evalv1.StageStatus{Run: 3}},
			want: Observations{Retries: []Retry{{RetryVerifier, reasons.GraderFailed, 1}}},
		},
		"a reason that is not one of the API's is Other": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: started},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Reason: "made-up by a summary", InfrastructureRetries: 1, Agent: &evalv1.StageStatus{Run: 2}},
			want:   Observations{Retries: []Retry{{RetryInfrastructure, OtherReason, 1}}},
		},
		"timestamps from skewed clocks never give a negative duration": {
			before: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5)}},
			after:  evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, Agent: &evalv1.StageStatus{Run: 1, StartTime: at(5), ContainerStartTime: at(-2)}},
			want:   Observations{QueueWait: f(0)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			trial := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: *at(0)}, Status: tc.after}
			if diff := cmp.Diff(tc.want, ObserveTrial(&tc.before, trial, tc.replaced)); diff != "" {
				t.Errorf("observations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCountTrials(t *testing.T) {
	trial := func(ns string, phase evalv1.TrialPhase, reason string) *evalv1.TaskTrial {
		return &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Namespace: ns}, Status: evalv1.TaskTrialStatus{Phase: phase, Reason: reason}}
	}
	got := CountTrials([]*evalv1.TaskTrial{
		trial("a", evalv1.TrialSucceeded, reasons.Graded), trial("a", evalv1.TrialSucceeded, reasons.Graded),
		trial("a", evalv1.TrialSucceeded, reasons.AgentTimeout), trial("b", evalv1.TrialSucceeded, reasons.Graded),
		trial("a", evalv1.TrialError, "not a reason"), trial("a", evalv1.TrialError, "another"),
		trial("a", "", ""),
		{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Labels: map[string]string{evalv1.LabelSupersededBy: "t-r1"}},
			Status: evalv1.TaskTrialStatus{Phase: evalv1.TrialError, Reason: reasons.PodEvicted}},
	})
	want := map[TrialKey]int{
		{"a", evalv1.TrialSucceeded, reasons.Graded}: 2, {"a", evalv1.TrialSucceeded, reasons.AgentTimeout}: 1,
		{"b", evalv1.TrialSucceeded, reasons.Graded}: 1, {"a", evalv1.TrialError, OtherReason}: 2, {"a", "", ""}: 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func TestSweepRunGauges(t *testing.T) {
	cases := map[string]struct {
		status evalv1.SweepRunStatus
		want   SweepRunValues
	}{
		"new: nothing but the zero bug total": {},
		"tasks selected, none graded: progress, no score": {
			status: evalv1.SweepRunStatus{Trials: evalv1.TrialCounts{Total: 4, Created: 2, Running: 2}},
			want:   SweepRunValues{Progress: f(0)},
		},
		"half finished, graded": {
			status: evalv1.SweepRunStatus{Trials: evalv1.TrialCounts{Total: 4, Created: 4, Succeeded: 1, Failed: 0, Error: 1, Running: 2},
				BugsTotal: 8, BugsResolved: "3.5000", Score: "0.4375"},
			want: SweepRunValues{Score: f(0.4375), BugsResolved: f(3.5), BugsTotal: 8, Progress: f(0.5)},
		},
		"a score that does not parse has no series": {
			status: evalv1.SweepRunStatus{Trials: evalv1.TrialCounts{Total: 1, Created: 1, Succeeded: 1}, BugsTotal: 2, BugsResolved: "x", Score: "NaN?"},
			want:   SweepRunValues{BugsTotal: 2, Progress: f(1)},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, SweepRunGauges(&tc.status)); diff != "" {
				t.Errorf("gauges (-want +got):\n%s", diff)
			}
		})
	}
}
