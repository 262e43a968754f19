package controllers

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/trialindex"
)

// trialEvents enqueues the SweepRun that controls a changed trial after
// campaign.TrialEventDelay: the queue keeps one entry per campaign, so the changes of many
// trials in that time make one reconcile, which reads them all. It records each change in
// the campaign's trial index first, so that the reconcile reads it.
type trialEvents struct {
	// cache is the manager's cache, for the campaign's count of created trials.
	cache client.Reader
	index *trialindex.Index
}

func (h trialEvents) Create(ctx context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if t, ok := e.Object.(*evalv1.TaskTrial); ok {
		h.index.Store(t)
	}
	h.enqueue(ctx, e.Object, q)
}

func (h trialEvents) Update(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	old, okOld := e.ObjectOld.(*evalv1.TaskTrial)
	t, ok := e.ObjectNew.(*evalv1.TaskTrial)
	if okOld && ok {
		h.index.Update(old, t)
	}
	h.enqueue(ctx, e.ObjectNew, q)
}

func (h trialEvents) Delete(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	if t, ok := e.Object.(*evalv1.TaskTrial); ok {
		h.index.Forget(t)
	}
	h.enqueue(ctx, e.Object, q)
}

func (h trialEvents) Generic(ctx context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	h.enqueue(ctx, e.Object, q)
}

func (h trialEvents) enqueue(ctx context.Context, trial client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
	t, ok := trial.(*evalv1.TaskTrial)
	if !ok {
		return
	}
	key, ok := trialindex.Campaign(t)
	if !ok {
		return
	}
	req := reconcile.Request{NamespacedName: key}
	run := &evalv1.SweepRun{}
	if err := h.cache.Get(ctx, req.NamespacedName, run, client.UnsafeDisableDeepCopy); err != nil {
		q.Add(req) // the reconcile reports what the read could not
		return
	}
	q.AddAfter(req, campaign.TrialEventDelay(run.Status.Trials.Created))
}
