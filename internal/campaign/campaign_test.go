package campaign

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func taskCM(cmName, task string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: cmName, Labels: map[string]string{evalv1.LabelTask: task, "suite": "demo"},
			Annotations: map[string]string{evalv1.AnnotationAgentImage: "a:1", evalv1.AnnotationVerifierImage: "v:1", evalv1.AnnotationBugs: "3",
				evalv1.AnnotationSolution: cmName + "-solution", evalv1.AnnotationGrader: "swesweep"}},
		Data: map[string]string{evalv1.TaskTOMLKey: "name = \"" + task + "\"", evalv1.InstructionKey: "fix it"},
	}
}

func TestTrialName(t *testing.T) {
	cases := map[string]struct {
		run, task string
		attempt   int32
		want      string
	}{
		"plain":       {"demo", "calc", 1, "demo-calc-1"},
		"underscores": {"demo", "swe-sweep__click", 2, "demo-swe-sweep-click-2-"},
		"long":        {"a-very-long-campaign-name-for-testing", "swe-sweep__pytorch-lightning", 10, "a-very-long-campaign-name-for-testing-s-"},
	}
	seen := map[string]bool{}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := TrialName(tc.run, tc.task, tc.attempt)
			if !strings.HasPrefix(got, tc.want) || len(got) > MaxTrialNameLength {
				t.Errorf("TrialName = %q, want prefix %q and at most %d characters", got, tc.want, MaxTrialNameLength)
			}
			if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
				t.Errorf("TrialName %q is not a DNS label: %v", got, errs)
			}
			if got != TrialName(tc.run, tc.task, tc.attempt) || seen[got] {
				t.Errorf("TrialName %q is not deterministic or not unique", got)
			}
			seen[got] = true
		})
	}
	if TrialName("r", "a_b", 1) == TrialName("r", "a-b", 1) {
		t.Error("names that clean to the same text must differ")
	}
}

func TestSelectTasks(t *testing.T) {
	cms := []corev1.ConfigMap{*taskCM("t-calc", "calc"), *taskCM("t-strings", "strings"), *taskCM("t-dates", "dates"),
		{ObjectMeta: metav1.ObjectMeta{Name: "unrelated"}}}
	cms[2].Labels["suite"] = "other"
	inSuite := func(cm *corev1.ConfigMap) bool { return cm.Labels["suite"] == "demo" }
	cases := map[string]struct {
		sel         evalv1.TaskSelection
		wantTasks   []string
		wantMissing []string
	}{
		"by names":            {sel: evalv1.TaskSelection{Names: []string{"strings", "calc"}}, wantTasks: []string{"calc", "strings"}},
		"missing name":        {sel: evalv1.TaskSelection{Names: []string{"calc", "nope"}}, wantTasks: []string{"calc"}, wantMissing: []string{"nope"}},
		"by selector":         {sel: evalv1.TaskSelection{Selector: &metav1.LabelSelector{}}, wantTasks: []string{"calc", "strings"}},
		"names plus selector": {sel: evalv1.TaskSelection{Names: []string{"dates"}, Selector: &metav1.LabelSelector{}}, wantTasks: []string{"calc", "dates", "strings"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tasks, missing := SelectTasks(tc.sel, cms, inSuite)
			var got []string
			for _, task := range tasks {
				got = append(got, task.Name)
			}
			if diff := cmp.Diff(tc.wantTasks, got); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMissing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrialSpec(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: evalv1.SweepRunSpec{
		Agent:     evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}},
		Tasks:     evalv1.TaskSelection{Names: []string{"calc"}, Bugs: map[string][]string{"calc": {"b1"}}},
		QueueName: "q", RetryPolicy: evalv1.RetryPolicy{InfrastructureRetries: 2},
	}}
	got := TrialSpec(run, Task{Name: "calc", ConfigMap: taskCM("t-calc", "calc")}, 2)
	want := evalv1.TaskTrialSpec{
		SweepRun: "demo", Task: "calc", Attempt: 2, Images: evalv1.TrialImages{Agent: "a:1", Verifier: "v:1"},
		Definition: `name = "calc"`, InstructionConfigMap: "t-calc", SolutionConfigMap: "t-calc-solution", Grader: "swesweep",
		Agent: evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}, Bugs: []string{"b1"}, BugsTotal: 1,
		RetryPolicy: evalv1.RetryPolicy{InfrastructureRetries: 2}, QueueName: "q",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TrialSpec (-want +got):\n%s", diff)
	}
	run.Spec.Agent = evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}
	if got := TrialSpec(run, Task{Name: "calc", ConfigMap: taskCM("t-calc", "calc")}, 1); got.SolutionConfigMap != "" {
		t.Errorf("a non-oracle trial must not get the solution, got %q", got.SolutionConfigMap)
	}
}

func TestToCreate(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: evalv1.SweepRunSpec{Attempts: 2}}
	plan := Plan(run, []Task{{Name: "a"}, {Name: "b"}})
	names := func(ps []Planned) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"r-a-1", "r-a-2", "r-b-1", "r-b-2"}, names(plan)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	cases := map[string]struct {
		existing    []string
		unfinished  int
		parallelism int32
		suspended   bool
		want        []string
	}{
		"fresh start":           {parallelism: 3, want: []string{"r-a-1", "r-a-2", "r-b-1"}},
		"bounded by unfinished": {existing: []string{"r-a-1", "r-a-2"}, unfinished: 2, parallelism: 3, want: []string{"r-b-1"}},
		"finished make room":    {existing: []string{"r-a-1", "r-a-2"}, unfinished: 0, parallelism: 3, want: []string{"r-b-1", "r-b-2"}},
		"full":                  {existing: []string{"r-a-1"}, unfinished: 3, parallelism: 3},
		"suspended":             {parallelism: 3, suspended: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			exists := map[string]bool{}
			for _, n := range tc.existing {
				exists[n] = true
			}
			got := ToCreate(plan, func(n string) bool { return exists[n] }, tc.unfinished, tc.parallelism, tc.suspended)
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("ToCreate (-want +got):\n%s", diff)
			}
		})
	}
}

func trial(task string, phase evalv1.TrialPhase, rewards map[string]string) evalv1.TaskTrial {
	return evalv1.TaskTrial{Spec: evalv1.TaskTrialSpec{Task: task}, Status: evalv1.TaskTrialStatus{Phase: phase, Rewards: rewards}}
}

func TestAggregate(t *testing.T) {
	trials := []evalv1.TaskTrial{
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
