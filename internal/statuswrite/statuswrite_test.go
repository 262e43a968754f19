package statuswrite

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

func at(sec int) *metav1.Time {
	t := metav1.NewTime(time.Date(2026, 12, 2, 4, 0, sec, 0, time.UTC))
	return &t
}

func TestTrial(t *testing.T) {
	running := func(agent evalv1.StageStatus) evalv1.TaskTrialStatus {
		return evalv1.TaskTrialStatus{Phase: evalv1.TrialAgentRunning, StartTime: at(0), Agent: &agent}
	}
	created := evalv1.StageStatus{Run: 1, JobName: "t-agent-1", StartTime: at(0)}
	started := created
	started.ContainerStartTime = at(2)
	finished := started
	finished.JobFinishTime = at(5)
	harvested := finished
	harvested.CompletionTime, harvested.ExitCode = at(6), new(int32)
	verifying := running(harvested)
	verifying.Phase, verifying.Verifier = evalv1.TrialVerifying, &evalv1.StageStatus{Run: 1, JobName: "t-verify-1", StartTime: at(6)}
	retrying := running(created)
	retrying.InfrastructureRetries, retrying.Reason = 1, reasons.PodEvicted

	cases := map[string]struct {
		before, after evalv1.TaskTrialStatus
		want          bool
	}{
		"nothing changed":                               {before: running(created), after: running(created), want: false},
		"the first reconcile":                           {before: evalv1.TaskTrialStatus{}, after: running(created), want: true},
		"the main container started":                    {before: running(created), after: running(started), want: false},
		"the Job finished, not yet harvested":           {before: running(started), after: running(finished), want: false},
		"the stage ended: its times go with it":         {before: running(created), after: running(harvested), want: true},
		"the next stage's Job was created":              {before: running(harvested), after: verifying, want: true},
		"a retry":                                       {before: running(started), after: retrying, want: true},
		"the verifier's container started":              {before: verifying, after: withVerifierStart(verifying), want: false},
		"a start time read again differently waits too": {before: running(started), after: running(changedStart(started)), want: false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, Trial(&c.before, &c.after)); diff != "" {
				t.Errorf("Trial (-want +got):\n%s", diff)
			}
		})
	}
}

func withVerifierStart(st evalv1.TaskTrialStatus) evalv1.TaskTrialStatus {
	out := *st.DeepCopy()
	out.Verifier.ContainerStartTime = at(8)
	return out
}

func changedStart(ss evalv1.StageStatus) evalv1.StageStatus {
	ss.ContainerStartTime = at(3)
	return ss
}

func TestSweepRun(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	progressing := func(msg string) metav1.Condition {
		return metav1.Condition{Type: evalv1.SweepRunProgressing, Status: metav1.ConditionTrue, Reason: reasons.TrialsRunning, Message: msg}
	}
	running := func(succeeded int32, msg string) evalv1.SweepRunStatus {
		return evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, Progress: "x", Trials: evalv1.TrialCounts{Succeeded: succeeded},
			Score: "0.5000", Conditions: []metav1.Condition{progressing(msg)}}
	}
	complete := running(10, "10/10 trials finished")
	complete.Phase, complete.CompletionTime = evalv1.SweepRunSucceeded, at(9)
	complete.Conditions = []metav1.Condition{{Type: evalv1.SweepRunProgressing, Status: metav1.ConditionFalse, Reason: reasons.AllTrialsFinished}}
	recorded := func(n int32) evalv1.SweepRunStatus {
		st := running(1, "1/10")
		st.Record = &evalv1.JobRecordStatus{Store: "file:///s", Folder: "ns/run", Trials: n}
		return st
	}

	type want struct {
		Write bool
		Wait  time.Duration
	}
	cases := map[string]struct {
		before, after evalv1.SweepRunStatus
		lastWrite     time.Time
		now           time.Time
		want          want
	}{
		"nothing changed": {before: running(1, "1/10"), after: running(1, "1/10"), lastWrite: t0, now: t0, want: want{}},
		"counts, written a second ago": {before: running(1, "1/10"), after: running(2, "2/10"),
			lastWrite: t0, now: t0.Add(time.Second), want: want{Write: true}},
		"counts, written 300 ms ago": {before: running(1, "1/10"), after: running(2, "2/10"),
			lastWrite: t0, now: t0.Add(300 * time.Millisecond), want: want{Wait: 700 * time.Millisecond}},
		"counts, never written by this manager": {before: running(1, "1/10"), after: running(2, "2/10"),
			now: t0, want: want{Write: true}},
		"the phase": {before: running(9, "9/10"), after: complete,
			lastWrite: t0, now: t0, want: want{Write: true}},
		"a condition's reason": {before: running(1, "1/10"),
			after: evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, Progress: "x", Trials: evalv1.TrialCounts{Succeeded: 1}, Score: "0.5000",
				Conditions: []metav1.Condition{progressing("1/10"), {Type: evalv1.SweepRunSuspended, Status: metav1.ConditionTrue, Reason: reasons.Suspended}}},
			lastWrite: t0, now: t0, want: want{Write: true}},
		"the first record": {before: running(1, "1/10"), after: recorded(0), lastWrite: t0, now: t0, want: want{Write: true}},
		"one more trial recorded": {before: recorded(1), after: recorded(2),
			lastWrite: t0, now: t0, want: want{Wait: time.Second}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var got want
			got.Write, got.Wait = SweepRun(&c.before, &c.after, c.lastWrite, c.now)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("SweepRun (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVersions(t *testing.T) {
	a, b := types.NamespacedName{Namespace: "ns", Name: "a"}, types.NamespacedName{Namespace: "ns", Name: "b"}
	var v Versions
	type check struct {
		key  types.NamespacedName
		rv   string
		want bool
	}
	steps := []struct {
		name   string
		do     func()
		checks []check
	}{
		{"nothing remembered", func() {}, []check{{a, "1", false}, {a, "", false}}},
		{"a write of a replaced version 1", func() { v.Set(a, "1") }, []check{{a, "1", true}, {a, "2", false}, {b, "1", false}}},
		{"a later write replaced version 2", func() { v.Set(a, "2") }, []check{{a, "1", false}, {a, "2", true}}},
		{"a deleted", func() { v.Forget(a) }, []check{{a, "2", false}}},
	}
	for _, s := range steps {
		s.do()
		for _, c := range s.checks {
			if got := v.Is(c.key, c.rv); got != c.want {
				t.Errorf("%s: Is(%s, %q) = %v, want %v", s.name, c.key.Name, c.rv, got, c.want)
			}
		}
	}
}
