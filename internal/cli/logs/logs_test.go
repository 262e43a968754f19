package logs_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/cli/logs"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestRecordKey(t *testing.T) {
	got := []string{logs.RecordKey(podcontract.StageAgent), logs.RecordKey(podcontract.StageVerifier)}
	if diff := cmp.Diff([]string{"agent/agent.log", "verifier/test-stdout.txt"}, got); diff != "" {
		t.Errorf("record keys (-want +got):\n%s", diff)
	}
}

// collectorDone is the collector's status once it reported.
func collectorDone(t *testing.T, sum podcontract.Summary) corev1.ContainerStatus {
	t.Helper()
	msg, err := podcontract.EncodeSummary(sum)
	if err != nil {
		t.Fatal(err)
	}
	return corev1.ContainerStatus{Name: podbuild.CollectorContainer, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Message: string(msg)}}}
}

func TestPlanPod(t *testing.T) {
	running := corev1.ContainerStatus{Name: "agent", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	pulling := corev1.ContainerStatus{Name: "agent", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}
	sum := podcontract.Summary{Stage: podcontract.StageAgent, StreamID: "s1", Done: true, Streamed: true}
	for _, tc := range []struct {
		name   string
		status corev1.PodStatus
		want   logs.PodPlan
	}{
		{"scheduling", corev1.PodStatus{Phase: corev1.PodPending}, logs.PodPlan{Source: logs.SourceNone, Waiting: "phase Pending"}},
		{"pulling", corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{pulling}}, logs.PodPlan{Source: logs.SourceNone, Waiting: "agent: ContainerCreating"}},
		{"running", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{running}}, logs.PodPlan{Source: logs.SourceMain}},
		{"reported", corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{running},
			InitContainerStatuses: []corev1.ContainerStatus{collectorDone(t, sum)}}, logs.PodPlan{Source: logs.SourceCollector, Summary: &sum}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := logs.PlanPod(&corev1.Pod{Status: tc.status}, podcontract.StageAgent)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoLog(t *testing.T) {
	now := metav1.Now()
	trial := func(phase evalv1.TrialPhase, reason string, agent, verifier bool) *evalv1.TaskTrial {
		tr := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: "run1-demo-1"}, Spec: evalv1.TaskTrialSpec{SweepRun: "run1"}}
		tr.Status.Phase, tr.Status.Reason = phase, reason
		if agent {
			tr.Status.Agent = &evalv1.StageStatus{StartTime: &now}
		}
		if verifier {
			tr.Status.Verifier = &evalv1.StageStatus{StartTime: &now}
		}
		return tr
	}
	noStore := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "run1"}}
	withStore := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "run1"}, Status: evalv1.SweepRunStatus{Record: &evalv1.JobRecordStatus{Store: "s3://b", Folder: "ns/run1-0123abcd/"}}}
	for _, tc := range []struct {
		name   string
		trial  *evalv1.TaskTrial
		run    *evalv1.SweepRun
		stage  podcontract.Stage
		hadPod bool
		want   []string
	}{
		{"pod not started", trial(evalv1.TrialAgentRunning, "", true, false), withStore, podcontract.StageAgent, true,
			[]string{"tasktrial run1-demo-1: no agent log yet", "its pod has not started the agent", "-f"}},
		{"stage not started", trial(evalv1.TrialPending, "", false, false), withStore, podcontract.StageAgent, false,
			[]string{"no agent log yet", "the agent stage has not started (the trial is Pending)"}},
		{"verifier not started", trial(evalv1.TrialAgentRunning, "", true, false), withStore, podcontract.StageVerifier, false,
			[]string{"no verifier log yet", "the verifier stage has not started (the trial is AgentRunning)"}},
		{"verifier never ran", trial(evalv1.TrialFailed, reasons.AgentFailed, true, false), withStore, podcontract.StageVerifier, false,
			[]string{"no verifier log", "the verifier stage never ran (the trial ended Failed, AgentFailed)", "sweep logs run1-demo-1"}},
		{"between stages", trial(evalv1.TrialAgentRunning, "", true, false), withStore, podcontract.StageAgent, false,
			[]string{"the agent stage's pod is gone and the trial is not recorded yet", "try again"}},
		{"no store", trial(evalv1.TrialSucceeded, "", true, true), noStore, podcontract.StageAgent, false,
			[]string{"no artifact store keeps this campaign's records", "--artifact-store", "spec.artifactStore"}},
		{"not written yet", trial(evalv1.TrialSucceeded, "", true, true), withStore, podcontract.StageVerifier, false,
			[]string{"its record is not written yet (status.record is empty)", "retrying while the store is unreachable", "kubectl describe tasktrial run1-demo-1"}},
		{"run gone", trial(evalv1.TrialSucceeded, "", true, true), nil, podcontract.StageAgent, false,
			[]string{"its record is not written yet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sweeptest.ErrorContains(t, logs.NoLog(tc.trial, tc.run, tc.stage, tc.hadPod), tc.want...)
		})
	}
}
