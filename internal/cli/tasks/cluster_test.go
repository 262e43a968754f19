package tasks_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// checkOptions are the flags' defaults.
func checkOptions(cluster *clioptions.Cluster) *tasks.CheckOptions {
	return &tasks.CheckOptions{Cluster: cluster, Parallelism: 10, Format: clioptions.OutputTable}
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
	sweeptest.ErrorContains(t, err, "1 of 3 bugs failed the check", "sweep info "+names["oracle"]+" --per-task")
	if errOut := stderr.String(); !strings.Contains(errOut, "started sweeprun "+names["oracle"]+" (oracle agent)") {
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
	sweeptest.ErrorContains(t, err, "1 of 2 bugs failed the check", want)
	for _, row := range []string{"demo   -    Succeeded      Succeeded      " + want, "hello  -    reward 1.0000  reward 0.0000  ok"} {
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
