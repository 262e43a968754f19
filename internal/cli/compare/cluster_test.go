package compare

import (
	"context"
	"testing"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// Two campaigns in the cluster: run1 is clitest's finished run (arrow's three attempts, agda
// with a grader failure, astropy unmeasured), run2 a rerun where arrow did better and hello
// is new.
func TestCompareCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	clitest.CreateFinishedRun(t, srv.Client, ns, "run1")
	run2 := clitest.MakeRun(ns, "run2").Tasks("arrow", "hello").Create(t, srv.Client)
	for _, w := range []*clitest.TrialWrapper{
		clitest.MakeTrial(run2, "arrow", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(10, 9, true)),
		clitest.MakeTrial(run2, "arrow", 2).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(10, 7, true)),
		clitest.MakeTrial(run2, "hello", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(1, 1, true)),
	} {
		w.Create(t, srv.Client)
	}
	out, stderr, err := clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputTable}, "run1", "run2")
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "compare-cluster.txt", out)
	if want := "sweeprun run1: 1 trials not finished yet are not in the report\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}

	_, _, err = clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputTable}, "no-such-run", "run2")
	sweeptest.ErrorContains(t, err, `argument A: sweeprun "no-such-run" not found in namespace "`+ns+`"`, "kubectl get sweepruns -n "+ns)
}
