package harborjob

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// UsageTotals sums the agent_result of trials' result.json: what their agents said they
// spent.
type UsageTotals struct {
	usage.Usage
	// Trials counts the result.json files whose agent_result reported usage.
	Trials int
}

// Add adds o's sums to t's.
func (t *UsageTotals) Add(o UsageTotals) {
	t.Usage.Add(o.Usage)
	t.Trials += o.Trials
}

// ReadUsage sums the agent_result (Harbor's AgentContext: n_input_tokens, n_cache_tokens,
// n_output_tokens, cost_usd) of every result.json at any depth below the roots. A result.json
// without one (a job's own, a trial whose agent reported nothing or did not run) counts
// nothing; a malformed one is left out and named in warnings.
func ReadUsage(roots []string) (UsageTotals, []string, error) {
	var sum UsageTotals
	var warnings []string
	for _, root := range roots {
		err := filepath.WalkDir(walkRoot(root), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != ResultFile {
				return nil // unreadable folders are ReadResults' to report
			}
			obj, why := readObject(p)
			if why != "" {
				warnings = append(warnings, fmt.Sprintf("usage of %s not counted: %s", p, why))
				return nil
			}
			raw, ok := obj["agent_result"]
			if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
				return nil
			}
			u, err := usage.Parse(raw)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("usage of %s not counted: agent_result: %v", p, err))
				return nil
			}
			if u.Reported() {
				sum.Add(UsageTotals{Usage: u, Trials: 1})
			}
			return nil
		})
		if err != nil {
			return UsageTotals{}, nil, err
		}
	}
	return sum, warnings, nil
}
