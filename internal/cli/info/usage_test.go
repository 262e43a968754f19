package info_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// `sweep info` prints what the agents reported spending, from the campaign's status.usage, and
// the same from its export, whose result.json files carry it as Harbor's agent_result.
func TestInfoUsage(t *testing.T) {
	srv := clitest.APIServer(t)
	cl := srv.Client
	ns := srv.Namespace(t)
	ctx := context.Background()
	n := func(v int64) *int64 { return &v }
	run := clitest.MakeRun(ns, "spent").Tasks("a", "b").Create(t, cl)
	a := clitest.MakeTrial(run, "a", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 1, true))
	a.Status.Usage = &evalv1.TrialUsage{AgentUsage: evalv1.AgentUsage{InputTokens: n(1200), CachedTokens: n(200), OutputTokens: n(300), CostUSD: "0.0123"}}
	// A trial that failed after its agent ran was paid for all the same.
	b := clitest.MakeTrial(run, "b", 1).Phase(evalv1.TrialFailed).Reason(reasons.VerifierTimeout, "the verifier ran past its timeout")
	b.Status.Usage = &evalv1.TrialUsage{AgentUsage: evalv1.AgentUsage{InputTokens: n(800), OutputTokens: n(100), CostUSD: "0.0077"}}
	trials := []*evalv1.TaskTrial{a.FinishWithEval(t, cl, `{}`), b.Create(t, cl)}
	run.Status.Usage = campaign.SumUsage(trials)
	if err := cl.Status().Update(ctx, run); err != nil {
		t.Fatal(err)
	}

	out, _, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputTable}, "spent")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\nagent usage, as 2 trials' agents reported it: 2000 input tokens (200 of them cached), 400 output tokens, 0.02 USD\n"; !strings.HasSuffix(out, want) {
		t.Errorf("table does not end with %q:\n%s", want, out)
	}
	fromCluster, _, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputJSON}, "spent")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Usage map[string]any `json:"usage"`
	}
	if err := json.Unmarshal([]byte(fromCluster), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n_trials": 2.0, "n_input_tokens": 2000.0, "n_cache_tokens": 200.0, "n_output_tokens": 400.0, "cost_usd": 0.02}
	if diff := cmp.Diff(want, doc.Usage); diff != "" {
		t.Errorf("usage in the JSON report (-want +got):\n%s", diff)
	}

	dir := filepath.Join(t.TempDir(), "job")
	if _, _, err := clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: dir}, "spent"); err != nil {
		t.Fatal(err)
	}
	result, err := os.ReadFile(filepath.Join(dir, harborjob.FolderName(harborjob.Trial{Name: trials[1].Name, Task: "b"}), harborjob.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var exported struct {
		AgentResult map[string]any `json:"agent_result"`
	}
	if err := json.Unmarshal(result, &exported); err != nil {
		t.Fatal(err)
	}
	wantResult := map[string]any{"n_input_tokens": 800.0, "n_cache_tokens": nil, "n_output_tokens": 100.0, "cost_usd": 0.0077}
	if diff := cmp.Diff(wantResult, exported.AgentResult); diff != "" {
		t.Errorf("agent_result of the exported result.json (-want +got):\n%s", diff)
	}
	fromDir, _, err := clitest.Execute(ctx, &info.Options{Format: clioptions.OutputJSON}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromCluster, fromDir); diff != "" {
		t.Errorf("info of the export differs from info of the campaign (-cluster +export):\n%s", diff)
	}
}

// A job folder in a store reports the usage of its result.json files, and names a malformed
// one by the store's URL.
func TestInfoUsageFromStore(t *testing.T) {
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{
		"job/config.json":               `{"job_name": "nightly"}`,
		"job/a__1/verifier/reward.json": `{"reward": 1, "n_subtasks": 2, "n_resolved": 2, "visible_ok": 1}`,
		"job/a__1/result.json":          `{"agent_result": {"n_input_tokens": 10, "n_cache_tokens": null, "n_output_tokens": 2, "cost_usd": 0.5}}`,
		"job/b__1/result.json":          `{"agent_result": {"n_input_tokens": 1.5}, "exception_info": {"exception_type": "AgentFailed"}}`,
		"job/c__1/result.json":          `{"agent_result": null}`,
	})
	store := "file://" + filepath.Join(dir, "store")
	folder := clitest.StoreJob(t, store, filepath.Join(dir, "job"), "evals", "nightly", "0123abcd")
	out, stderr, err := clitest.Execute(context.Background(), &info.Options{Format: clioptions.OutputTable}, store+"/evals/nightly")
	clitest.Must(t, err)
	if want := "agent usage, as 1 trials' agents reported it: 10 input tokens (- of them cached), 2 output tokens, 0.50 USD\n"; !strings.HasSuffix(out, want) {
		t.Errorf("table does not end with %q:\n%s", want, out)
	}
	if want := "warning: usage of " + store + "/" + folder + "b__1/result.json not counted: agent_result: n_input_tokens is 1.5"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}
