package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

// installCatalogue bundles testdata/tasks and creates its objects in ns, as kubectl apply -k
// would.
func installCatalogue(t *testing.T, cl client.Client, ns string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "catalogue")
	if _, _, err := runSweepSplit(t, "tasks", "bundle", "testdata/tasks", "--registry", "reg.example/t", "-o", out); err != nil {
		t.Fatal(err)
	}
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	applyRendered(t, cl, ns, rendered)
}

// onlyRun waits for the one SweepRun in ns and returns it.
func onlyRun(t *testing.T, cl client.Client, ns string) *evalv1.SweepRun {
	t.Helper()
	list := &evalv1.SweepRunList{}
	waitFor(t, "a SweepRun in "+ns, func() bool {
		return cl.List(context.Background(), list, client.InNamespace(ns)) == nil && len(list.Items) == 1
	})
	return &list.Items[0]
}

// finishWithEval plays the trial controller: it stores eval.json, then finishes the trial, in
// the controller's order.
func finishWithEval(t *testing.T, cl client.Client, run *evalv1.SweepRun, o trialOutcome, evalJSON string) {
	t.Helper()
	if evalJSON != "" {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: podbuild.ResultsSecretName(campaign.TrialName(run.Name, o.task, o.attempt))},
			Data: map[string][]byte{"eval.json": []byte(evalJSON), "reward.json": rewardJSON(t, o.rewards)}}
		if err := cl.Create(context.Background(), secret); err != nil {
			t.Fatal(err)
		}
	}
	createTrial(t, cl, run, o)
}

func TestEvalNoWait(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	installCatalogue(t, cl, ns)
	out, _, err := runIn(t, kubeconfig, ns, "eval", "demo", "testdata/fix.patch", "--no-wait", "--bugs", "b1,b2", "--timeout", "20m", "--attempts", "2")
	if err != nil {
		t.Fatal(err)
	}
	run := onlyRun(t, cl, ns)
	if out != run.Name+"\n" || !strings.HasPrefix(run.Name, "eval-demo-") {
		t.Errorf("stdout = %q, want the SweepRun's name %s", out, run.Name)
	}
	s := run.Spec
	if s.Tasks.Names[0] != "demo" || strings.Join(s.Tasks.Bugs["demo"], ",") != "b1,b2" || s.Attempts != 2 || s.Parallelism != 2 ||
		s.Timeouts == nil || s.Timeouts.VerifierMultiplier != "2" || s.RetryPolicy.InfrastructureRetries != 3 || s.Agent.Patch == nil {
		t.Errorf("spec = %+v: want demo, bugs b1,b2, 2 attempts at once, verifier multiplier 2 (20m of 600s), default retries, the patch agent", s)
	}
	secret := &corev1.Secret{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: s.Agent.Patch.SecretName}, secret); err != nil {
		t.Fatal(err)
	}
	patch, _ := os.ReadFile("testdata/fix.patch")
	if string(secret.Data["demo"]) != string(patch) || len(secret.OwnerReferences) != 1 || secret.OwnerReferences[0].Name != run.Name {
		t.Errorf("patch secret: data %q, owners %+v; want the patch under key demo, owned by %s", secret.Data["demo"], secret.OwnerReferences, run.Name)
	}
}

func TestEvalWaitsAndPrints(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	for _, tc := range []struct{ golden, format string }{{"eval.txt", "table"}, {"eval.json", "json"}} {
		t.Run(tc.format, func(t *testing.T) {
			ns := testNamespace(t, cl)
			installCatalogue(t, cl, ns)
			type result struct {
				out string
				err error
			}
			done := make(chan result, 1)
			go func() {
				out, _, err := runSweepCtx(context.Background(), "--kubeconfig", kubeconfig, "-n", ns, "eval", "demo", "testdata/fix.patch", "-o", tc.format)
				done <- result{out, err}
			}()
			run := onlyRun(t, cl, ns)
			finishWithEval(t, cl, run, trialOutcome{task: "demo", attempt: 1, phase: evalv1.TrialSucceeded, rewards: sweepRewards(2, 1, true)},
				`{"schema": "sweep-eval/1", "bugs": [{"id": "b1", "resolved": true, "partial": false}, {"id": "b2", "resolved": false, "partial": true}], "regressions": []}`)
			var r result
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("eval did not return after its trial finished")
			}
			if r.err != nil {
				t.Fatal(r.err)
			}
			golden(t, tc.golden, strings.ReplaceAll(r.out, run.Name, "RUN"))
		})
	}
}

func TestEvalNothingMeasured(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	installCatalogue(t, cl, ns)
	errs := make(chan error, 1)
	go func() {
		_, _, err := runSweepCtx(context.Background(), "--kubeconfig", kubeconfig, "-n", ns, "eval", "hello", "testdata/fix.patch")
		errs <- err
	}()
	run := onlyRun(t, cl, ns)
	finishWithEval(t, cl, run, trialOutcome{task: "hello", attempt: 1, phase: evalv1.TrialError, reason: "ImagePullFailed", message: "reg.example/t/hello-verifier: not found"}, "")
	err := <-errs
	errorContains(t, err, "sweeprun "+run.Name+" measured nothing: trial "+run.Name+"-hello-1 ended Error (ImagePullFailed: reg.example/t/hello-verifier: not found)",
		"kubectl describe tasktrial "+run.Name+"-hello-1 -n "+ns)
}

func TestEvalErrors(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	installCatalogue(t, cl, ns)
	big := filepath.Join(t.TempDir(), "big.patch")
	if err := os.WriteFile(big, make([]byte, podbuild.MaxSecretPayload+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"eval", "nosuch", "testdata/fix.patch"}, []string{`task "nosuch" not found in namespace "` + ns + `"`, "eval.sweep.dev/task=nosuch", "sweep tasks bundle"}},
		{[]string{"eval", "demo", "testdata/missing.patch"}, []string{"reading the patch", "missing.patch"}},
		{[]string{"eval", "demo", big}, []string{"has 1048577 bytes, more than the 1048576 a Secret holds"}},
		{[]string{"eval", "demo", "testdata/fix.patch", "--attempts", "0"}, []string{"flag --attempts: want 1 to 100, got 0"}},
		{[]string{"eval", "demo", "testdata/fix.patch", "--timeout", "10000h"}, []string{"flag --timeout 10000h0m0s is more than 999.999 times the task's verifier timeout of 600s"}},
		{[]string{"eval", "demo"}, []string{"accepts 2 arg(s)"}},
	} {
		_, _, err := runIn(t, kubeconfig, ns, tc.args...)
		errorContains(t, err, tc.want...)
	}
	list := &evalv1.SweepRunList{}
	if err := cl.List(context.Background(), list, client.InNamespace(ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("failed evals left %d SweepRuns (%v)", len(list.Items), err)
	}
}
