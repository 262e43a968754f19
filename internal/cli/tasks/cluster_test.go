package tasks_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
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
	bugs := func(b2 string) string {
		return `{"schema": "sweep-eval/1", "regressions": [], "bugs": [{"id": "b1", "resolved": ` + map[bool]string{true: "true", false: "false"}[b2 == "oracle"] + `}, {"id": "b2", "resolved": true}]}`
	}
	names := map[string]string{}
	for i := range list.Items {
		run := &list.Items[i]
		kind := run.Spec.Agent.Kind()
		names[kind] = run.Name
		if len(run.Spec.Tasks.Names) != 2 || run.Spec.Attempts != 1 || run.Spec.RetryPolicy.InfrastructureRetries != 3 {
			t.Errorf("%s run spec = %+v", kind, run.Spec)
		}
		// The oracle resolves both bugs of demo; nop resolves b2 too, which the check flags.
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
