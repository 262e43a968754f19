package controllers

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// Stores are the artifact stores records go to: the operator's default (--artifact-store)
// and each SweepRun's own (spec.artifactStore), opened once per URL and version of its
// credentials Secret. A nil *Stores, or one without a default, records nothing for a
// campaign that names no store.
type Stores struct {
	// Default is the operator's default store; nil: none.
	Default *recordstore.Store

	mu     sync.Mutex
	opened map[string]openedStore
}

type openedStore struct {
	secretVersion string
	store         *recordstore.Store
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

// For is the store of run's records, nil when it has none. Its errors are storeUnavailable
// and name the SweepRun's field and the fix.
func (c *Stores) For(ctx context.Context, cl client.Reader, run *evalv1.SweepRun) (*recordstore.Store, error) {
	spec := run.Spec.ArtifactStore
	if spec == nil {
		if c == nil {
			return nil, nil
		}
		return c.Default, nil
	}
	var creds *recordstore.Credentials
	version := ""
	if spec.CredentialsSecret != "" {
		secret := &corev1.Secret{}
		key := client.ObjectKey{Namespace: run.Namespace, Name: spec.CredentialsSecret}
		err := cl.Get(ctx, key, secret)
		switch {
		case apierrors.IsNotFound(err):
			return nil, unavailable("sweeprun %s: spec.artifactStore.credentialsSecret %q: no such Secret in namespace %s: create it with the keys %s and %s",
				run.Name, spec.CredentialsSecret, run.Namespace, recordstore.CredentialAccessKeyID, recordstore.CredentialSecretAccessKey)
		case apierrors.IsForbidden(err):
			return nil, unavailable("sweeprun %s: spec.artifactStore.credentialsSecret %q: the manager may not read it (%v): grant the manager's ServiceAccount get on that one Secret with a Role (resourceNames: [%s]) and a RoleBinding in namespace %s",
				run.Name, spec.CredentialsSecret, err, spec.CredentialsSecret, run.Namespace)
		case err != nil:
			return nil, unavailable("sweeprun %s: reading spec.artifactStore.credentialsSecret %q: %w", run.Name, spec.CredentialsSecret, err)
		}
		if creds, err = recordstore.CredentialsFromSecret(key.String(), secret.Data); err != nil {
			return nil, unavailable("sweeprun %s: spec.artifactStore.credentialsSecret: %w", run.Name, err)
		}
		version = secret.ResourceVersion
	}
	id := run.Namespace + "/" + spec.CredentialsSecret + " " + spec.URL
	if c == nil {
		c = &Stores{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.opened[id]; ok && o.secretVersion == version {
		return o.store, nil
	} else if ok {
		_ = o.store.Close() // replaced by the Secret's new version; a close error changes nothing
	}
	s, err := recordstore.Open(ctx, spec.URL, creds)
	if err != nil {
		return nil, unavailable("sweeprun %s: spec.artifactStore.url: %w", run.Name, err)
	}
	if c.opened == nil {
		c.opened = map[string]openedStore{}
	}
	c.opened[id] = openedStore{secretVersion: version, store: s}
	return s, nil
}
