package campaign

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// The spec.budget fields status.budget.stoppedBy names.
const (
	BudgetMaxWallSeconds = "maxWallSeconds"
	BudgetMaxTokens      = "maxTokens"
	BudgetMaxCostUSD     = "maxCostUSD"
)

// BudgetDeadline is when spec.budget.maxWallSeconds stops run from starting trials: zero when
// it has no such limit or has not started.
func BudgetDeadline(run *evalv1.SweepRun) time.Time {
	limit := run.Spec.Budget
	if limit == nil || limit.MaxWallSeconds == nil || run.Status.StartTime == nil {
		return time.Time{}
	}
	return run.Status.StartTime.Add(time.Duration(*limit.MaxWallSeconds) * time.Second)
}

// CheckBudget stops run at now when a limit of spec.budget is reached and none stopped it yet:
// its wall time, or the tokens or cost its agents reported (status.usage, which the caller
// sums first). planned and started are its trials in all and those created so far. It says
// how long until the wall-time limit is reached otherwise (0: no limit to wait for; usage
// limits are checked again as trials report).
func CheckBudget(run *evalv1.SweepRun, now time.Time, planned, started int) (wait time.Duration) {
	if run.Spec.Budget == nil || run.Status.Budget != nil {
		return 0
	}
	field, reached := "", ""
	deadline := BudgetDeadline(run)
	switch {
	case !deadline.IsZero() && !now.Before(deadline):
		field, reached = BudgetMaxWallSeconds, fmt.Sprintf("spec.budget.maxWallSeconds (%d) reached", *run.Spec.Budget.MaxWallSeconds)
	case !deadline.IsZero():
		wait = deadline.Sub(now)
	}
	if field == "" {
		field, reached = usageLimit(run.Spec.Budget, run.Status.Usage)
	}
	if field == "" {
		return wait
	}
	run.Status.Budget = &evalv1.BudgetStatus{StoppedBy: field, StoppedTime: &metav1.Time{Time: now},
		Message: fmt.Sprintf("%s: no new trials start, running ones finish; %d of %d planned trials started", reached, started, planned)}
	return 0
}

// usageLimit is the usage limit of budget that spent reached, and what was reached; "" when
// none. The limits compare exactly: tokens as integers, dollars as nano-dollars. A maxCostUSD
// that is no amount (the CRD's pattern keeps one out) stops the campaign: a budget that
// cannot be read is not a licence to spend.
func usageLimit(budget *evalv1.BudgetPolicy, totals *evalv1.UsageTotals) (field, reached string) {
	var spent usage.Usage
	trials := int32(0)
	if totals != nil {
		spent, trials = UsageOf(&totals.AgentUsage), totals.Trials
	}
	if budget.MaxTokens != nil && spent.Tokens() >= *budget.MaxTokens {
		return BudgetMaxTokens, fmt.Sprintf("spec.budget.maxTokens (%d) reached by the %d tokens the agents of %d trials reported (input, cached included, plus output)",
			*budget.MaxTokens, spent.Tokens(), trials)
	}
	if budget.MaxCostUSD == "" {
		return "", ""
	}
	limit, err := usage.ParseDollars(budget.MaxCostUSD)
	if err != nil {
		return BudgetMaxCostUSD, fmt.Sprintf("spec.budget.maxCostUSD: %v", err)
	}
	if spent.Cost() >= limit {
		return BudgetMaxCostUSD, fmt.Sprintf("spec.budget.maxCostUSD (%s) reached by the %s USD the agents of %d trials reported", budget.MaxCostUSD, spent.Cost(), trials)
	}
	return "", ""
}

// Started is the part of plan that exists already: all a campaign stopped by its budget runs.
func Started(plan []Planned, exists func(name string) bool) []Planned {
	n := 0
	for i := range plan {
		if exists(plan[i].Name) {
			n++
		}
	}
	// Counted first: the plan is the campaign's every trial, at each reconcile.
	out := make([]Planned, 0, n)
	for i := range plan {
		if exists(plan[i].Name) {
			out = append(out, plan[i])
		}
	}
	return out
}
