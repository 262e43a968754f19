package watch_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/watch"
	"github.com/swe-sweep/sweep-operator/internal/progress"
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

// listCounter counts the List requests a client makes.
type listCounter struct {
	client.WithWatch
	lists atomic.Int32
}

func (c *listCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.lists.Add(1)
	return c.WithWatch.List(ctx, list, opts...)
}

// Following a campaign lists its trials once and takes every later change from watches: the
// progress moves as trials end, and the end reads the trials once more for the report.
func TestFollowWatchesInsteadOfListing(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	run := clitest.MakeRun(ns, "watched").Tasks("a", "b").Create(t, cl)
	running := clitest.MakeTrial(run, "a", 1).Phase(evalv1.TrialAgentRunning).Create(t, cl)
	base, _, err := srv.Cluster(ns).Client()
	if err != nil {
		t.Fatal(err)
	}
	counted := &listCounter{WithWatch: base.(client.WithWatch)}
	var lines []string
	var mu sync.Mutex
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, _, err := campaigns.Follow(ctx, counted, ns, "watched", func(s progress.Snapshot) {
			mu.Lock()
			defer mu.Unlock()
			// The estimate of the time left depends on the test's pace.
			line, _, _ := strings.Cut(s.Line(), ", ETA")
			if len(lines) == 0 || lines[len(lines)-1] != line {
				lines = append(lines, line)
			}
		})
		done <- err
	}()
	seen := func(n int) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return len(lines) >= n }
	}
	clitest.WaitFor(t, "the first progress line", seen(1))
	time.Sleep(10 * clitest.PollInterval)
	if n := counted.lists.Load(); n != 1 {
		t.Errorf("%d lists after 10 poll intervals, want the one first list", n)
	}
	running.Status.Phase = evalv1.TrialSucceeded
	running.Status.Rewards = clitest.SweepRewards(3, 3, true)
	clitest.Must(t, cl.Status().Update(context.Background(), running))
	clitest.WaitFor(t, "the trial's end in the progress", seen(2))
	clitest.MakeTrial(run, "b", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(3, 0, true)).Create(t, cl)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[....................] 0/2 done, 1 running, 0 failed, score 0.0000 (0.00/0 bugs)",
		"[##########..........] 1/2 done, 0 running, 0 failed, score 1.0000 (3.00/3 bugs)",
		"[####################] 2/2 done, 0 running, 0 failed, score 0.5000 (3.00/6 bugs)",
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("progress lines (-want +got):\n%s", diff)
	}
	if n := counted.lists.Load(); n != 2 {
		t.Errorf("%d lists in all, want 2: the first and the final read", n)
	}
}
