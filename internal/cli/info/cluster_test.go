package info_test

import (
	"context"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestInfoCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	clitest.CreateFinishedRun(t, srv.Client, ns, "run1")
	out, stderr, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), PerTask: true, Format: clioptions.OutputTable}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "info-cluster-per-task.txt", out)
	if want := "sweeprun run1: 1 trials not finished yet are not in the report\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	out, _, err = clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), PerTask: true, JSON: true, Format: clioptions.OutputTable}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "info-cluster-per-task.json", out)

	_, _, err = clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputTable}, "no-such-run")
	sweeptest.ErrorContains(t, err, `sweeprun "no-such-run" not found in namespace "`+ns+`"`, "kubectl get sweepruns -n "+ns, "not a directory")
	_, _, err = clitest.Execute(ctx, &info.Options{Cluster: clitest.Cluster("/nonexistent/kubeconfig", ""), Format: clioptions.OutputTable}, "run1")
	sweeptest.ErrorContains(t, err, "run1 is not a directory, so it names a sweeprun", "--kubeconfig")
}
