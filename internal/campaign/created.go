package campaign

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// CreatedTrials remembers, per campaign, the trials a reconciler created (or otherwise wrote)
// that its cache has not shown yet, so that a stale cache can neither cause a double create
// nor let parallelism be exceeded. The zero value is ready; it is safe for concurrent
// reconciles.
type CreatedTrials struct {
	mu      sync.Mutex
	created map[types.NamespacedName]sets.Set[string]
}

// Remember records that trial of campaign run was created.
func (c *CreatedTrials) Remember(run types.NamespacedName, trial string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.created == nil {
		c.created = map[types.NamespacedName]sets.Set[string]{}
	}
	if c.created[run] == nil {
		c.created[run] = sets.New[string]()
	}
	c.created[run].Insert(trial)
}

// Unseen returns the trials of run created but not among seen, and forgets the seen ones.
func (c *CreatedTrials) Unseen(run types.NamespacedName, seen sets.Set[string]) sets.Set[string] {
	c.mu.Lock()
	defer c.mu.Unlock()
	pending := c.created[run]
	if pending == nil {
		return sets.New[string]()
	}
	pending.Delete(seen.UnsortedList()...)
	return pending.Clone()
}

// Forget drops what is remembered of a deleted campaign.
func (c *CreatedTrials) Forget(run types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.created, run)
}
