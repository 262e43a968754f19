package campaign

import (
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
)

func trial(task string, phase evalv1.TrialPhase, rewards map[string]string) *evalv1.TaskTrial {
	return &evalv1.TaskTrial{Spec: evalv1.TaskTrialSpec{Task: task}, Status: evalv1.TaskTrialStatus{Phase: phase, Rewards: rewards}}
}

func TestAggregate(t *testing.T) {
	trials := []*evalv1.TaskTrial{
		trial("a", evalv1.TrialSucceeded, map[string]string{"reward": "0.5000", "n_subtasks": "4", "n_resolved": "2", "visible_ok": "1"}),
		trial("b", evalv1.TrialSucceeded, map[string]string{"reward": "0.0000", "n_subtasks": "2", "n_resolved": "2", "visible_ok": "0"}),
		trial("c", evalv1.TrialFailed, nil),
		trial("d", evalv1.TrialError, nil),
		trial("e", evalv1.TrialVerifying, nil),
	}
	var st evalv1.SweepRunStatus
	Aggregate(&st, trials)
	want := evalv1.SweepRunStatus{GradedTrials: 2, EvaluationFailures: 2, BugsTotal: 6, BugsResolved: "2.00",
		Score: "0.3333", ScoreIgnoringRegressions: "0.6667", MeanReward: "0.2500"}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("Aggregate (-want +got):\n%s", diff)
	}
	counts := Counts(trials, 6)
	wantCounts := evalv1.TrialCounts{Total: 6, Created: 5, Verifying: 1, Succeeded: 2, Failed: 1, Error: 1}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("Counts (-want +got):\n%s", diff)
	}
	if FinishedTrials(counts) != 4 {
		t.Errorf("FinishedTrials = %d, want 4", FinishedTrials(counts))
	}
}

func TestSummarize(t *testing.T) {
	trials := []*evalv1.TaskTrial{
		trial("a", evalv1.TrialSucceeded, map[string]string{"reward": "1.0000", "n_subtasks": "2", "n_resolved": "2", "visible_ok": "1"}),
		trial("b", evalv1.TrialAgentRunning, nil),
	}
	cases := map[string]struct {
		tasks, planned, unseen int
		trials                 []*evalv1.TaskTrial
		want                   evalv1.SweepRunStatus
	}{
		"nothing yet: no score, not 0": {tasks: 2, planned: 4, want: evalv1.SweepRunStatus{Tasks: 2, Progress: "0/4", Trials: evalv1.TrialCounts{Total: 4}}},
		"only unmeasured trials: still no score": {tasks: 2, planned: 4, trials: []*evalv1.TaskTrial{trial("a", evalv1.TrialError, nil), trial("b", evalv1.TrialFailed, nil)},
			want: evalv1.SweepRunStatus{Tasks: 2, Progress: "2/4", Trials: evalv1.TrialCounts{Total: 4, Created: 2, Failed: 1, Error: 1}, EvaluationFailures: 2}},
		"a graded 0 is a score": {tasks: 1, planned: 1, trials: []*evalv1.TaskTrial{trial("a", evalv1.TrialSucceeded, map[string]string{"reward": "0", "n_subtasks": "2", "n_resolved": "0", "visible_ok": "1"})},
			want: evalv1.SweepRunStatus{Tasks: 1, Progress: "1/1", Trials: evalv1.TrialCounts{Total: 1, Created: 1, Succeeded: 1},
				GradedTrials: 1, BugsTotal: 2, BugsResolved: "0.00", Score: "0.0000", ScoreIgnoringRegressions: "0.0000", MeanReward: "0.0000"}},
		"unseen trials count as created": {tasks: 2, planned: 4, unseen: 2, trials: trials, want: evalv1.SweepRunStatus{Tasks: 2, Progress: "1/4",
			Trials:       evalv1.TrialCounts{Total: 4, Created: 4, Running: 1, Succeeded: 1},
			GradedTrials: 1, BugsTotal: 2, BugsResolved: "2.00", Score: "1.0000", ScoreIgnoringRegressions: "1.0000", MeanReward: "1.0000"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var st evalv1.SweepRunStatus
			Summarize(&st, tc.tasks, tc.planned, tc.trials, tc.unseen)
			if diff := cmp.Diff(tc.want, st); diff != "" {
				t.Errorf("Summarize (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAggregateChecksTheDeclaredCount: a Succeeded trial whose n_subtasks is not its
// spec.bugsTotal (written before the controller checked bounds, or by hand) is an evaluation
// failure, not 1000 bugs.
func TestAggregateChecksTheDeclaredCount(t *testing.T) {
	forged := trial("a", evalv1.TrialSucceeded, map[string]string{"reward": "1.0000", "n_subtasks": "1000", "n_resolved": "1000", "visible_ok": "1"})
	forged.Spec.BugsTotal = 40
	honest := trial("b", evalv1.TrialSucceeded, map[string]string{"reward": "0.5000", "n_subtasks": "2", "n_resolved": "1", "visible_ok": "1"})
	honest.Spec.BugsTotal = 2
	var st evalv1.SweepRunStatus
	Aggregate(&st, []*evalv1.TaskTrial{forged, honest})
	want := evalv1.SweepRunStatus{GradedTrials: 1, EvaluationFailures: 1, BugsTotal: 2, BugsResolved: "1.00",
		Score: "0.5000", ScoreIgnoringRegressions: "0.5000", MeanReward: "0.5000"}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("Aggregate (-want +got):\n%s", diff)
	}
}

// TestAggregateTakesTheFirstExportedTrial: with an undeclared bug count a task's trials may
// disagree on n_subtasks; the campaign takes the count of its first trial in the order of its
// export, as SWE-sweep's scoring of that export does.
func TestAggregateTakesTheFirstExportedTrial(t *testing.T) {
	a := trial("a", evalv1.TrialSucceeded, map[string]string{"reward": "0", "n_subtasks": "0", "n_resolved": "0", "visible_ok": "0"})
	b := trial("a", evalv1.TrialSucceeded, map[string]string{"reward": "1", "n_subtasks": "2", "n_resolved": "2", "visible_ok": "1"})
	a.Name, b.Name = "run-a-1", "run-a-2"
	trials := []*evalv1.TaskTrial{a, b}
	SortAsExported(trials)
	first := trials[0].Status.Rewards["n_subtasks"]
	for _, order := range [][]*evalv1.TaskTrial{{a, b}, {b, a}} {
		var st evalv1.SweepRunStatus
		Aggregate(&st, order)
		if want := first; strconv.Itoa(int(st.BugsTotal)) != want {
			t.Errorf("bugs total %d, want the first exported trial's %s", st.BugsTotal, want)
		}
	}
}

// TestSortAsExported: trials in the order of their export's folders (harborjob.FolderName),
// and Aggregate, which does not sort its input, reads them in that order too.
func TestSortAsExported(t *testing.T) {
	var trials []*evalv1.TaskTrial
	for _, name := range []string{"run-b-1", "run-a-2", "run-a-1", "run-b-2", "run-a-3"} {
		tr := trial(name[4:5], evalv1.TrialSucceeded, nil)
		tr.Name = name
		trials = append(trials, tr)
	}
	given := slices.Clone(trials)
	SortAsExported(trials)
	folder := func(tr *evalv1.TaskTrial) string {
		return harborjob.FolderName(harborjob.Trial{Name: tr.Name, Task: tr.Spec.Task})
	}
	for i := 1; i < len(trials); i++ {
		if folder(trials[i-1]) > folder(trials[i]) {
			t.Errorf("trial %s (folder %s) before %s (folder %s)", trials[i-1].Name, folder(trials[i-1]), trials[i].Name, folder(trials[i]))
		}
	}
	var names []string
	for _, i := range exportOrder(given) {
		names = append(names, given[i].Name)
	}
	if d := cmp.Diff(names, namesOf(trials)); d != "" {
		t.Errorf("exportOrder differs from SortAsExported (-order +sorted):\n%s", d)
	}
}

func namesOf(trials []*evalv1.TaskTrial) []string {
	out := make([]string, len(trials))
	for i := range trials {
		out[i] = trials[i].Name
	}
	return out
}

// BenchmarkSummarize is a campaign's status summed over 10,000 finished trials, as the
// SweepRun reconciler does at every reconcile.
func BenchmarkSummarize(b *testing.B) {
	trials := make([]*evalv1.TaskTrial, 10000)
	for i := range trials {
		task := "task-" + strconv.Itoa(i/10)
		trials[i] = trial(task, evalv1.TrialSucceeded, map[string]string{"reward": "1", "n_subtasks": "2", "n_resolved": "2", "visible_ok": "1"})
		trials[i].Name = TrialName("scale", task, int32(i%10+1))
	}
	b.ReportAllocs()
	for b.Loop() {
		var st evalv1.SweepRunStatus
		Summarize(&st, 1000, len(trials), FinalTrials(trials), 0)
	}
}

// BenchmarkPlanStarted is a campaign's plan of 10,000 trials, its reruns, and the trials of it
// already created, as the SweepRun reconciler works them out at every reconcile.
func BenchmarkPlanStarted(b *testing.B) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "scale"}, Spec: evalv1.SweepRunSpec{Attempts: 10}}
	tasks := make([]Task, 1000)
	for i := range tasks {
		tasks[i] = Task{Name: "task-" + strconv.Itoa(i)}
	}
	trials := make([]*evalv1.TaskTrial, 10000)
	seen := map[string]bool{}
	for i := range trials {
		trials[i].Name = TrialName("scale", tasks[i/10].Name, int32(i%10+1))
		seen[trials[i].Name] = true
	}
	exists := func(name string) bool { return seen[name] }
	b.ReportAllocs()
	for b.Loop() {
		if got := Started(PlanReruns(Plan(run, tasks), trials), exists); len(got) != len(trials) {
			b.Fatalf("%d trials started, want %d", len(got), len(trials))
		}
	}
}
