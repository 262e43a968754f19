// Package timing is what the measuring programs under test/ share: distributions of
// durations, and watches that note the moment each change of an object reaches them.
package timing

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Dist is a distribution's size and percentiles, in the unit of its samples (seconds here).
type Dist struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Distribution is the nearest-rank percentiles of xs (which it sorts).
func Distribution(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	sort.Float64s(xs)
	at := func(q float64) float64 { return xs[min(len(xs)-1, int(math.Ceil(q*float64(len(xs))))-1)] }
	return Dist{Count: len(xs), P50: at(0.50), P90: at(0.90), P99: at(0.99), Max: xs[len(xs)-1]}
}

// Handler is called with each object of Object's kind that a watch adds or updates, and the
// moment the change reached the watch (the watch's own clock: milliseconds and better, where
// the timestamps the API server and the kubelet record have whole seconds).
type Handler struct {
	Object client.Object
	On     func(obj any, seen time.Time)
}

// Watch starts a cache of namespace ns with handlers and returns once it has synced. It runs
// until ctx ends.
func Watch(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, ns string, handlers ...Handler) (cache.Cache, error) {
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{ns: {}},
		DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		return nil, err
	}
	for _, h := range handlers {
		inf, err := c.GetInformer(ctx, h.Object)
		if err != nil {
			return nil, err
		}
		on := h.On
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { on(obj, time.Now()) },
			UpdateFunc: func(_, obj any) { on(obj, time.Now()) },
		}); err != nil {
			return nil, err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the watch of namespace %s did not sync", ns)
	}
	return c, nil
}
