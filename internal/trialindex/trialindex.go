// Package trialindex keeps each campaign's TaskTrials as pointers to the manager cache's own
// objects. The cache's List copies every trial struct into a new slice, even with
// UnsafeDisableDeepCopy: at 10,000 trials that is about 13 MB at each SweepRun reconcile, and
// the copies are live while the campaign is summed, so the collector's heap goal grows by
// twice that. The index is fed by the handler that enqueues a trial's campaign, before it
// enqueues: a reconcile a trial's change caused sees that change. The objects are the
// cache's: callers only read them, and copy one (DeepCopy) before changing it.
package trialindex

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// Index is the trials of each campaign, by the SweepRun that controls them. Its zero value is
// empty and ready; it is safe for concurrent use.
type Index struct {
	mu         sync.RWMutex
	byCampaign map[types.NamespacedName]map[string]*evalv1.TaskTrial
}

// Campaign returns the key of the SweepRun that controls t; ok is false for a trial no
// SweepRun controls.
func Campaign(t *evalv1.TaskTrial) (key types.NamespacedName, ok bool) {
	owner := metav1.GetControllerOf(t)
	if owner == nil || owner.Kind != "SweepRun" || owner.APIVersion != evalv1.GroupVersion.String() {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: t.Namespace, Name: owner.Name}, true
}

// Store records t as its campaign's current object of that name (created or updated).
func (ix *Index) Store(t *evalv1.TaskTrial) {
	key, ok := Campaign(t)
	if !ok {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.byCampaign == nil {
		ix.byCampaign = map[types.NamespacedName]map[string]*evalv1.TaskTrial{}
	}
	trials := ix.byCampaign[key]
	if trials == nil {
		trials = map[string]*evalv1.TaskTrial{}
		ix.byCampaign[key] = trials
	}
	trials[t.Name] = t
}

// Forget drops t (deleted, or no longer controlled by that campaign).
func (ix *Index) Forget(t *evalv1.TaskTrial) {
	key, ok := Campaign(t)
	if !ok {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	trials := ix.byCampaign[key]
	delete(trials, t.Name)
	if len(trials) == 0 {
		delete(ix.byCampaign, key)
	}
}

// Update records a trial's change from old to new.
func (ix *Index) Update(old, new *evalv1.TaskTrial) {
	if oldKey, ok := Campaign(old); ok {
		if newKey, ok := Campaign(new); !ok || newKey != oldKey {
			ix.Forget(old)
		}
	}
	ix.Store(new)
}

// Trials is the campaign's trials, in no order.
func (ix *Index) Trials(campaign types.NamespacedName) []*evalv1.TaskTrial {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	trials := ix.byCampaign[campaign]
	out := make([]*evalv1.TaskTrial, 0, len(trials))
	for _, t := range trials {
		out = append(out, t)
	}
	return out
}
