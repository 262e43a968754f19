package campaign

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

func TestFindInfrastructureStall(t *testing.T) {
	at := func(minute int) *metav1.Time {
		return &metav1.Time{Time: time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC)}
	}
	ended := func(name string, phase evalv1.TrialPhase, reason string, minute int) *evalv1.TaskTrial {
		return &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: evalv1.TaskTrialStatus{Phase: phase, Reason: reason, CompletionTime: at(minute)}}
	}
	running := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: "run"}, Status: evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning}}
	evicted := func(name string, minute int) *evalv1.TaskTrial {
		return ended(name, evalv1.TrialError, reasons.PodEvicted, minute)
	}
	cases := map[string]struct {
		trials []*evalv1.TaskTrial
		want   *InfrastructureStall
	}{
		"none":             {},
		"fewer than three": {trials: []*evalv1.TaskTrial{evicted("a", 1), evicted("b", 2), running}},
		"the last three failed on infrastructure, after a graded one": {
			trials: []*evalv1.TaskTrial{evicted("c", 4), ended("ok", evalv1.TrialSucceeded, reasons.Graded, 1), running,
				ended("b", evalv1.TrialError, reasons.ImagePullFailed, 3), evicted("a", 2)},
			want: &InfrastructureStall{Trials: []string{"a", "b", "c"}, Reasons: []string{reasons.PodEvicted, reasons.ImagePullFailed, reasons.PodEvicted}}},
		"a graded trial among the last three": {
			trials: []*evalv1.TaskTrial{evicted("a", 1), evicted("b", 2), ended("ok", evalv1.TrialSucceeded, reasons.Graded, 3), evicted("c", 4)}},
		"a verifier failure is not the cluster's": {
			trials: []*evalv1.TaskTrial{evicted("a", 1), ended("f", evalv1.TrialFailed, reasons.VerifierTimeout, 2), evicted("c", 3)}},
		"an invalid task is not the cluster's": {
			trials: []*evalv1.TaskTrial{evicted("a", 1), ended("i", evalv1.TrialError, reasons.InvalidTask, 2), evicted("c", 3)}},
		"ties ordered by name: the graded one is last": {
			trials: []*evalv1.TaskTrial{evicted("c", 5), evicted("b", 5), evicted("a", 5), ended("d-ok", evalv1.TrialSucceeded, reasons.Graded, 5)}},
		"ties ordered by name: the graded one is first": {
			trials: []*evalv1.TaskTrial{evicted("c", 5), evicted("b", 5), evicted("a", 5), ended("0-ok", evalv1.TrialSucceeded, reasons.Graded, 5)},
			want:   &InfrastructureStall{Trials: []string{"a", "b", "c"}, Reasons: []string{reasons.PodEvicted, reasons.PodEvicted, reasons.PodEvicted}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FindInfrastructureStall(tc.trials)); diff != "" {
				t.Errorf("FindInfrastructureStall (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInfrastructureStallMessage(t *testing.T) {
	s := &InfrastructureStall{Trials: []string{"a", "b", "c"}, Reasons: []string{reasons.PodEvicted, reasons.ImagePullFailed, reasons.NodeLost}}
	want := "the last 3 finished trials all ended Error on infrastructure, their retries spent: a (PodEvicted), b (ImagePullFailed), c (NodeLost); " +
		"new trials still start: read the trials' messages (`kubectl describe tasktrial`) and fix the cluster (images, nodes, quotas)"
	if diff := cmp.Diff(want, s.Message()); diff != "" {
		t.Errorf("Message (-want +got):\n%s", diff)
	}
}
