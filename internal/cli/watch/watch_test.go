package watch_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/watch"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestWatchFinished(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.CreateFinishedRun(t, cl, ns, "done")
	run := &evalv1.SweepRun{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "done"}, run); err != nil {
		t.Fatal(err)
	}
	run.Status.Phase = evalv1.SweepRunSucceeded
	if err := cl.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	out, _, err := clitest.Execute(context.Background(), &watch.Options{Cluster: srv.Cluster(ns)}, "done")
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "watch-finished.txt", out)
}

func TestWatchInterruptLeavesTheCampaign(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.MakeRun(ns, "long").Tasks("a", "b").Create(t, cl)
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr, done := clitest.Start(ctx, &watch.Options{Cluster: srv.Cluster(ns)}, "long")
	// Ctrl-C once the watch has shown the campaign and polled it a few more times.
	clitest.WaitFor(t, "the first progress line", func() bool { return stdout.String() != "" })
	time.Sleep(5 * clitest.PollInterval)
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
	_, _, err = clitest.Execute(context.Background(), &watch.Options{Cluster: srv.Cluster(ns)}, "missing")
	sweeptest.ErrorContains(t, err, `sweeprun "missing" not found`)
}

func TestWatchFailedCampaign(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	run := clitest.MakeRun(ns, "broken").Tasks("nosuchtask").Create(t, cl)
	run.Status.Phase = evalv1.SweepRunFailedPh
	run.Status.Conditions = []metav1.Condition{{Type: evalv1.SweepRunFailed, Status: "True", Reason: "TasksNotFound", Message: "no task ConfigMap for nosuchtask", LastTransitionTime: metav1.Now()}}
	if err := cl.Status().Update(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	_, _, err := clitest.Execute(context.Background(), &watch.Options{Cluster: srv.Cluster(ns)}, "broken")
	sweeptest.ErrorContains(t, err, "sweeprun broken failed: TasksNotFound: no task ConfigMap for nosuchtask", "kubectl describe sweeprun broken -n "+ns)
}
