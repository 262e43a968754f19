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
	trials := []evalv1.TaskTrial{*a.FinishWithEval(t, cl, `{}`), *b.Create(t, cl)}
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
