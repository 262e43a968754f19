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
