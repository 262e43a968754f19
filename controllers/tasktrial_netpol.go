package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// policyCacheLag is how long a NetworkPolicy the manager created is taken to exist while the
// cache does not show it yet. Past it, a policy the cache lacks (deleted since) is created
// again before the next Job that needs it.
const policyCacheLag = 30 * time.Second

// egressPolicies makes sure the shared egress NetworkPolicies exist (podbuild.NetworkPolicies:
// one a campaign and egress class), creating each once rather than once a trial: the trials of
// a campaign start by the hundred, and the cache shows a new policy only after some of them
// looked for it. The zero value is ready; it is safe for concurrent reconciles.
type egressPolicies struct {
	mu      sync.Mutex
	created map[types.NamespacedName]time.Time
}

// ensure creates np unless the cache shows it or it was created within policyCacheLag.
func (e *egressPolicies) ensure(ctx context.Context, c client.Client, np *networkingv1.NetworkPolicy, now time.Time) error {
	key := client.ObjectKeyFromObject(np)
	e.mu.Lock()
	defer e.mu.Unlock()
	if at, ok := e.created[key]; ok && now.Sub(at) < policyCacheLag {
		return nil
	}
	err := c.Get(ctx, key, &networkingv1.NetworkPolicy{})
	if err == nil {
		delete(e.created, key)
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return err
	}
	if err := c.Create(ctx, np); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create NetworkPolicy %s: %w", np.Name, err)
	}
	if e.created == nil {
		e.created = map[types.NamespacedName]time.Time{}
	}
	e.created[key] = now
	return nil
}
