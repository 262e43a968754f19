package campaign

import (
	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// UsageOf is a status's usage in internal/usage's terms; a cost that does not parse (a status
// written by hand) is left out.
func UsageOf(u *evalv1.AgentUsage) usage.Usage {
	if u == nil {
		return usage.Usage{}
	}
	out := usage.Usage{InputTokens: u.InputTokens, CacheTokens: u.CachedTokens, OutputTokens: u.OutputTokens}
	if u.CostUSD != "" {
		if d, err := usage.ParseDollars(u.CostUSD); err == nil {
			out.CostUSD = &d
		}
	}
	return out
}

// AgentUsageOf is u as a status writes it.
func AgentUsageOf(u usage.Usage) evalv1.AgentUsage {
	out := evalv1.AgentUsage{InputTokens: u.InputTokens, CachedTokens: u.CacheTokens, OutputTokens: u.OutputTokens}
	if u.CostUSD != nil {
		out.CostUSD = u.CostUSD.String()
	}
	return out
}

// RecordUsage adds what one run of a trial's agent stage reported (its collector's summary)
// to the trial's status.usage: every run that reported was paid for. message says why the
// run's usage file was not taken; the last run's is kept.
func RecordUsage(st *evalv1.TaskTrialStatus, reported *usage.Usage, message string) {
	if (reported == nil || !reported.Reported()) && message == "" {
		return
	}
	sum := UsageOf(trialUsage(st))
	if reported != nil {
		sum.Add(*reported)
	}
	st.Usage = &evalv1.TrialUsage{AgentUsage: AgentUsageOf(sum), Message: message}
}

func trialUsage(st *evalv1.TaskTrialStatus) *evalv1.AgentUsage {
	if st.Usage == nil {
		return nil
	}
	return &st.Usage.AgentUsage
}

// SumUsage is a campaign's status.usage: the sums over every trial that reported usage, those
// a retry superseded included, since their agents ran and were paid for. A regrade runs no
// agent, so its trial reports none and nothing is counted twice. Nil when no trial reported.
func SumUsage(trials []*evalv1.TaskTrial) *evalv1.UsageTotals {
	var sum usage.Usage
	reported := int32(0)
	for i := range trials {
		u := UsageOf(trialUsage(&trials[i].Status))
		if !u.Reported() {
			continue
		}
		sum.Add(u)
		reported++
	}
	if reported == 0 {
		return nil
	}
	return &evalv1.UsageTotals{AgentUsage: AgentUsageOf(sum), Trials: reported}
}
