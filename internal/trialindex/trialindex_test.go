package trialindex

import (
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// trial is a trial named name in ns, controlled by the SweepRun campaign ("" for none).
func trial(ns, name, campaign string) *evalv1.TaskTrial {
	t := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if campaign != "" {
		yes := true
		t.OwnerReferences = []metav1.OwnerReference{{APIVersion: evalv1.GroupVersion.String(), Kind: "SweepRun", Name: campaign, Controller: &yes}}
	}
	return t
}

func names(trials []*evalv1.TaskTrial) []string {
	out := []string{}
	for _, t := range trials {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func TestIndex(t *testing.T) {
	a1, a2 := trial("ns", "a-1", "a"), trial("ns", "a-2", "a")
	other := trial("other", "a-1", "a")
	b1 := trial("ns", "b-1", "b")
	notOurs := trial("ns", "loose", "")
	a1Updated := a1.DeepCopy()
	a1Updated.Status.Phase = evalv1.TrialSucceeded
	// An edit that hands a trial to another campaign moves it.
	a2Moved := a2.DeepCopy()
	a2Moved.OwnerReferences[0].Name = "b"
	// An owner that is not a SweepRun is not a campaign.
	foreign := trial("ns", "foreign", "a")
	foreign.OwnerReferences[0].Kind = "Job"

	campaign := func(ns, name string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: name} }
	for _, tc := range []struct {
		name   string
		change func(*Index)
		want   map[types.NamespacedName][]string
	}{
		{name: "empty", change: func(*Index) {},
			want: map[types.NamespacedName][]string{campaign("ns", "a"): {}}},
		{name: "by campaign and namespace; uncontrolled trials left out",
			change: func(ix *Index) {
				for _, tr := range []*evalv1.TaskTrial{a1, a2, other, b1, notOurs, foreign} {
					ix.Store(tr)
				}
			},
			want: map[types.NamespacedName][]string{
				campaign("ns", "a"): {"a-1", "a-2"}, campaign("other", "a"): {"a-1"}, campaign("ns", "b"): {"b-1"},
			}},
		{name: "an update replaces; a change of controller moves",
			change: func(ix *Index) {
				ix.Store(a1)
				ix.Store(a2)
				ix.Update(a1, a1Updated)
				ix.Update(a2, a2Moved)
			},
			want: map[types.NamespacedName][]string{campaign("ns", "a"): {"a-1"}, campaign("ns", "b"): {"a-2"}}},
		{name: "a delete forgets",
			change: func(ix *Index) {
				ix.Store(a1)
				ix.Store(b1)
				ix.Forget(a1)
				ix.Forget(notOurs)
			},
			want: map[types.NamespacedName][]string{campaign("ns", "a"): {}, campaign("ns", "b"): {"b-1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ix Index
			tc.change(&ix)
			for key, want := range tc.want {
				if d := cmp.Diff(want, names(ix.Trials(key))); d != "" {
					t.Errorf("Trials(%s) (-want +got):\n%s", key, d)
				}
			}
		})
	}
}

// TestIndexKeepsTheObjects: the trials are the objects stored, not copies, and the latest.
func TestIndexKeepsTheObjects(t *testing.T) {
	var ix Index
	a1 := trial("ns", "a-1", "a")
	newer := a1.DeepCopy()
	ix.Store(a1)
	ix.Update(a1, newer)
	if got := ix.Trials(types.NamespacedName{Namespace: "ns", Name: "a"}); len(got) != 1 || got[0] != newer {
		t.Errorf("Trials = %v, want the stored object %p", got, newer)
	}
}

// TestIndexConcurrently: the informer's handler writes while reconciles read (go test -race).
func TestIndexConcurrently(t *testing.T) {
	var ix Index
	var wg sync.WaitGroup
	key := types.NamespacedName{Namespace: "ns", Name: "a"}
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				tr := trial("ns", string(rune('a'+w))+"-"+string(rune('0'+i%10)), "a")
				ix.Store(tr)
				_ = ix.Trials(key)
				ix.Forget(tr)
			}
		})
	}
	wg.Wait()
	if got := ix.Trials(key); len(got) != 0 {
		t.Errorf("after every trial was forgotten: %s", names(got))
	}
}
