package tasks_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// checkOptions are the flags' defaults.
func checkOptions(cluster *clioptions.Cluster) *tasks.CheckOptions {
	return &tasks.CheckOptions{Cluster: cluster, Parallelism: 10, Repeat: 1, Format: clioptions.OutputTable}
}

func TestTasksCheck(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	stdout, stderr, done := clitest.Start(context.Background(), checkOptions(srv.Cluster(ns)), "demo", "hello")
	list := &evalv1.SweepRunList{}
	clitest.WaitFor(t, "the oracle and nop SweepRuns", func() bool {
		return cl.List(context.Background(), list, client.InNamespace(ns)) == nil && len(list.Items) == 2
	})
	// eval.json in SWE-sweep's schema, as SWE-sweep's own grader writes it: the oracle resolves
	// both bugs of demo; nop resolves b2 too, which the check flags.
	bugs := func(kind string) string { return swesweepEval(kind == "oracle", true) }
	names := map[string]string{}
	for i := range list.Items {
		run := &list.Items[i]
		kind := run.Spec.Agent.Kind()
		names[kind] = run.Name
		if len(run.Spec.Tasks.Names) != 2 || run.Spec.Attempts != 1 || run.Spec.RetryPolicy.InfrastructureRetries != 3 {
			t.Errorf("%s run spec = %+v", kind, run.Spec)
		}
		clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 2, true)).FinishWithEval(t, cl, bugs(kind))
		reward := map[string]string{"oracle": "1.0000", "nop": "0.0000"}[kind]
		clitest.MakeTrial(run, "hello", 1).Phase(evalv1.TrialSucceeded).Rewards(map[string]string{"reward": reward}).Create(t, cl)
	}
	err := clitest.Wait(t, "tasks check after both runs finished", done)
	clitest.Golden(t, "tasks-check.txt", stdout.String())
	sweeptest.ErrorContains(t, err, "1 of 3 bugs are not valid (trivial 1); no exclusion list was written", "sweep info "+names["oracle"]+" --per-task")
	if errOut := stderr.String(); !strings.Contains(errOut, "started sweeprun "+names["oracle"]+" (oracle agent, attempts 1)") {
		t.Errorf("stderr = %q", errOut)
	}
}

// swesweepEval is an eval.json as SWE-sweep's grader writes it (upstream's keys, by hand), with
// the verdicts of demo's bugs b1 and b2.
func swesweepEval(b1, b2 bool) string {
	subtask := func(id string, resolved bool) string {
		passed, failed := `["tests.test_demo::test_`+id+`"]`, `[]`
		if !resolved {
			passed, failed = failed, passed
		}
		return `{"subtask_id": "` + id + `", "resolved": ` + strconv.FormatBool(resolved) + `, "partial": false, "test_applied": true,
      "targeted": ["tests/test_demo.py"], "n_passed": 1, "n_failed": 0, "duration_s": 0.4, "detail": {}, "has_split": true,
      "f2p_passed": ` + passed + `, "p2p_passed": [], "f2p_failed": ` + failed + `, "p2p_failed": []}`
	}
	return `{"evaluated_at": "20261201T101500", "version": "1", "score": 0.5, "visible_ok": true, "agent_patch_applied": true,
  "agent_build_ok": true, "agent_patch_error": null, "build_error": null, "regressions": [],
  "visible_tests": {"tests.test_demo::test_visible": "passed"}, "n_subtasks": 2, "n_resolved": 1, "n_partial": 0,
  "subtasks": [` + subtask("b1", b1) + `, ` + subtask("b2", b2) + `],
  "patch_stats": {"files_edited": [], "lines_added": 0, "lines_removed": 0, "target_files": ["demo.py"], "on_target_files": [], "off_target_files": [], "target_coverage_pct": 0.0},
  "timings": {"total_s": 2.5}, "error": null, "oracle": false}`
}

// A trial whose eval.json cannot be read is a row of its own, named with its Secret key, and
// fails the check; the other tasks' rows are all there.
func TestTasksCheckMalformedEval(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	stdout, _, done := clitest.Start(context.Background(), checkOptions(srv.Cluster(ns)), "demo", "hello")
	list := &evalv1.SweepRunList{}
	clitest.WaitFor(t, "the oracle and nop SweepRuns", func() bool {
		return cl.List(context.Background(), list, client.InNamespace(ns)) == nil && len(list.Items) == 2
	})
	var broken string
	for i := range list.Items {
		run := &list.Items[i]
		evalJSON := swesweepEval(false, false)
		if run.Spec.Agent.Kind() == "oracle" {
			evalJSON = `{"subtasks": "b1"}`
			broken = clitest.MakeTrial(run, "demo", 1).Obj().Name
		}
		clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 0, true)).FinishWithEval(t, cl, evalJSON)
		clitest.MakeTrial(run, "hello", 1).Phase(evalv1.TrialSucceeded).Rewards(map[string]string{"reward": map[string]string{"oracle": "1.0000", "nop": "0.0000"}[run.Spec.Agent.Kind()]}).Create(t, cl)
	}
	err := clitest.Wait(t, "tasks check after both runs finished", done)
	want := "trial " + broken + ": secret " + ns + "/" + podbuild.ResultsSecretName(broken) + " key eval.json: eval.json is not SWE-sweep's"
	sweeptest.ErrorContains(t, err, "2 of 3 bugs are not valid (unmeasured 2)", want)
	for _, row := range []string{"demo   b1   0/0 (0 of 1 measured)  0/1  -            -      unmeasured: " + want, "hello  -    1/1                    0/1  -            -      valid"} {
		if !strings.Contains(stdout.String(), row) {
			t.Errorf("stdout lacks %q:\n%s", row, stdout)
		}
	}
}

func TestTasksCheckErrors(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	_, _, err := clitest.Execute(context.Background(), checkOptions(srv.Cluster(ns)), "demo")
	sweeptest.ErrorContains(t, err, `task "demo" not found in namespace "`+ns+`"`)
	clitest.InstallCatalogue(t, cl, ns)
	cm := &corev1.ConfigMap{}
	clitest.Must(t, cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "demo"}, cm))
	delete(cm.Annotations, evalv1.AnnotationSolution)
	clitest.Must(t, cl.Update(context.Background(), cm))
	_, _, err = clitest.Execute(context.Background(), checkOptions(srv.Cluster(ns)), "demo")
	sweeptest.ErrorContains(t, err, "task demo: configmap demo has no eval.sweep.dev/solution-configmap annotation", "add solution/ to the task and bundle it again")
	list := &evalv1.SweepRunList{}
	clitest.Must(t, cl.List(context.Background(), list, client.InNamespace(ns)))
	if len(list.Items) != 0 {
		t.Errorf("a refused check started %d SweepRuns", len(list.Items))
	}
}

// The new flags' errors, before anything is created.
func TestTasksCheckFlagErrors(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	for _, tc := range []struct {
		name string
		set  func(*tasks.CheckOptions)
		args []string
		want []string
	}{
		{"repeat 0", func(o *tasks.CheckOptions) { o.Repeat = 0 }, []string{"demo"}, []string{"flag --repeat: want 1 to 100 runs of each agent, got 0"}},
		{"repeat over 100", func(o *tasks.CheckOptions) { o.Repeat = 101 }, []string{"demo"}, []string{"flag --repeat: want 1 to 100 runs of each agent, got 101"}},
		{"from-runs with one name", func(o *tasks.CheckOptions) { o.FromRuns = "oracle-x" }, nil,
			[]string{`flag --from-runs: want ORACLE_RUN,NOP_RUN`, `got "oracle-x"`}},
		{"from-runs with three names", func(o *tasks.CheckOptions) { o.FromRuns = "a,b,c" }, nil, []string{`got "a,b,c"`}},
		{"from-runs with task names", func(o *tasks.CheckOptions) { o.FromRuns = "a,b" }, []string{"demo"}, []string{"leave out task names, -l/--selector and --all"}},
		{"from-runs with repeat", func(o *tasks.CheckOptions) { o.FromRuns, o.Repeat = "a,b", 5 }, nil, []string{"flag --repeat: with --from-runs each SweepRun's spec.attempts is the number of runs"}},
		{"all with names", func(o *tasks.CheckOptions) { o.All = true }, []string{"demo"}, []string{"flag --all selects every task"}},
		{"nothing named", func(*tasks.CheckOptions) {}, nil, []string{"name the tasks to check"}},
		{"bad selector", func(o *tasks.CheckOptions) { o.Selector = "a in (" }, nil, []string{"flag -l/--selector"}},
		{"selector matching nothing", func(o *tasks.CheckOptions) { o.Selector = "benchmark=none" }, nil, []string{"no task ConfigMap in namespace " + ns + " matches the selector"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := checkOptions(srv.Cluster(ns))
			tc.set(o)
			_, _, err := clitest.Execute(context.Background(), o, tc.args...)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
	list := &evalv1.SweepRunList{}
	clitest.Must(t, cl.List(context.Background(), list, client.InNamespace(ns)))
	if len(list.Items) != 0 {
		t.Errorf("a refused check started %d SweepRuns", len(list.Items))
	}
}

// appliedRuns are an oracle and a nop SweepRun of demo with two attempts, finished: the
// oracle resolves both bugs, nop resolves b2 in both.
func appliedRuns(t *testing.T, cl client.Client, ns string) {
	t.Helper()
	oracle := clitest.MakeRun(ns, "oracle-run").Tasks("demo").Obj()
	oracle.Spec.Agent, oracle.Spec.Attempts = evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}, 2
	clitest.Must(t, cl.Create(context.Background(), oracle))
	nop := clitest.MakeRun(ns, "nop-run").Tasks("demo").Obj()
	nop.Spec.Attempts = 2
	clitest.Must(t, cl.Create(context.Background(), nop))
	for attempt := int32(1); attempt <= 2; attempt++ {
		clitest.MakeTrial(oracle, "demo", attempt).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 2, true)).FinishWithEval(t, cl, swesweepEval(true, true))
		clitest.MakeTrial(nop, "demo", attempt).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 0, true)).FinishWithEval(t, cl, swesweepEval(false, true))
	}
}

// --from-runs reports on SweepRuns applied by hand and --exclusions merges the bugs that are
// not valid into the list already there; an entry of another task stays.
func TestTasksCheckFromRunsWritesExclusions(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	appliedRuns(t, cl, ns)
	old := `{"schema": "sweep-exclusions/1", "entries": [{"task": "other", "reason": "listed"}, {"task": "demo", "bug": "b2", "reason": "broken"}]}`
	clitest.Must(t, cl.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "validated"},
		Data: map[string]string{exclusions.ConfigMapKey: old}}))
	o := checkOptions(srv.Cluster(ns))
	o.FromRuns = "nop-run,oracle-run"
	_, _, err := clitest.Execute(context.Background(), o)
	sweeptest.ErrorContains(t, err, "flag --from-runs: sweeprun nop-run runs the nop agent, not oracle: pass ORACLE_RUN,NOP_RUN, the oracle SweepRun first")
	o = checkOptions(srv.Cluster(ns))
	o.FromRuns, o.Exclusions, o.Format = "oracle-run,nop-run", "validated", clioptions.OutputJSON
	stdout, _, err := clitest.Execute(context.Background(), o)
	sweeptest.ErrorContains(t, err, "1 of 2 bugs are not valid (trivial 1); the exclusion list in configmap "+ns+"/validated (key exclusions.json) now holds them")
	var report struct {
		Schema     string `json:"schema"`
		Exclusions struct {
			Entries int `json:"entries"`
		} `json:"exclusions"`
		Bugs []struct {
			Bug, Verdict string
			Oracle, Nop  struct{ Resolved, Runs int }
		} `json:"bugs"`
	}
	clitest.Must(t, json.Unmarshal([]byte(stdout), &report))
	if report.Schema != "sweep-validation/1" || report.Exclusions.Entries != 1 || len(report.Bugs) != 2 ||
		report.Bugs[1].Verdict != "trivial" || report.Bugs[1].Nop.Resolved != 2 || report.Bugs[1].Nop.Runs != 2 {
		t.Errorf("report = %s", stdout)
	}
	cm := &corev1.ConfigMap{}
	clitest.Must(t, cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "validated"}, cm))
	got, err := exclusions.Parse("configmap validated", []byte(cm.Data[exclusions.ConfigMapKey]))
	clitest.Must(t, err)
	want := []exclusions.Entry{{Task: "demo", Bug: "b2", Reason: exclusions.Trivial, Detail: "oracle resolved 2/2, nop 2/2"}, {Task: "other", Reason: exclusions.Listed}}
	if diff := cmp.Diff(want, got.Entries); diff != "" {
		t.Errorf("the exclusion list (-want +got):\n%s", diff)
	}
}

// A ConfigMap that holds no valid list is named with its key and the fix; it is left as it
// was and the report is still printed.
func TestTasksCheckInvalidExclusionList(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	appliedRuns(t, cl, ns)
	bad := `{"schema": "sweep-exclusions/1", "entries": [{"task": "demo", "reason": "slow"}]}`
	clitest.Must(t, cl.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "validated"},
		Data: map[string]string{exclusions.ConfigMapKey: bad}}))
	o := checkOptions(srv.Cluster(ns))
	o.FromRuns, o.Exclusions = "oracle-run,nop-run", "validated"
	stdout, _, err := clitest.Execute(context.Background(), o)
	sweeptest.ErrorContains(t, err, "flag --exclusions: configmap "+ns+`/validated: entries[0].reason is "slow"`,
		"nothing was written to it: fix its key exclusions.json (`kubectl edit configmap validated -n "+ns+"`) or delete it",
		"sweep tasks check --from-runs oracle-run,nop-run --exclusions validated -n "+ns, "1 of 2 bugs are not valid (trivial 1)")
	if !strings.Contains(stdout, "demo  b2   2/2     2/2  -            -      trivial") {
		t.Errorf("stdout lacks the report:\n%s", stdout)
	}
	cm := &corev1.ConfigMap{}
	clitest.Must(t, cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "validated"}, cm))
	if cm.Data[exclusions.ConfigMapKey] != bad {
		t.Errorf("the invalid list was changed: %q", cm.Data[exclusions.ConfigMapKey])
	}
}
