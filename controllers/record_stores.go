package controllers

import (
	"context"
	"fmt"
	"sync"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// Stores are the artifact stores records go to: the operator's default (--artifact-store)
// and each SweepRun's own (spec.artifactStore), opened once per URL with the manager's own
// credentials. A nil *Stores, or one without a default, records nothing for a campaign that
// names no store.
type Stores struct {
	// Default is the operator's default store; nil: none.
	Default *recordstore.Store

	mu     sync.Mutex
	opened map[string]*recordstore.Store
}

// storeUnavailable is a record the store did not take, or a store that cannot be opened: the
// trial waits in its phase and retries.
type storeUnavailable struct{ err error }

func (e *storeUnavailable) Error() string { return e.err.Error() }
func (e *storeUnavailable) Unwrap() error { return e.err }

func unavailable(format string, args ...any) error {
	return &storeUnavailable{err: fmt.Errorf(format, args...)}
}

// URL is the URL of run's store as its status shows it, "" when it has none.
func (c *Stores) URL(run *evalv1.SweepRun) string {
	if spec := run.Spec.ArtifactStore; spec != nil {
		if u, err := recordstore.ParseURL(spec.URL); err == nil {
			return recordstore.Redacted(u)
		}
		return ""
	}
	if c == nil || c.Default == nil {
		return ""
	}
	return c.Default.URL()
}

// For is the store of run's records, nil when it has none. Its error is storeUnavailable and
// names the SweepRun's field.
func (c *Stores) For(ctx context.Context, run *evalv1.SweepRun) (*recordstore.Store, error) {
	spec := run.Spec.ArtifactStore
	if c == nil {
		c = &Stores{}
	}
	if spec == nil {
		return c.Default, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.opened[spec.URL]; ok {
		return s, nil
	}
	s, err := recordstore.Open(ctx, spec.URL)
	if err != nil {
		return nil, unavailable("sweeprun %s: spec.artifactStore.url: %w", run.Name, err)
	}
	if c.opened == nil {
		c.opened = map[string]*recordstore.Store{}
	}
	c.opened[spec.URL] = s
	return s, nil
}
