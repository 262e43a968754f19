package campaign

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/readiness"
)

// run is a trial of campaign "c" as the controller names and labels it: rerun 0 is the
// attempt's first trial; supersededBy marks it replaced.
func run(task string, attempt, rerun int32, phase evalv1.TrialPhase, reason string, superseded bool) *evalv1.TaskTrial {
	t := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Name: RerunName("c", task, attempt, rerun), Labels: map[string]string{}},
		Spec:       evalv1.TaskTrialSpec{SweepRun: "c", Task: task, Attempt: attempt},
		Status:     evalv1.TaskTrialStatus{Phase: phase, Reason: reason},
	}
	if rerun > 0 {
		t.Labels[evalv1.LabelRerun] = strings.TrimPrefix(t.Name, TrialName("c", task, attempt)+"-r")
	}
	if superseded {
		t.Labels[evalv1.LabelSupersededBy] = NextRunName(t)
	}
	return t
}

func names(trials []*evalv1.TaskTrial) []string {
	out := []string{}
	for _, t := range trials {
		out = append(out, t.Name)
	}
	return out
}

func TestRerunName(t *testing.T) {
	cases := map[string]struct {
		run, task       string
		attempt, rerun  int32
		want, wantStart string
	}{
		"first run is the trial name": {run: "c", task: "calc", attempt: 2, want: "c-calc-2"},
		"a rerun":                     {run: "c", task: "calc", attempt: 2, rerun: 1, want: "c-calc-2-r1"},
		"long names stay bounded":     {run: "a-very-long-campaign-name-for-testing", task: "swe-sweep__pytorch-lightning", attempt: 10, rerun: 3, wantStart: "a-very-long-campaign-name-for-testing-s"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := RerunName(tc.run, tc.task, tc.attempt, tc.rerun)
			if tc.want != "" && got != tc.want {
				t.Errorf("RerunName = %q, want %q", got, tc.want)
			}
			if !strings.HasPrefix(got, tc.wantStart) || len(got) > MaxTrialNameLength || len(validation.IsDNS1123Label(got)) > 0 {
				t.Errorf("RerunName = %q: want prefix %q, a DNS label of at most %d characters", got, tc.wantStart, MaxTrialNameLength)
			}
			if tc.rerun > 0 && got == RerunName(tc.run, tc.task, tc.attempt, tc.rerun-1) {
				t.Errorf("rerun %d has the name of the run before it", tc.rerun)
			}
		})
	}
}

func TestFinalTrials(t *testing.T) {
	cases := map[string]struct {
		trials []*evalv1.TaskTrial
		want   []string
	}{
		"no reruns: every trial": {trials: []*evalv1.TaskTrial{
			run("a", 1, 0, evalv1.TrialSucceeded, "", false), run("a", 2, 0, evalv1.TrialError, reasons.PodEvicted, false)},
			want: []string{"c-a-1", "c-a-2"}},
		"a finished rerun replaces its attempt": {trials: []*evalv1.TaskTrial{
			run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), run("a", 1, 1, evalv1.TrialSucceeded, "", false), run("a", 2, 0, evalv1.TrialSucceeded, "", false)},
			want: []string{"c-a-1-r1", "c-a-2"}},
		"a running rerun replaces it too": {trials: []*evalv1.TaskTrial{
			run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), run("a", 1, 1, evalv1.TrialAgentRunning, "", false)},
			want: []string{"c-a-1-r1"}},
		"superseded and its rerun not created yet: the attempt has no final trial": {trials: []*evalv1.TaskTrial{
			run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), run("b", 1, 0, evalv1.TrialSucceeded, "", false)},
			want: []string{"c-b-1"}},
		"a chain of reruns: the newest": {trials: []*evalv1.TaskTrial{
			run("a", 1, 2, evalv1.TrialSucceeded, "", false), run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), run("a", 1, 1, evalv1.TrialFailed, reasons.GraderFailed, true)},
			want: []string{"c-a-1-r2"}},
		"an unmarked older run next to a newer one: the newer": {trials: []*evalv1.TaskTrial{
			run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, false), run("a", 1, 1, evalv1.TrialSucceeded, "", false)},
			want: []string{"c-a-1-r1"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, names(FinalTrials(tc.trials))); diff != "" {
				t.Errorf("FinalTrials (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToRerun(t *testing.T) {
	trials := []*evalv1.TaskTrial{
		run("a", 1, 0, evalv1.TrialSucceeded, "", false),
		run("a", 2, 0, evalv1.TrialError, reasons.PodEvicted, false),
		run("b", 1, 0, evalv1.TrialFailed, reasons.GraderFailed, false),
		run("b", 2, 0, evalv1.TrialFailed, reasons.RewardOutOfBounds, false),
		run("c", 1, 0, evalv1.TrialError, reasons.InvalidTask, false),
		run("d", 1, 0, evalv1.TrialError, reasons.ImagePullFailed, true),
		run("d", 1, 1, evalv1.TrialError, reasons.ImagePullFailed, false),
		run("e", 1, 0, evalv1.TrialSucceeded, reasons.PatchRefused, false),
		run("f", 1, 0, evalv1.TrialAgentRunning, "", false),
	}
	cases := map[string]struct {
		reasons []string
		want    []string
	}{
		"by default, what fails by chance, each attempt's final run": {reasons: failure.RerunByDefault, want: []string{"c-a-2", "c-b-1", "c-d-1-r1"}},
		"a deterministic reason only when named":                     {reasons: []string{reasons.RewardOutOfBounds, reasons.InvalidTask}, want: []string{"c-b-2", "c-c-1"}},
		"one reason":                                                 {reasons: []string{reasons.GraderFailed}, want: []string{"c-b-1"}},
		"a measured trial never, whatever its reason":                {reasons: []string{reasons.PatchRefused}, want: []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, names(ToRerun(trials, tc.reasons))); diff != "" {
				t.Errorf("ToRerun (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlanReruns(t *testing.T) {
	task := Task{Name: "a"}
	plan := []Planned{{Name: "c-a-1", Task: task, Attempt: 1}, {Name: "c-a-2", Task: task, Attempt: 2}}
	cases := map[string]struct {
		trials []*evalv1.TaskTrial
		want   []Planned
	}{
		"no retry: the plan": {trials: []*evalv1.TaskTrial{run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, false)}, want: plan},
		"a superseded attempt plans its rerun": {trials: []*evalv1.TaskTrial{run("a", 2, 0, evalv1.TrialError, reasons.PodEvicted, true)},
			want: []Planned{plan[0], {Name: "c-a-2-r1", Task: task, Attempt: 2, Rerun: 1}}},
		"the newest of a chain": {trials: []*evalv1.TaskTrial{run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), run("a", 1, 1, evalv1.TrialError, reasons.NodeLost, true)},
			want: []Planned{{Name: "c-a-1-r2", Task: task, Attempt: 1, Rerun: 2}, plan[1]}},
		"labels edited into a loop end": {trials: func() []*evalv1.TaskTrial {
			r1 := run("a", 1, 1, evalv1.TrialError, reasons.PodEvicted, true)
			r1.Labels[evalv1.LabelRerun] = "0" // so that its next run is named as itself
			return []*evalv1.TaskTrial{run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), r1}
		}(), want: []Planned{{Name: "c-a-1-r1", Task: task, Attempt: 1, Rerun: 1}, plan[1]}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PlanReruns(plan, tc.trials)); diff != "" {
				t.Errorf("PlanReruns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAwaitingRerun(t *testing.T) {
	trials := []*evalv1.TaskTrial{
		run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, true), run("a", 1, 1, evalv1.TrialSucceeded, "", false),
		run("b", 1, 0, evalv1.TrialError, reasons.PodEvicted, true),
	}
	if got := AwaitingRerun(trials); got != 1 {
		t.Errorf("AwaitingRerun = %d, want 1 (b's rerun is not created)", got)
	}
}

func TestDecideRetry(t *testing.T) {
	done := &metav1.Time{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	trials := []*evalv1.TaskTrial{run("a", 1, 0, evalv1.TrialError, reasons.PodEvicted, false), run("b", 1, 0, evalv1.TrialFailed, reasons.RewardOutOfBounds, false)}
	cases := map[string]struct {
		annotations map[string]string
		completion  *metav1.Time
		handled     string
		wantOK      bool
		wantReq     RetryRequest
		wantRerun   []string
	}{
		"no request": {completion: done},
		"a new token on a finished campaign": {annotations: map[string]string{evalv1.AnnotationRetry: "t1"}, completion: done, wantOK: true,
			wantReq: RetryRequest{Token: "t1", Reasons: failure.RerunByDefault}, wantRerun: []string{"c-a-1"}},
		"the token already handled (a manifest applied again)": {annotations: map[string]string{evalv1.AnnotationRetry: "t1"}, completion: done, handled: "t1"},
		"a token while the campaign runs waits for its end":    {annotations: map[string]string{evalv1.AnnotationRetry: "t2"}, handled: "t1"},
		"named reasons": {annotations: map[string]string{evalv1.AnnotationRetry: "t2", evalv1.AnnotationRetryReasons: " RewardOutOfBounds, RewardOutOfBounds"}, completion: done, handled: "t1", wantOK: true,
			wantReq: RetryRequest{Token: "t2", Reasons: []string{reasons.RewardOutOfBounds}}, wantRerun: []string{"c-b-1"}},
		"an unknown reason reruns nothing": {annotations: map[string]string{evalv1.AnnotationRetry: "t2", evalv1.AnnotationRetryReasons: "PodEvicted,Flaky"}, completion: done, wantOK: true,
			wantReq: RetryRequest{Token: "t2", Reasons: []string{reasons.PodEvicted, "Flaky"}}, wantRerun: []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Annotations: tc.annotations}, Status: evalv1.SweepRunStatus{CompletionTime: tc.completion}}
			if tc.handled != "" {
				r.Status.Retry = &evalv1.RetryStatus{Token: tc.handled}
			}
			req, rerun, ok := DecideRetry(r, trials)
			if ok != tc.wantOK {
				t.Fatalf("DecideRetry ok = %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(tc.wantReq, req); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRerun, names(rerun)); diff != "" {
				t.Errorf("rerun (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckRetryReasons(t *testing.T) {
	if err := CheckRetryReasons(failure.RerunByDefault); err != nil {
		t.Errorf("the default reasons are refused: %v", err)
	}
	err := CheckRetryReasons([]string{reasons.PodEvicted, "Flaky"})
	if err == nil || !strings.Contains(err.Error(), "Flaky: not a trial reason") {
		t.Errorf("CheckRetryReasons(Flaky) = %v, want it named as no reason", err)
	}
}

// TestRetryPhase follows a finished campaign through a retry: it leaves completion (Complete
// false, Ready false, Reconciling) while its reruns run, and completes again when they end.
func TestRetryPhase(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	finished := func(phase evalv1.SweepRunPhase, typ string) *evalv1.SweepRun {
		r := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Status: evalv1.SweepRunStatus{Phase: phase, CompletionTime: &metav1.Time{Time: t0}}}
		meta.SetStatusCondition(&r.Status.Conditions, condition(typ, metav1.ConditionTrue, reasons.AllTrialsFinished, ""))
		return r
	}
	cases := map[string]struct {
		run          *evalv1.SweepRun
		reasons      []string
		rerun        int
		wantComplete bool
		wantCond     string
		wantMessage  string
	}{
		"reruns: completion cleared": {run: finished(evalv1.SweepRunSucceeded, evalv1.SweepRunComplete), reasons: []string{reasons.PodEvicted}, rerun: 2,
			wantCond: evalv1.SweepRunComplete, wantMessage: "rerunning 2 trials that ended with reason PodEvicted"},
		"a failed campaign reruns too": {run: finished(evalv1.SweepRunFailedPh, evalv1.SweepRunFailed), reasons: []string{reasons.PodEvicted}, rerun: 1,
			wantCond: evalv1.SweepRunFailed, wantMessage: "rerunning 1 trials that ended with reason PodEvicted"},
		"nothing to rerun: stays complete": {run: finished(evalv1.SweepRunSucceeded, evalv1.SweepRunComplete), reasons: []string{reasons.PodEvicted}, wantComplete: true,
			wantMessage: "no finished trial ended Error or Failed with reason PodEvicted: nothing to rerun"},
		"an unknown reason: stays complete": {run: finished(evalv1.SweepRunSucceeded, evalv1.SweepRunComplete), reasons: []string{"Flaky"}, rerun: 1, wantComplete: true,
			wantMessage: "annotation eval.sweep.dev/retry-reasons: Flaky: not a trial reason; give reasons a trial's status.reason shows (for example PodEvicted), or none to rerun " + strings.Join(failure.RerunByDefault, ", ")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := tc.run
			BeginRetry(r, RetryRequest{Token: "t1", Reasons: tc.reasons}, tc.rerun, t0.Add(time.Hour))
			want := &evalv1.RetryStatus{Token: "t1", HandledAt: &metav1.Time{Time: t0.Add(time.Hour)}, Reasons: tc.reasons, Trials: int32(tc.rerun), Message: tc.wantMessage}
			if tc.wantComplete {
				want.Trials = 0
			}
			if diff := cmp.Diff(want, r.Status.Retry); diff != "" {
				t.Errorf("status.retry (-want +got):\n%s", diff)
			}
			if got := r.Status.CompletionTime != nil; got != tc.wantComplete {
				t.Fatalf("completed = %v, want %v", got, tc.wantComplete)
			}
			if tc.wantComplete {
				return
			}
			if c := meta.FindStatusCondition(r.Status.Conditions, tc.wantCond); c == nil || c.Status != metav1.ConditionFalse || c.Reason != reasons.Retrying {
				t.Errorf("%s = %+v, want False with reason Retrying", tc.wantCond, c)
			}
			// The reconcile then decides on the final trials: the reruns are unfinished.
			r.Status.Trials, r.Status.Progress = evalv1.TrialCounts{Total: 3, Created: 3, Running: 1, Succeeded: 2}, "2/3"
			d := Decide(r, nil, 3)
			d.Apply(&r.Status, t0.Add(2*time.Hour))
			if r.Status.Phase != evalv1.SweepRunRunning || r.Status.CompletionTime != nil {
				t.Errorf("while reruns run: phase %s, completion %v; want Running, none", r.Status.Phase, r.Status.CompletionTime)
			}
			if v := Standing(r, nil); v.Standing != readiness.Reconciling {
				t.Errorf("while reruns run: standing %v, want Reconciling", v.Standing)
			}
			r.Status.Trials, r.Status.Progress, r.Status.GradedTrials = evalv1.TrialCounts{Total: 3, Created: 3, Succeeded: 3}, "3/3", 3
			d = Decide(r, nil, 3)
			d.Apply(&r.Status, t0.Add(3*time.Hour))
			if r.Status.Phase != evalv1.SweepRunSucceeded || !r.Status.CompletionTime.Time.Equal(t0.Add(3*time.Hour)) {
				t.Errorf("after the reruns: phase %s, completion %v; want Succeeded at the new end", r.Status.Phase, r.Status.CompletionTime)
			}
			if c := meta.FindStatusCondition(r.Status.Conditions, evalv1.SweepRunComplete); c == nil || c.Status != metav1.ConditionTrue {
				t.Errorf("after the reruns: Complete = %+v, want True", c)
			}
			if v := Standing(r, nil); v.Standing != readiness.Ready {
				t.Errorf("after the reruns: standing %v, want Ready", v.Standing)
			}
		})
	}
}
