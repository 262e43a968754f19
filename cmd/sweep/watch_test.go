package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
)

func init() { campaigns.PollInterval = 20 * time.Millisecond }

const manifest = `apiVersion: eval.sweep.dev/v1alpha1
kind: SweepRun
metadata:
  name: nightly
spec:
  tasks:
    names: [demo]
  agent:
    nop: {}
  attempts: 2
`

func writeManifest(t *testing.T, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// waitFor polls cond until it holds, failing the test after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunCreatesWithServerDefaults(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	out, _, err := runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, manifest))
	if err != nil {
		t.Fatal(err)
	}
	if want := "sweeprun.eval.sweep.dev/nightly created in namespace " + ns + "\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	run := &evalv1.SweepRun{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly"}, run); err != nil {
		t.Fatal(err)
	}
	if run.Spec.Attempts != 2 || run.Spec.Parallelism != 10 || run.Spec.RetryPolicy.InfrastructureRetries != 3 {
		t.Errorf("spec = %+v: want attempts 2 from the file and the CRD's defaults for the rest", run.Spec)
	}
	out, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, manifest))
	if want := "sweeprun.eval.sweep.dev/nightly unchanged in namespace " + ns + "\n"; err != nil || out != want {
		t.Errorf("applying the same file again: %q, %v; want %q", out, err, want)
	}
	out, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, strings.Replace(manifest, "attempts: 2", "attempts: 2\n  parallelism: 4", 1)))
	if want := "sweeprun.eval.sweep.dev/nightly configured in namespace " + ns + "\n"; err != nil || out != want {
		t.Errorf("changing parallelism: %q, %v; want %q", out, err, want)
	}
	_, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, strings.Replace(manifest, "attempts: 2", "attempts: 3", 1)))
	errorContains(t, err, "applying sweeprun nightly in namespace "+ns, "spec.attempts is immutable: create a new SweepRun to change the attempts")
	_, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, strings.Replace(manifest, "nop: {}", "nop: {}\n    oracle: {}", 1)))
	errorContains(t, err, "set exactly one agent kind")
	_, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"))
	errorContains(t, err, `apiVersion "v1" kind "ConfigMap": want apiVersion "eval.sweep.dev/v1alpha1" kind "SweepRun"`)
	_, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, strings.Replace(manifest, "name: nightly", "labels: {}", 1)))
	errorContains(t, err, "metadata.name is empty")
	out, _, err = runIn(t, kubeconfig, ns, "run", "-f", writeManifest(t, strings.Replace(manifest, "name: nightly", "generateName: nightly-", 1)))
	if err != nil || !strings.HasPrefix(out, "sweeprun.eval.sweep.dev/nightly-") || !strings.Contains(out, " created in namespace ") {
		t.Errorf("a manifest with generateName: %q, %v", out, err)
	}
	_, _, err = runIn(t, kubeconfig, ns, "run")
	errorContains(t, err, "flag -f/--filename is required")
	bad := writeManifest(t, "spec: [unclosed")
	_, _, err = runIn(t, kubeconfig, ns, "run", "-f", bad)
	errorContains(t, err, bad+": not YAML or JSON")
	nobody, err := writeKubeconfig(api.env, envtest.User{Name: "nobody-run"})
	must(t, err)
	_, _, err = runIn(t, nobody, ns, "run", "-f", writeManifest(t, manifest))
	errorContains(t, err, "forbidden", "ask for create on sweepruns in this namespace; `sweep infra doctor` checks it")
}

func TestWatchFinished(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	createFinishedRun(t, cl, ns, "done")
	run := &evalv1.SweepRun{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "done"}, run); err != nil {
		t.Fatal(err)
	}
	run.Status.Phase = evalv1.SweepRunSucceeded
	if err := cl.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	out, _, err := runIn(t, kubeconfig, ns, "watch", "done")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "watch-finished.txt", out)
}

func TestRunWatchFollowsUntilDone(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runSweepTo(context.Background(), &stdout, &stderr, "--kubeconfig", kubeconfig, "-n", ns, "run", "-f", writeManifest(t, manifest), "--watch")
	}()
	run := &evalv1.SweepRun{}
	waitFor(t, "the SweepRun", func() bool {
		return cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly"}, run) == nil
	})
	// Play the controllers: one trial graded, and once the watch showed it, one that failed
	// on its image.
	createTrial(t, cl, run, trialOutcome{task: "demo", attempt: 1, phase: evalv1.TrialSucceeded, rewards: sweepRewards(2, 1, true)})
	waitFor(t, "the watch to show the first trial", func() bool { return strings.Contains(stdout.String(), "1/2 done") })
	createTrial(t, cl, run, trialOutcome{task: "demo", attempt: 2, phase: evalv1.TrialError, reason: "ImagePullFailed", message: "reg/demo-env:1: not found"})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run --watch did not return after every trial finished")
	}
	out := stdout.String()
	for _, want := range []string{
		"sweeprun.eval.sweep.dev/nightly created",
		"[##########..........] 1/2 done, 0 running, 0 failed, score 0.5000 (1.00/2 bugs)",
		"failed: nightly-demo-2 (task demo): ImagePullFailed: reg/demo-env:1: not found\n[####################] 2/2 done, 0 running, 1 failed, score 0.5000 (1.00/2 bugs)\n",
		"score:                                   0.5000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestWatchInterruptLeavesTheCampaign(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	createRun(t, cl, ns, "long", "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runSweepTo(ctx, &stdout, &stderr, "--kubeconfig", kubeconfig, "-n", ns, "watch", "long")
	}()
	// Ctrl-C once the watch has shown the campaign and polled it a few more times.
	waitFor(t, "the first progress line", func() bool { return stdout.String() != "" })
	time.Sleep(5 * campaigns.PollInterval)
	cancel()
	err := <-done
	out, errOut := stdout.String(), stderr.String()
	if err != nil {
		t.Fatalf("an interrupted watch is no failure: %v", err)
	}
	if out != "[....................] 0/2 done, 0 running, 0 failed, score 0.0000 (0.00/0 bugs)\n" {
		t.Errorf("stdout = %q: want one progress line (it never changed)", out)
	}
	if want := "stopped watching; sweeprun long keeps running: follow it again with `sweep watch long -n " + ns + "`\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "long"}, &evalv1.SweepRun{}); err != nil {
		t.Errorf("the campaign is gone after Ctrl-C: %v", err)
	}
	_, _, err = runIn(t, kubeconfig, ns, "watch", "missing")
	errorContains(t, err, `sweeprun "missing" not found`)
}

func TestWatchFailedCampaign(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	run := createRun(t, cl, ns, "broken", "nosuchtask")
	run.Status.Phase = evalv1.SweepRunFailedPh
	run.Status.Conditions = []metav1.Condition{{Type: evalv1.SweepRunFailed, Status: "True", Reason: "TasksNotFound", Message: "no task ConfigMap for nosuchtask", LastTransitionTime: metav1.Now()}}
	if err := cl.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	_, _, err := runIn(t, kubeconfig, ns, "watch", "broken")
	errorContains(t, err, "sweeprun broken failed: TasksNotFound: no task ConfigMap for nosuchtask", "kubectl describe sweeprun broken -n "+ns)
}
