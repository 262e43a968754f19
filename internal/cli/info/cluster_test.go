package info_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/passk"
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

// evalJSON is SWE-sweep's eval.json listing bugs b1..bN, those in resolved resolved.
func evalJSON(n int, resolved ...int) string {
	var subtasks []string
	for i := 1; i <= n; i++ {
		subtasks = append(subtasks, fmt.Sprintf(`{"subtask_id": "b%d", "resolved": %t}`, i, slices.Contains(resolved, i)))
	}
	return `{"oracle": false, "subtasks": [` + strings.Join(subtasks, ", ") + `]}`
}

// pass@k in the cluster reads each counted trial's eval.json from its results Secret, and
// gives what `sweep info DIR --pass-at` gives on the campaign's export.
func TestInfoClusterPassAt(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	run := clitest.MakeRun(ns, "run1").Tasks("arrow", "agda").Create(t, srv.Client)
	succeeded := func(task string, attempt int32, rewards map[string]string) *clitest.TrialWrapper {
		return clitest.MakeTrial(run, task, attempt).Phase(evalv1.TrialSucceeded).Rewards(rewards)
	}
	succeeded("arrow", 1, clitest.SweepRewards(3, 1, true)).FinishWithEval(t, srv.Client, evalJSON(3, 1))
	succeeded("arrow", 2, clitest.SweepRewards(3, 2, true)).FinishWithEval(t, srv.Client, evalJSON(3, 1, 2))
	succeeded("arrow", 3, clitest.SweepRewards(3, 3, false)).FinishWithEval(t, srv.Client, evalJSON(3, 1, 2, 3))
	// No results Secret: agda is scored per task.
	succeeded("agda", 1, clitest.SweepRewards(2, 2, true)).Create(t, srv.Client)

	out, stderr, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), PerTask: true, PassAt: []int{1, 2}, Format: clioptions.OutputTable}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "info-cluster-pass-at.txt", out)
	if want := "pass@k: task agda is scored per task, not per bug: tasktrial " + campaign.TrialName("run1", "agda", 1) + ": no eval.json\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}

	jobs := filepath.Join(t.TempDir(), "jobs")
	clitest.Must(t, clioptions.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: jobs}, clioptions.IOStreams{Out: io.Discard, ErrOut: io.Discard}, []string{"run1"}))
	passAt := func(o *info.Options, arg string) passk.Report {
		t.Helper()
		out, _, err := clitest.Execute(ctx, o, arg)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			PassAtK passk.Report `json:"pass_at_k"`
		}
		clitest.Must(t, json.Unmarshal([]byte(out), &doc))
		return doc.PassAtK
	}
	fromCluster := passAt(&info.Options{Cluster: srv.Cluster(ns), PassAt: []int{1, 2}, Format: clioptions.OutputJSON}, "run1")
	fromExport := passAt(&info.Options{PassAt: []int{1, 2}, Format: clioptions.OutputJSON}, jobs)
	if diff := cmp.Diff(fromCluster, fromExport, cmpopts.IgnoreFields(passk.Task{}, "Note")); diff != "" {
		t.Errorf("cluster and export differ (-cluster +export):\n%s", diff)
	}
}

// A campaign that applied an exclusion list says, below SWE-sweep's report, how many tasks and
// bugs it left out and why; the JSON adds them under "exclusions", SWE-sweep's keys unchanged.
func TestInfoClusterExclusions(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	run := clitest.MakeRun(ns, "curated").Tasks("calc", "semver").Create(t, srv.Client)
	run.Status.Exclusions = &evalv1.ExclusionsStatus{ConfigMapName: "excl", Snapshot: campaign.ExclusionsSnapshotName("curated"),
		SHA256: "5ef2bba8a8a32d5e6f0d52bf2a1b3d8dbf98f65b0ebc3e1f35c0e04c9a44f1c0", TasksExcluded: 1, BugsExcluded: 3,
		ByReason: []evalv1.ExclusionCount{{Reason: "trivial", Tasks: 1, Bugs: 2}, {Reason: "flaky", Bugs: 1}}}
	clitest.Must(t, srv.Client.Status().Update(ctx, run))
	clitest.MakeTrial(run, "calc", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 1, true)).Create(t, srv.Client)
	clitest.MakeTrial(run, "semver", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 2, true)).Create(t, srv.Client)

	out, _, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputTable}, "curated")
	if err != nil {
		t.Fatal(err)
	}
	want := `graded tasks:                            2
graded bugs:                             4
bugs resolved in regression-free tasks:  3.00
score:                                   0.7500
score ignoring regressions:              0.7500
mean task reward:                        0.7500
evaluation failures:                     0

excluded by sweeprun curated:  configmap excl (sha256 5ef2bba8a8a3), not in the score
tasks excluded:                1 (trivial 1)
bugs excluded:                 3 (trivial 2, flaky 1)
`
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("table (-want +got):\n%s", d)
	}

	out, _, err = clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputJSON}, "curated")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary    map[string]any   `json:"summary"`
		Exclusions []map[string]any `json:"exclusions"`
	}
	clitest.Must(t, json.Unmarshal([]byte(out), &doc))
	wantExcl := []map[string]any{{"sweeprun": "curated", "configmap": "excl", "sha256": "5ef2bba8a8a32d5e6f0d52bf2a1b3d8dbf98f65b0ebc3e1f35c0e04c9a44f1c0",
		"tasks_excluded": 1.0, "bugs_excluded": 3.0, "by_reason": []any{
			map[string]any{"reason": "trivial", "tasks": 1.0, "bugs": 2.0}, map[string]any{"reason": "flaky", "tasks": 0.0, "bugs": 1.0}}}}
	if d := cmp.Diff(wantExcl, doc.Exclusions); d != "" {
		t.Errorf("exclusions (-want +got):\n%s", d)
	}
	if doc.Summary["graded_bugs"] != 4.0 {
		t.Errorf("summary %v, want graded_bugs 4", doc.Summary)
	}
}
