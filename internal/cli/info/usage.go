package info

import (
	"fmt"
	"io"
	"strconv"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// usageDocument is the JSON report's "usage": what the agents said they spent, in Harbor's
// names (n_input_tokens counts the cached tokens too), over n_trials trials that reported it.
type usageDocument struct {
	Trials int `json:"n_trials"`
	usage.Usage
}

// newUsageDocument is nil when no trial reported usage, so that the report stays SWE-sweep's.
func newUsageDocument(sum harborjob.UsageTotals) *usageDocument {
	if sum.Trials == 0 {
		return nil
	}
	return &usageDocument{Trials: sum.Trials, Usage: sum.Usage}
}

// campaignUsage is a SweepRun's status.usage: every trial whose agent ran, those a retry
// superseded included.
func campaignUsage(run *evalv1.SweepRun) harborjob.UsageTotals {
	if run.Status.Usage == nil {
		return harborjob.UsageTotals{}
	}
	return harborjob.UsageTotals{Usage: campaign.UsageOf(&run.Status.Usage.AgentUsage), Trials: int(run.Status.Usage.Trials)}
}

// writeUsage adds the usage line to the table, when a trial reported usage.
func writeUsage(w io.Writer, sum harborjob.UsageTotals) error {
	if sum.Trials == 0 {
		return nil
	}
	tokens := func(n *int64) string {
		if n == nil {
			return "-"
		}
		return strconv.FormatInt(*n, 10)
	}
	spent := "-"
	if sum.CostUSD != nil {
		spent = sum.CostUSD.String()
	}
	_, err := fmt.Fprintf(w, "\nagent usage, as %d trials' agents reported it: %s input tokens (%s of them cached), %s output tokens, %s USD\n",
		sum.Trials, tokens(sum.InputTokens), tokens(sum.CacheTokens), tokens(sum.OutputTokens), spent)
	return err
}
