package controllers

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// conflictRecheck follows a status write that lost to a newer version of the object. That
// version's watch event reconciles again anyway; the requeue is a backstop.
const conflictRecheck = time.Second

// writeStatus writes obj's status once, when the reconcile changed it, and returns the
// reconcile's own result and error unless the write fails. written, if not nil, runs once the
// write succeeded: what a status change means for the metrics is observed there, so that a
// write lost to a conflict, which the next reconcile redoes, is observed once.
func writeStatus(ctx context.Context, c client.Client, obj client.Object, changed bool, result ctrl.Result, err error, written func()) (ctrl.Result, error) {
	if !changed {
		return result, err
	}
	if uerr := c.Status().Update(ctx, obj); uerr != nil {
		if apierrors.IsConflict(uerr) {
			return ctrl.Result{RequeueAfter: conflictRecheck}, nil
		}
		return ctrl.Result{}, uerr
	}
	if written != nil {
		written()
	}
	return result, err
}
