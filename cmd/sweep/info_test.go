package main

import (
	"strconv"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

func itoa(n int) string { return strconv.Itoa(n) }

func fraction(a, b int) string { return scoring.Format(float64(a) / float64(b)) }

func TestInfoArgs(t *testing.T) {
	_, _, err := runSweepSplit(t, "info")
	errorContains(t, err, "requires at least 1 arg")
}

func TestInfoCluster(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	createFinishedRun(t, cl, ns, "run1")
	out, stderr, err := runIn(t, kubeconfig, ns, "info", "run1", "--per-task")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "info-cluster-per-task.txt", out)
	if want := "sweeprun run1: 1 trials not finished yet are not in the report\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	out, _, err = runIn(t, kubeconfig, ns, "info", "run1", "--per-task", "--json")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "info-cluster-per-task.json", out)

	_, _, err = runIn(t, kubeconfig, ns, "info", "no-such-run")
	errorContains(t, err, `sweeprun "no-such-run" not found in namespace "`+ns+`"`, "kubectl get sweepruns -n "+ns, "not a directory")
	_, _, err = runSweepSplit(t, "--kubeconfig", "/nonexistent/kubeconfig", "info", "run1")
	errorContains(t, err, "run1 is not a directory, so it names a sweeprun", "--kubeconfig")
}

// createFinishedRun creates a campaign whose trials cover every branch of the score: several
// attempts with a regression (arrow), a grader failure next to a graded trial (agda), an
// infrastructure error and a trial still running (astropy).
func createFinishedRun(t *testing.T, cl client.Client, ns, name string) []*evalv1.TaskTrial {
	t.Helper()
	run := createRun(t, cl, ns, name, "arrow", "agda", "astropy")
	var trials []*evalv1.TaskTrial
	for _, o := range []trialOutcome{
		{task: "arrow", attempt: 1, phase: evalv1.TrialSucceeded, rewards: sweepRewards(10, 4, true)},
		{task: "arrow", attempt: 2, phase: evalv1.TrialSucceeded, rewards: sweepRewards(10, 6, true)},
		{task: "arrow", attempt: 3, phase: evalv1.TrialSucceeded, rewards: sweepRewards(10, 8, false)},
		{task: "agda", attempt: 1, phase: evalv1.TrialSucceeded, rewards: sweepRewards(45, 9, true)},
		{task: "agda", attempt: 2, phase: evalv1.TrialFailed, reason: "GraderFailed", message: "the grader reported grader_failed",
			rewards: map[string]string{"reward": "0", "grader_failed": "1"}},
		{task: "astropy", attempt: 1, phase: evalv1.TrialError, reason: "ImagePullFailed", message: "image reg/astropy-env:1 not found"},
		{task: "astropy", attempt: 2, phase: evalv1.TrialAgentRunning},
	} {
		trials = append(trials, createTrial(t, cl, run, o))
	}
	return trials
}
