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

// The fixture job exercises every branch of the score: several attempts with a regression
// (arrow), a grader failure next to a graded trial (agda), a task whose only trial failed
// grading (astropy), reward-only tasks read from reward.json and reward.txt with the task named
// by result.json (hello-world, skipped by the score), and a trial without a reward (fix-the-bug).
func TestInfoDir(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"info-dir.txt", nil},
		{"info-dir-per-task.txt", []string{"--per-task"}},
		{"info-dir-per-task.json", []string{"--per-task", "--json"}},
		{"info-dir.json", []string{"-o", "json"}},
		{"info-dir.yaml", []string{"-o", "yaml"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, _, err := runSweepSplit(t, append([]string{"info", "testdata/harbor-job"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, out)
		})
	}
}

func TestInfoErrors(t *testing.T) {
	_, _, err := runSweepSplit(t, "info", "testdata/harbor-job", "-o", "xml")
	errorContains(t, err, "flag -o/--output", `"xml"`, "table, json or yaml")
	empty := t.TempDir()
	_, _, err = runSweepSplit(t, "info", empty)
	errorContains(t, err, empty+": no trial folders", "sweep export")
	_, _, err = runSweepSplit(t, "info")
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
