package controllers

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swe-sweep/sweep-operator/internal/statusevents"
)

// conflictRecheck follows a status write that lost to a newer version of the object. That
// version's watch event reconciles again anyway; the requeue is a backstop.
const conflictRecheck = time.Second

// EventSource is the reporting controller of the manager's Events.
const EventSource = "sweep-operator"

// afterWrite is what a successful status write sets off: the Events of the change about the
// object (on rec; nil records none), then observe, if set (what the metrics observe of it, or
// the time of the write).
type afterWrite struct {
	rec     events.EventRecorder
	events  []statusevents.Event
	observe func()
}

// writeStatus writes obj's status once, when the reconcile changed it in a way worth a write
// (changed, internal/statuswrite), runs after once that write succeeded, and returns the
// reconcile's own result and error unless the write fails. A write that failed sets nothing
// off: the next reconcile finds the same change, so its Events and metrics are recorded once.
func writeStatus(ctx context.Context, c client.Client, obj client.Object, changed bool, result ctrl.Result, err error, after afterWrite) (ctrl.Result, error) {
	if !changed {
		return result, err
	}
	if uerr := c.Status().Update(ctx, obj); uerr != nil {
		if apierrors.IsConflict(uerr) {
			return ctrl.Result{RequeueAfter: conflictRecheck}, nil
		}
		return ctrl.Result{}, uerr
	}
	if after.rec != nil {
		for _, e := range after.events {
			after.rec.Eventf(obj, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
		}
	}
	if after.observe != nil {
		after.observe()
	}
	return result, err
}
