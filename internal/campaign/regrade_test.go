package campaign

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// withPatch is t with stored artifacts, as an agent stage that finished leaves them.
func withPatch(t *evalv1.TaskTrial) *evalv1.TaskTrial {
	t.Status.Patch = &evalv1.PatchStatus{SecretName: t.Name + "-artifacts", SHA256: "ab", Bytes: 2}
	return t
}

// regradedBy marks t superseded by a regrade, as the controller does.
func regradedBy(t *evalv1.TaskTrial) *evalv1.TaskTrial {
	t.Labels[evalv1.LabelSupersededBy] = NextRunName(t)
	t.Labels[evalv1.LabelRegradedBy] = NextRunName(t)
	return t
}

func TestToRegrade(t *testing.T) {
	cases := map[string]struct {
		trials      []*evalv1.TaskTrial
		want        []string
		wantSkipped int
	}{
		"every final trial with artifacts, whatever its verdict": {trials: []*evalv1.TaskTrial{
			withPatch(run("a", 1, 0, evalv1.TrialSucceeded, reasons.Graded, false)),
			withPatch(run("a", 2, 0, evalv1.TrialFailed, reasons.GraderFailed, false)),
			withPatch(run("b", 1, 0, evalv1.TrialSucceeded, reasons.AgentTimeout, false))},
			want: []string{"c-a-1", "c-a-2", "c-b-1"}},
		"a trial whose agent never finished is skipped": {trials: []*evalv1.TaskTrial{
			withPatch(run("a", 1, 0, evalv1.TrialSucceeded, reasons.Graded, false)),
			run("a", 2, 0, evalv1.TrialError, reasons.ImagePullFailed, false),
			run("b", 1, 0, evalv1.TrialError, reasons.InvalidTask, false)},
			want: []string{"c-a-1"}, wantSkipped: 2},
		"a superseded trial is not regraded, its final rerun is": {trials: []*evalv1.TaskTrial{
			withPatch(run("a", 1, 0, evalv1.TrialFailed, reasons.GraderFailed, true)),
			withPatch(run("a", 1, 1, evalv1.TrialSucceeded, reasons.Graded, false))},
			want: []string{"c-a-1-r1"}},
		"an unfinished trial is skipped": {trials: []*evalv1.TaskTrial{
			withPatch(run("a", 1, 0, evalv1.TrialVerifying, "", false))},
			want: []string{}, wantSkipped: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, skipped := ToRegrade(tc.trials)
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("ToRegrade (-want +got):\n%s", diff)
			}
			if skipped != tc.wantSkipped {
				t.Errorf("skipped = %d, want %d", skipped, tc.wantSkipped)
			}
		})
	}
}

func TestDecideRegrade(t *testing.T) {
	done := &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	trials := []*evalv1.TaskTrial{withPatch(run("a", 1, 0, evalv1.TrialSucceeded, reasons.Graded, false)), run("b", 1, 0, evalv1.TrialError, reasons.PodEvicted, false)}
	cases := map[string]struct {
		annotation string
		handled    string
		completion *metav1.Time
		wantOK     bool
		want       []string
	}{
		"no annotation":                 {completion: done},
		"a new token of a finished run": {annotation: "t1", completion: done, wantOK: true, want: []string{"c-a-1"}},
		"a token already handled":       {annotation: "t1", handled: "t1", completion: done},
		"a new token after another":     {annotation: "t2", handled: "t1", completion: done, wantOK: true, want: []string{"c-a-1"}},
		"a running campaign waits":      {annotation: "t1"},
		"a blank token is none":         {annotation: "  ", completion: done},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "c", Annotations: map[string]string{evalv1.AnnotationRegrade: tc.annotation}}}
			r.Status.CompletionTime = tc.completion
			if tc.handled != "" {
				r.Status.Regrade = &evalv1.RetryStatus{Token: tc.handled}
			}
			token, got, ok := DecideRegrade(r, trials)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if ok && token != tc.annotation {
				t.Errorf("token = %q, want %q", token, tc.annotation)
			}
			if diff := cmp.Diff(tc.want, names(got), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("regrade (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanRegrades(t *testing.T) {
	task := Task{Name: "a"}
	plan := []Planned{{Name: "c-a-1", Task: task, Attempt: 1}, {Name: "c-a-2", Task: task, Attempt: 2}}
	regradeOfRegrade := func() []*evalv1.TaskTrial {
		r1 := withPatch(run("a", 1, 1, evalv1.TrialSucceeded, reasons.Graded, false))
		r1.Spec.RegradeOf = "c-a-1"
		return []*evalv1.TaskTrial{regradedBy(withPatch(run("a", 1, 0, evalv1.TrialSucceeded, reasons.Graded, false))), regradedBy(r1)}
	}
	cases := map[string]struct {
		trials []*evalv1.TaskTrial
		want   []Planned
	}{
		"a regraded attempt plans a rerun that regrades it": {trials: []*evalv1.TaskTrial{regradedBy(withPatch(run("a", 2, 0, evalv1.TrialSucceeded, reasons.Graded, false)))},
			want: []Planned{plan[0], {Name: "c-a-2-r1", Task: task, Attempt: 2, Rerun: 1, RegradeOf: "c-a-2"}}},
		"a regrade of a regrade grades the agent's trial's artifacts": {trials: regradeOfRegrade(),
			want: []Planned{{Name: "c-a-1-r2", Task: task, Attempt: 1, Rerun: 2, RegradeOf: "c-a-1"}, plan[1]}},
		"a retry after a regrade runs the agent again": {trials: func() []*evalv1.TaskTrial {
			r1 := run("a", 1, 1, evalv1.TrialError, reasons.ArtifactsLost, true)
			r1.Spec.RegradeOf = "c-a-1"
			return []*evalv1.TaskTrial{regradedBy(withPatch(run("a", 1, 0, evalv1.TrialSucceeded, reasons.Graded, false))), r1}
		}(), want: []Planned{{Name: "c-a-1-r2", Task: task, Attempt: 1, Rerun: 2}, plan[1]}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PlanReruns(plan, tc.trials)); diff != "" {
				t.Errorf("PlanReruns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlannedSpec(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	run.Spec.Agent.Oracle = &evalv1.OracleAgent{}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "task-a", Annotations: map[string]string{
		evalv1.AnnotationAgentImage: "agent:2", evalv1.AnnotationVerifierImage: "verifier:2"}}}
	p := Planned{Name: "c-a-1-r1", Task: Task{Name: "a", ConfigMap: cm}, Attempt: 1, Rerun: 1, RegradeOf: "c-a-1"}
	got := p.Spec(run)
	want := TrialSpec(run, p.Task, 1)
	want.RegradeOf = "c-a-1"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Spec (-want +got):\n%s", diff)
	}
	if got.Images.Verifier != "verifier:2" {
		t.Errorf("verifier image %q, want the catalogue's current verifier:2", got.Images.Verifier)
	}
}

func TestBeginRegrade(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	done := &metav1.Time{Time: now.Add(-time.Hour)}
	cases := map[string]struct {
		n              int
		wantCompletion bool
		wantMessage    string
	}{
		"trials to regrade: the campaign runs again": {n: 2, wantMessage: "regrading the stored artifacts of 2 trials with the current verifier images"},
		"none: it stays finished":                    {n: 0, wantCompletion: true, wantMessage: "no final trial has stored artifacts (status.patch): nothing to regrade"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &evalv1.SweepRun{}
			r.Status.CompletionTime = done
			meta.SetStatusCondition(&r.Status.Conditions, metav1.Condition{Type: evalv1.SweepRunComplete, Status: metav1.ConditionTrue, Reason: reasons.AllTrialsFinished})
			BeginRegrade(r, "t1", tc.n, now)
			want := &evalv1.RetryStatus{Token: "t1", HandledAt: &metav1.Time{Time: now}, Trials: int32(tc.n), Message: tc.wantMessage}
			if diff := cmp.Diff(want, r.Status.Regrade); diff != "" {
				t.Errorf("status.regrade (-want +got):\n%s", diff)
			}
			if (r.Status.CompletionTime != nil) != tc.wantCompletion {
				t.Errorf("completionTime %v, want kept %v", r.Status.CompletionTime, tc.wantCompletion)
			}
			c := meta.FindStatusCondition(r.Status.Conditions, evalv1.SweepRunComplete)
			if wantReason := map[bool]string{true: reasons.AllTrialsFinished, false: reasons.Retrying}[tc.wantCompletion]; c.Reason != wantReason {
				t.Errorf("Complete reason %s, want %s", c.Reason, wantReason)
			}
		})
	}
}
