package campaign

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

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

// TestTrialNameIsStable pins names as earlier releases made them: a trial's name is how a
// campaign finds the trials it already created, so a name that changed would run them again.
func TestTrialNameIsStable(t *testing.T) {
	cases := []struct {
		run, task string
		attempt   int32
		want      string
	}{
		{"demo", "calc", 1, "demo-calc-1"},
		{"scale", "t00042", 10, "scale-t00042-10"},
		{"demo", "calc-", 1, "demo-calc--1"},
		{"Demo", "calc", 1, "demo-calc-1-60cb1663"},
		{"demo", "swe-sweep__click", 2, "demo-swe-sweep-click-2-eaf39997"},
		{"-x", "y", 3, "x-y-3-91002a24"},
		{"a-very-long-campaign-name-for-testing", "swe-sweep__pytorch-lightning", 10, "a-very-long-campaign-name-for-testing-s-e1008a8d"},
		{"a-campaign-name-of-exactly-sixty-characters-long-abcdefgh", "t", 1, "a-campaign-name-of-exactly-sixty-charac-0c8a8419"},
	}
	for _, tc := range cases {
		if got := TrialName(tc.run, tc.task, tc.attempt); got != tc.want {
			t.Errorf("TrialName(%q, %q, %d) = %q, want %q", tc.run, tc.task, tc.attempt, got, tc.want)
		}
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
		Tasks:     evalv1.TaskSelection{Names: []string{"calc"}, Bugs: map[string][]string{"calc": {"b1", "b3", "b1"}}},
		QueueName: "q", RetryPolicy: evalv1.RetryPolicy{InfrastructureRetries: 2},
		PodSecurity: &evalv1.PodSecurity{RunAsUser: ptr.To[int64](1000), AddCapabilities: []string{"NET_RAW"}},
		Grading:     &evalv1.GradingPolicy{FlakeRechecks: 3},
	}}
	got := TrialSpec(run, Task{Name: "calc", ConfigMap: taskCM("t-calc", "calc")}, 2)
	want := evalv1.TaskTrialSpec{
		SweepRun: "demo", Task: "calc", Attempt: 2, Images: evalv1.TrialImages{Agent: "a:1", Verifier: "v:1"},
		Definition: `name = "calc"`, InstructionConfigMap: "t-calc", SolutionConfigMap: "t-calc-solution", Grader: "swesweep",
		Agent: evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}, Bugs: []string{"b1", "b3"}, BugsTotal: 2,
		RetryPolicy: evalv1.RetryPolicy{InfrastructureRetries: 2}, QueueName: "q",
		PodSecurity: &evalv1.PodSecurity{RunAsUser: ptr.To[int64](1000), AddCapabilities: []string{"NET_RAW"}},
		Grading:     &evalv1.GradingPolicy{FlakeRechecks: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TrialSpec (-want +got):\n%s", diff)
	}
	run.Spec.Agent = evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}
	if got := TrialSpec(run, Task{Name: "calc", ConfigMap: taskCM("t-calc", "calc")}, 1); got.SolutionConfigMap != "" {
		t.Errorf("a non-oracle trial must not get the solution, got %q", got.SolutionConfigMap)
	}
}

// A task ConfigMap naming its own patch Secret replaces the run's for the patch agent only, and
// never changes the run's spec.
func TestTrialSpecPatchSecret(t *testing.T) {
	own := taskCM("t-calc", "calc")
	own.Annotations[evalv1.AnnotationPatchSecret] = "imp-calc-patch"
	for name, tc := range map[string]struct {
		agent evalv1.AgentSpec
		cm    *corev1.ConfigMap
		want  evalv1.AgentSpec
	}{
		"the task's own Secret": {agent: evalv1.AgentSpec{Patch: &evalv1.PatchAgent{}}, cm: own,
			want: evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "imp-calc-patch"}}},
		"the run's Secret": {agent: evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}}, cm: taskCM("t-calc", "calc"),
			want: evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}}},
		"another agent": {agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}, cm: own, want: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}},
	} {
		run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: evalv1.SweepRunSpec{Agent: tc.agent}}
		before := run.Spec.Agent.DeepCopy()
		got := TrialSpec(run, Task{Name: "calc", ConfigMap: tc.cm}, 1).Agent
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: agent (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(*before, run.Spec.Agent); diff != "" {
			t.Errorf("%s: the run's agent changed (-before +after):\n%s", name, diff)
		}
	}
}

func TestSelectorMatcher(t *testing.T) {
	cm := taskCM("t-calc", "calc")
	for name, tc := range map[string]struct {
		sel  *metav1.LabelSelector
		want bool
	}{
		"no selector":   {sel: nil, want: false},
		"matching":      {sel: &metav1.LabelSelector{MatchLabels: map[string]string{"suite": "demo"}}, want: true},
		"not matching":  {sel: &metav1.LabelSelector{MatchLabels: map[string]string{"suite": "other"}}, want: false},
		"every task cm": {sel: &metav1.LabelSelector{}, want: true},
	} {
		matches, err := SelectorMatcher(tc.sel)
		if err != nil || matches(cm) != tc.want {
			t.Errorf("%s: matches = %v, %v; want %v", name, err == nil && matches(cm), err, tc.want)
		}
	}
	_, err := SelectorMatcher(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "suite", Operator: "Near"}}})
	if err == nil || !strings.Contains(err.Error(), "spec.tasks.selector: ") {
		t.Errorf("an invalid selector: %v", err)
	}
}
