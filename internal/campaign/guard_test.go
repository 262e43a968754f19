package campaign

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

func TestCheckGuard(t *testing.T) {
	at := func(minute int) *metav1.Time {
		return &metav1.Time{Time: time.Date(2026, 1, 1, 0, minute, 0, 0, time.UTC)}
	}
	ended := func(name string, phase evalv1.TrialPhase, reason string, minute int) *evalv1.TaskTrial {
		return &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: evalv1.TaskTrialStatus{Phase: phase, Reason: reason, CompletionTime: at(minute)}}
	}
	pull := func(name string, minute int) *evalv1.TaskTrial {
		return ended(name, evalv1.TrialError, reasons.ImagePullFailed, minute)
	}
	evicted := func(name string, minute int) *evalv1.TaskTrial {
		return ended(name, evalv1.TrialError, reasons.PodEvicted, minute)
	}
	graded := ended("ok", evalv1.TrialSucceeded, reasons.Graded, 1)
	tripped := func(common string, count int, latest string) *GuardTrip {
		return &GuardTrip{Reason: common, Message: "suspended by spec.guard: the last 3 finished trials all ended Error on infrastructure (" +
			common + ": " + string(rune('0'+count)) + " of 3; the latest " + latest + "): no new trials start, running ones finish; " +
			"fix the cause (`kubectl describe tasktrial " + latest + " -n team-a`) and run `sweep resume nightly -n team-a`"}
	}
	cases := map[string]struct {
		n       int32
		trials  []*evalv1.TaskTrial
		planned int
		guard   *evalv1.GuardStatus
		want    *GuardTrip
	}{
		"three image pulls in a row": {n: 3, trials: []*evalv1.TaskTrial{graded, pull("a", 2), pull("b", 3), pull("c", 4)}, planned: 10,
			want: tripped(reasons.ImagePullFailed, 3, "c")},
		"the most common reason is named": {n: 3, trials: []*evalv1.TaskTrial{evicted("a", 2), pull("b", 3), pull("c", 4)}, planned: 10,
			want: tripped(reasons.ImagePullFailed, 2, "c")},
		"a tie goes to the first name": {n: 3, trials: []*evalv1.TaskTrial{evicted("a", 2), pull("b", 3), ended("c", evalv1.TrialError, reasons.NodeLost, 4)}, planned: 10,
			want: tripped(reasons.ImagePullFailed, 1, "c")},
		"off":                   {n: 0, trials: []*evalv1.TaskTrial{pull("a", 2), pull("b", 3), pull("c", 4)}, planned: 10},
		"fewer failures than n": {n: 3, trials: []*evalv1.TaskTrial{graded, pull("b", 3), pull("c", 4)}, planned: 10},
		"a graded trial among the last n": {n: 3,
			trials: []*evalv1.TaskTrial{pull("a", 2), pull("b", 3), ended("ok", evalv1.TrialSucceeded, reasons.Graded, 4), pull("c", 5)}, planned: 10},
		"nothing left to run: the campaign completes instead": {n: 3, trials: []*evalv1.TaskTrial{pull("a", 2), pull("b", 3), pull("c", 4)}, planned: 3},
		"already holding": {n: 3, trials: []*evalv1.TaskTrial{pull("a", 2), pull("b", 3), pull("c", 4)}, planned: 10,
			guard: &evalv1.GuardStatus{SuspendedTime: at(5)}},
		"after a resume only later failures count": {n: 3,
			trials: []*evalv1.TaskTrial{pull("a", 2), pull("b", 3), pull("c", 4), pull("d", 6), pull("e", 7)}, planned: 10,
			guard: &evalv1.GuardStatus{ResumeToken: "t", ResumedTime: at(5)}},
		"after a resume, n new failures trip it again": {n: 3,
			trials: []*evalv1.TaskTrial{pull("a", 2), pull("d", 6), pull("e", 7), pull("f", 8)}, planned: 10,
			guard: &evalv1.GuardStatus{ResumeToken: "t", ResumedTime: at(5)}, want: tripped(reasons.ImagePullFailed, 3, "f")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team-a"}}
			run.Spec.Guard = &evalv1.GuardPolicy{InfrastructureFailures: &tc.n}
			run.Status.Guard = tc.guard
			run.Status.Trials.Created = int32(len(tc.trials))
			for _, tr := range tc.trials {
				if tr.Status.Phase == evalv1.TrialSucceeded {
					run.Status.Trials.Succeeded++
				} else {
					run.Status.Trials.Error++
				}
			}
			if diff := cmp.Diff(tc.want, CheckGuard(run, tc.trials, tc.planned)); diff != "" {
				t.Errorf("CheckGuard (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResume(t *testing.T) {
	now := time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{evalv1.AnnotationResume: " r1 "}}}
	Trip(run, GuardTrip{Reason: reasons.ImagePullFailed, Message: "m"}, now.Add(-time.Hour))
	if !run.Status.Guard.Holds() {
		t.Fatal("Trip: the guard does not hold")
	}
	token, ok := PendingResume(run)
	if !ok || token != "r1" {
		t.Fatalf("PendingResume = %q, %v; want r1, true", token, ok)
	}
	Resume(run, token, now)
	want := &evalv1.GuardStatus{Reason: reasons.ImagePullFailed, Message: "m", ResumeToken: "r1", ResumedTime: &metav1.Time{Time: now}}
	if diff := cmp.Diff(want, run.Status.Guard); diff != "" {
		t.Errorf("after Resume (-want +got):\n%s", diff)
	}
	if _, ok := PendingResume(run); ok {
		t.Error("a handled token is pending again")
	}
}
