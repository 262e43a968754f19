package campaign

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func TestToCreate(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: evalv1.SweepRunSpec{Attempts: 2}}
	plan := Plan(run, []Task{{Name: "a"}, {Name: "b"}})
	names := func(ps []Planned) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"r-a-1", "r-a-2", "r-b-1", "r-b-2"}, names(plan)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	cases := map[string]struct {
		existing    []string
		unfinished  int
		parallelism int32
		suspended   bool
		want        []string
	}{
		"fresh start":           {parallelism: 3, want: []string{"r-a-1", "r-a-2", "r-b-1"}},
		"bounded by unfinished": {existing: []string{"r-a-1", "r-a-2"}, unfinished: 2, parallelism: 3, want: []string{"r-b-1"}},
		"finished make room":    {existing: []string{"r-a-1", "r-a-2"}, unfinished: 0, parallelism: 3, want: []string{"r-b-1", "r-b-2"}},
		"full":                  {existing: []string{"r-a-1"}, unfinished: 3, parallelism: 3},
		"suspended":             {parallelism: 3, suspended: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			exists := map[string]bool{}
			for _, n := range tc.existing {
				exists[n] = true
			}
			got := ToCreate(plan, func(n string) bool { return exists[n] }, tc.unfinished, tc.parallelism, tc.suspended)
			if diff := cmp.Diff(tc.want, names(got)); diff != "" {
				t.Errorf("ToCreate (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnfinished(t *testing.T) {
	cases := map[string]struct {
		counts evalv1.TrialCounts
		want   int
	}{
		"none":                       {want: 0},
		"created and unseen count":   {counts: evalv1.TrialCounts{Created: 5, Pending: 2}, want: 5},
		"finished free their slots":  {counts: evalv1.TrialCounts{Created: 6, Succeeded: 2, Failed: 1, Error: 1, Running: 2}, want: 2},
		"all finished hold no slots": {counts: evalv1.TrialCounts{Created: 3, Succeeded: 3}, want: 0},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Unfinished(tc.counts); got != tc.want {
				t.Errorf("Unfinished(%+v) = %d, want %d", tc.counts, got, tc.want)
			}
		})
	}
}
