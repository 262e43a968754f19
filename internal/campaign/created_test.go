package campaign

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestCreatedTrials(t *testing.T) {
	runA := types.NamespacedName{Namespace: "ns", Name: "a"}
	runB := types.NamespacedName{Namespace: "ns", Name: "b"}
	type step struct {
		remember map[types.NamespacedName][]string
		forget   []types.NamespacedName
		seen     []string
		want     []string
	}
	cases := map[string]struct {
		steps []step
	}{
		"nothing remembered": {steps: []step{{seen: []string{"x"}}}},
		"unseen until the cache shows them": {steps: []step{
			{remember: map[types.NamespacedName][]string{runA: {"a-1", "a-2"}}, want: []string{"a-1", "a-2"}},
			{seen: []string{"a-1"}, want: []string{"a-2"}},
			{seen: []string{"a-2"}},
		}},
		"seen once is forgotten": {steps: []step{
			{remember: map[types.NamespacedName][]string{runA: {"a-1"}}, seen: []string{"a-1"}},
			{},
		}},
		"campaigns are apart": {steps: []step{
			{remember: map[types.NamespacedName][]string{runA: {"a-1"}, runB: {"b-1"}}, want: []string{"a-1"}},
		}},
		"forget drops a deleted campaign": {steps: []step{
			{remember: map[types.NamespacedName][]string{runA: {"a-1"}}, forget: []types.NamespacedName{runA}},
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var c CreatedTrials
			for i, s := range tc.steps {
				for run, names := range s.remember {
					for _, n := range names {
						c.Remember(run, n)
					}
				}
				for _, run := range s.forget {
					c.Forget(run)
				}
				got := sets.List(c.Unseen(runA, sets.New(s.seen...)))
				if len(got) == 0 {
					got = nil
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d: Unseen (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}
