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

// writeStatus writes obj's status once, when the reconcile changed it, records evs about obj
// on rec (nil records none) once that write succeeded, and returns the reconcile's own result
// and error unless the write fails. A write that failed records nothing: the next reconcile
// finds the same change and its Events again.
func writeStatus(ctx context.Context, c client.Client, rec events.EventRecorder, obj client.Object, changed bool, evs []statusevents.Event, result ctrl.Result, err error) (ctrl.Result, error) {
	if !changed {
		return result, err
	}
	if uerr := c.Status().Update(ctx, obj); uerr != nil {
		if apierrors.IsConflict(uerr) {
			return ctrl.Result{RequeueAfter: conflictRecheck}, nil
		}
		return ctrl.Result{}, uerr
	}
	if rec != nil {
		for _, e := range evs {
			rec.Eventf(obj, nil, e.Type, e.Reason, e.Action, "%s", e.Note)
		}
	}
	return result, err
}
