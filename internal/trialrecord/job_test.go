package trialrecord

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
)

// A campaign's job folder records the exclusion list it applied, from its status.
func TestJobExclusions(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "curated"}, Spec: evalv1.SweepRunSpec{Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}},
		Status: evalv1.SweepRunStatus{Exclusions: &evalv1.ExclusionsStatus{ConfigMapName: "excl", Snapshot: "curated-exclusions", SHA256: "5ef2", TasksExcluded: 1, BugsExcluded: 3,
			ByReason: []evalv1.ExclusionCount{{Reason: "trivial", Tasks: 1, Bugs: 2}, {Reason: "flaky", Bugs: 1}}}}}
	want := &harborjob.Exclusions{ConfigMap: "excl", SHA256: "5ef2", TasksExcluded: 1, BugsExcluded: 3,
		ByReason: map[string]harborjob.ExclusionCount{"trivial": {Tasks: 1, Bugs: 2}, "flaky": {Bugs: 1}}}
	if d := cmp.Diff(want, Job(run, "").Exclusions); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	run.Status.Exclusions = nil
	if got := Job(run, "").Exclusions; got != nil {
		t.Errorf("a campaign without a list records %+v", got)
	}
}
