package main

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func TestTasksCheck(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	installCatalogue(t, cl, ns)
	type result struct {
		out, errOut string
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, err := runSweepCtx(context.Background(), "--kubeconfig", kubeconfig, "-n", ns, "tasks", "check", "demo", "hello")
		done <- result{out, errOut, err}
	}()
	list := &evalv1.SweepRunList{}
	waitFor(t, "the oracle and nop SweepRuns", func() bool {
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
		finishWithEval(t, cl, run, trialOutcome{task: "demo", attempt: 1, phase: evalv1.TrialSucceeded, rewards: sweepRewards(2, 2, true)}, bugs(kind))
		reward := map[string]string{"oracle": "1.0000", "nop": "0.0000"}[kind]
		createTrial(t, cl, run, trialOutcome{task: "hello", attempt: 1, phase: evalv1.TrialSucceeded, rewards: map[string]string{"reward": reward}})
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("tasks check did not return after both runs finished")
	}
	golden(t, "tasks-check.txt", r.out)
	errorContains(t, r.err, "1 of 3 bugs failed the check", "sweep info "+names["oracle"]+" --per-task")
	if !strings.Contains(r.errOut, "started sweeprun "+names["oracle"]+" (oracle agent)") {
		t.Errorf("stderr = %q", r.errOut)
	}
}

func TestTasksCheckErrors(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	_, _, err := runIn(t, kubeconfig, ns, "tasks", "check", "demo")
	errorContains(t, err, `task "demo" not found in namespace "`+ns+`"`)
	installCatalogue(t, cl, ns)
	cm := &corev1.ConfigMap{}
	must(t, cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "demo"}, cm))
	delete(cm.Annotations, evalv1.AnnotationSolution)
	must(t, cl.Update(context.Background(), cm))
	_, _, err = runIn(t, kubeconfig, ns, "tasks", "check", "demo")
	errorContains(t, err, "task demo: configmap demo has no eval.sweep.dev/solution-configmap annotation", "add solution/ to the task and bundle it again")
	list := &evalv1.SweepRunList{}
	must(t, cl.List(context.Background(), list, client.InNamespace(ns)))
	if len(list.Items) != 0 {
		t.Errorf("a refused check started %d SweepRuns", len(list.Items))
	}
}
