package progress

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func trial(name string, phase evalv1.TrialPhase, reason string, done time.Time, rewards map[string]string) *evalv1.TaskTrial {
	tr := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: evalv1.TaskTrialSpec{Task: name[:1]}}
	tr.Status.Phase, tr.Status.Reason, tr.Status.Rewards = phase, reason, rewards
	if !done.IsZero() {
		tr.Status.CompletionTime = &metav1.Time{Time: done}
	}
	return tr
}

func TestTake(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r"},
		Spec:   evalv1.SweepRunSpec{Tasks: evalv1.TaskSelection{Names: []string{"a", "b", "c", "d", "e"}}, Attempts: 2},
		Status: evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, StartTime: &metav1.Time{Time: start}}}
	trials := []*evalv1.TaskTrial{
		trial("a1", evalv1.TrialSucceeded, "", start.Add(time.Minute), map[string]string{"reward": "0.5", "n_subtasks": "2", "n_resolved": "1", "visible_ok": "1"}),
		trial("b1", evalv1.TrialError, "ImagePullFailed", start.Add(2*time.Minute), nil),
		trial("c1", evalv1.TrialFailed, "GraderFailed", start.Add(3*time.Minute), map[string]string{"grader_failed": "1"}),
		trial("d1", evalv1.TrialAgentRunning, "", time.Time{}, nil),
		trial("e1", evalv1.TrialVerifying, "", time.Time{}, nil),
		trial("e2", evalv1.TrialPending, "", time.Time{}, nil),
	}
	s := Take(run, trials, start.Add(30*time.Minute))
	if got, want := s.Line(), "[######..............] 3/10 done, 2 running, 2 failed, score 0.5000 (1.00/2 bugs), ETA 1h10m0s"; got != want {
		t.Errorf("Line:\n got %s\nwant %s", got, want)
	}
	var got []string
	for _, f := range s.Failures {
		got = append(got, f.String())
	}
	want := []string{"failed: c1 (task c): GraderFailed", "failed: b1 (task b): ImagePullFailed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures, latest first (-want +got):\n%s", diff)
	}
	if s.Finished() {
		t.Error("3 of 10 done: finished")
	}
	run.Status.Phase = evalv1.SweepRunSucceeded
	if s := Take(run, trials, start); !s.Finished() || s.Line() != "[######..............] 3/10 done, 2 running, 2 failed, score 0.5000 (1.00/2 bugs)" {
		t.Errorf("a finished campaign: finished %v, line %s (no ETA)", s.Finished(), s.Line())
	}
}

// TestTakeQueued: running trials whose stage's Job waits for its Kueue queue (Admitted
// false) are shown among the running ones; an admitted one and a finished one are not.
func TestTakeQueued(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: evalv1.SweepRunSpec{Tasks: evalv1.TaskSelection{Names: []string{"a", "b", "c", "d"}}}}
	admitted := func(tr *evalv1.TaskTrial, status metav1.ConditionStatus) *evalv1.TaskTrial {
		tr.Status.Conditions = []metav1.Condition{{Type: evalv1.TrialAdmitted, Status: status}}
		return tr
	}
	trials := []*evalv1.TaskTrial{
		admitted(trial("a1", evalv1.TrialAgentRunning, "", time.Time{}, nil), metav1.ConditionFalse),
		admitted(trial("b1", evalv1.TrialVerifying, "", time.Time{}, nil), metav1.ConditionFalse),
		admitted(trial("c1", evalv1.TrialAgentRunning, "", time.Time{}, nil), metav1.ConditionTrue),
		admitted(trial("d1", evalv1.TrialFailed, "GraderFailed", time.Now(), nil), metav1.ConditionFalse),
	}
	s := Take(run, trials, time.Now())
	if got, want := s.Line(), "[#####...............] 1/4 done, 3 running (2 queued), 1 failed, score 0.0000 (0.00/0 bugs)"; got[:len(want)] != want {
		t.Errorf("Line:\n got %s\nwant %s", got, want)
	}
}

func TestTotal(t *testing.T) {
	run := &evalv1.SweepRun{Spec: evalv1.SweepRunSpec{Tasks: evalv1.TaskSelection{Names: []string{"a"}, Selector: &metav1.LabelSelector{}}}}
	if Total(run) != 0 {
		t.Error("a selector's tasks are unknown until the controller counts them")
	}
	if s := Take(run, nil, time.Now()); s.Line() != "0 done, 0 running, 0 failed, score 0.0000 (0.00/0 bugs)" || s.Finished() {
		t.Errorf("unknown total: %q finished=%v", s.Line(), s.Finished())
	}
	run.Status.Trials.Total = 7
	if Total(run) != 7 {
		t.Error("the controller's total wins")
	}
}
