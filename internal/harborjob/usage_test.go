package harborjob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// A trial's usage is result.json's agent_result in Harbor's names, and reads back summed.
func TestUsageWriteThenRead(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	cost := usage.Dollars(12_345_000)
	job := Job{Name: "run1", Agent: "external", Trials: []Trial{
		{Name: "run1-a-1", Task: "a", Usage: &usage.Usage{InputTokens: n(1200), CacheTokens: n(200), OutputTokens: n(300), CostUSD: &cost}},
		{Name: "run1-b-1", Task: "b", Usage: &usage.Usage{OutputTokens: n(5)}},
		{Name: "run1-c-1", Task: "c", RegradeOf: "run1-c-0"},
	}}
	dir := t.TempDir()
	if err := Write(dir, job); err != nil {
		t.Fatal(err)
	}
	res, err := os.ReadFile(filepath.Join(dir, FolderName(job.Trials[0]), ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `"agent_result": {
    "n_input_tokens": 1200,
    "n_cache_tokens": 200,
    "n_output_tokens": 300,
    "cost_usd": 0.012345
  },`
	if !strings.Contains(string(res), want) {
		t.Errorf("result.json lacks\n%s\nin\n%s", want, res)
	}
	if res, _ := os.ReadFile(filepath.Join(dir, FolderName(job.Trials[2]), ResultFile)); !strings.Contains(string(res), `"agent_result": null,`) {
		t.Errorf("a regrade's result.json reports usage:\n%s", res)
	}
	// A result.json someone edited badly is named, and the rest still counts.
	bad := filepath.Join(dir, "elsewhere__1234567", ResultFile)
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"agent_result": {"n_input_tokens": -1}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, warnings, err := ReadUsage([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	sum := UsageTotals{Trials: 2, Usage: usage.Usage{InputTokens: n(1200), CacheTokens: n(200), OutputTokens: n(305), CostUSD: &cost}}
	if diff := cmp.Diff(sum, got); diff != "" {
		t.Errorf("ReadUsage (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"usage of " + bad + " not counted: agent_result: n_input_tokens is -1: want an integer from 0 to 2^53"}, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
