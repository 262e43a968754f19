package campaign

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// BudgetMaxWallSeconds names spec.budget.maxWallSeconds in status.budget.stoppedBy.
const BudgetMaxWallSeconds = "maxWallSeconds"

// BudgetDeadline is when spec.budget.maxWallSeconds stops run from starting trials: zero when
// it has no such limit or has not started.
func BudgetDeadline(run *evalv1.SweepRun) time.Time {
	limit := run.Spec.Budget
	if limit == nil || limit.MaxWallSeconds == nil || run.Status.StartTime == nil {
		return time.Time{}
	}
	return run.Status.StartTime.Add(time.Duration(*limit.MaxWallSeconds) * time.Second)
}

// CheckBudget stops run at now when a limit of spec.budget is reached and none stopped it yet;
// planned and started are its trials in all and those created so far. It says how long until
// the limit is reached otherwise (0: no limit to wait for).
func CheckBudget(run *evalv1.SweepRun, now time.Time, planned, started int) (wait time.Duration) {
	deadline := BudgetDeadline(run)
	if deadline.IsZero() || run.Status.Budget != nil {
		return 0
	}
	if now.Before(deadline) {
		return deadline.Sub(now)
	}
	run.Status.Budget = &evalv1.BudgetStatus{StoppedBy: BudgetMaxWallSeconds, StoppedTime: &metav1.Time{Time: now},
		Message: fmt.Sprintf("spec.budget.maxWallSeconds (%d) reached: no new trials start, running ones finish; %d of %d planned trials started",
			*run.Spec.Budget.MaxWallSeconds, started, planned)}
	return 0
}

// Started is the part of plan that exists already: all a campaign stopped by its budget runs.
func Started(plan []Planned, exists func(name string) bool) []Planned {
	var out []Planned
	for _, p := range plan {
		if exists(p.Name) {
			out = append(out, p)
		}
	}
	return out
}
