package campaign

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func TestCheckBudget(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	seconds := func(n int64) *int64 { return &n }
	stopped := &evalv1.BudgetStatus{StoppedBy: BudgetMaxWallSeconds, StoppedTime: &metav1.Time{Time: start.Add(time.Hour)},
		Message: "spec.budget.maxWallSeconds (3600) reached: no new trials start, running ones finish; 4 of 10 planned trials started"}
	cases := map[string]struct {
		budget   *evalv1.BudgetPolicy
		started  bool
		already  *evalv1.BudgetStatus
		now      time.Time
		wantWait time.Duration
		want     *evalv1.BudgetStatus
	}{
		"no budget":           {started: true, now: start.Add(time.Hour)},
		"no wall limit":       {budget: &evalv1.BudgetPolicy{}, started: true, now: start.Add(time.Hour)},
		"not started":         {budget: &evalv1.BudgetPolicy{MaxWallSeconds: seconds(3600)}, now: start.Add(time.Hour)},
		"waits for the limit": {budget: &evalv1.BudgetPolicy{MaxWallSeconds: seconds(3600)}, started: true, now: start.Add(20 * time.Minute), wantWait: 40 * time.Minute},
		"reached on the dot":  {budget: &evalv1.BudgetPolicy{MaxWallSeconds: seconds(3600)}, started: true, now: start.Add(time.Hour), want: stopped},
		"stopped once, stays": {budget: &evalv1.BudgetPolicy{MaxWallSeconds: seconds(3600)}, started: true, already: stopped, now: start.Add(2 * time.Hour), want: stopped},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &evalv1.SweepRun{Spec: evalv1.SweepRunSpec{Budget: tc.budget}}
			run.Status.Budget = tc.already
			if tc.started {
				run.Status.StartTime = &metav1.Time{Time: start}
			}
			wait := CheckBudget(run, tc.now, 10, 4)
			if wait != tc.wantWait {
				t.Errorf("wait = %s, want %s", wait, tc.wantWait)
			}
			if diff := cmp.Diff(tc.want, run.Status.Budget); diff != "" {
				t.Errorf("status.budget (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStarted(t *testing.T) {
	plan := []Planned{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	got := Started(plan, func(name string) bool { return name != "b" })
	if diff := cmp.Diff([]Planned{{Name: "a"}, {Name: "c"}}, got); diff != "" {
		t.Errorf("Started (-want +got):\n%s", diff)
	}
}

func TestCheckBudgetUsage(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tokens := func(n int64) *int64 { return &n }
	spent := func(input, output int64, cost string) *evalv1.UsageTotals {
		return &evalv1.UsageTotals{Trials: 3, AgentUsage: evalv1.AgentUsage{InputTokens: tokens(input), CachedTokens: tokens(input / 2), OutputTokens: tokens(output), CostUSD: cost}}
	}
	stopped := func(by, reached string) *evalv1.BudgetStatus {
		return &evalv1.BudgetStatus{StoppedBy: by, StoppedTime: &metav1.Time{Time: now},
			Message: reached + ": no new trials start, running ones finish; 4 of 10 planned trials started"}
	}
	cases := map[string]struct {
		budget evalv1.BudgetPolicy
		usage  *evalv1.UsageTotals
		want   *evalv1.BudgetStatus
	}{
		"tokens under the limit": {budget: evalv1.BudgetPolicy{MaxTokens: tokens(1000)}, usage: spent(800, 199, "")},
		"tokens at the limit": {budget: evalv1.BudgetPolicy{MaxTokens: tokens(1000)}, usage: spent(800, 200, ""),
			want: stopped(BudgetMaxTokens, "spec.budget.maxTokens (1000) reached by the 1000 tokens the agents of 3 trials reported (input, cached included, plus output)")},
		"tokens over the limit": {budget: evalv1.BudgetPolicy{MaxTokens: tokens(1000)}, usage: spent(900, 200, ""),
			want: stopped(BudgetMaxTokens, "spec.budget.maxTokens (1000) reached by the 1100 tokens the agents of 3 trials reported (input, cached included, plus output)")},
		"cached tokens are not counted twice": {budget: evalv1.BudgetPolicy{MaxTokens: tokens(1001)}, usage: spent(1000, 0, "")},
		"no usage reported yet":               {budget: evalv1.BudgetPolicy{MaxTokens: tokens(1), MaxCostUSD: "0.01"}},
		"a nano-dollar under the limit":       {budget: evalv1.BudgetPolicy{MaxCostUSD: "0.30"}, usage: spent(1, 1, "0.299999999")},
		"cost exactly at the limit": {budget: evalv1.BudgetPolicy{MaxCostUSD: "0.3"}, usage: spent(1, 1, "0.30"),
			want: stopped(BudgetMaxCostUSD, "spec.budget.maxCostUSD (0.3) reached by the 0.30 USD the agents of 3 trials reported")},
		"cost over the limit": {budget: evalv1.BudgetPolicy{MaxCostUSD: "25.00"}, usage: spent(1, 1, "25.000000001"),
			want: stopped(BudgetMaxCostUSD, "spec.budget.maxCostUSD (25.00) reached by the 25.000000001 USD the agents of 3 trials reported")},
		"no cost reported counts nothing": {budget: evalv1.BudgetPolicy{MaxCostUSD: "0.01"}, usage: spent(10, 10, "")},
		"a zero cost budget allows nothing": {budget: evalv1.BudgetPolicy{MaxCostUSD: "0"},
			want: stopped(BudgetMaxCostUSD, "spec.budget.maxCostUSD (0) reached by the 0.00 USD the agents of 0 trials reported")},
		"an unreadable cost limit stops": {budget: evalv1.BudgetPolicy{MaxCostUSD: "lots"}, usage: spent(1, 1, "0.01"),
			want: stopped(BudgetMaxCostUSD, `spec.budget.maxCostUSD: "lots" is not an amount of dollars: want digits with at most 9 decimals, such as 25.00`)},
		"tokens before cost": {budget: evalv1.BudgetPolicy{MaxTokens: tokens(2), MaxCostUSD: "0.01"}, usage: spent(1, 1, "0.01"),
			want: stopped(BudgetMaxTokens, "spec.budget.maxTokens (2) reached by the 2 tokens the agents of 3 trials reported (input, cached included, plus output)")},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &evalv1.SweepRun{Spec: evalv1.SweepRunSpec{Budget: &tc.budget}}
			run.Status.StartTime = &metav1.Time{Time: now.Add(-time.Hour)}
			run.Status.Usage = tc.usage
			if wait := CheckBudget(run, now, 10, 4); wait != 0 {
				t.Errorf("wait = %s, want 0: usage limits are checked as trials report", wait)
			}
			if diff := cmp.Diff(tc.want, run.Status.Budget); diff != "" {
				t.Errorf("status.budget (-want +got):\n%s", diff)
			}
		})
	}
}

// The wall-time limit still says how long to wait when a usage limit is set beside it.
func TestCheckBudgetWaitsBesideUsageLimits(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	seconds, tokens := int64(3600), int64(1000)
	run := &evalv1.SweepRun{Spec: evalv1.SweepRunSpec{Budget: &evalv1.BudgetPolicy{MaxWallSeconds: &seconds, MaxTokens: &tokens}}}
	run.Status.StartTime = &metav1.Time{Time: start}
	if wait := CheckBudget(run, start.Add(20*time.Minute), 10, 4); wait != 40*time.Minute || run.Status.Budget != nil {
		t.Errorf("wait = %s, budget %+v; want 40m and no stop", wait, run.Status.Budget)
	}
}
