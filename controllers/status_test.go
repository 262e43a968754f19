package controllers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/statusevents"
)

// TestWriteStatus: the status is written once when changed, and its Events and metrics are
// recorded only once that write succeeded.
func TestWriteStatus(t *testing.T) {
	reconcileErr := errors.New("reconcile failed")
	conflict := apierrors.NewConflict(schema.GroupResource{Group: "eval.sweep.dev", Resource: "tasktrials"}, "t", errors.New("stale"))
	cases := map[string]struct {
		changed    bool
		updateErr  error
		result     ctrl.Result
		err        error
		wantResult ctrl.Result
		wantErr    error
		wantWrites int
		wantEvents []string
		wantCalls  int
	}{
		"unchanged is not written": {result: ctrl.Result{RequeueAfter: time.Minute}, wantResult: ctrl.Result{RequeueAfter: time.Minute}},
		"changed is written once": {changed: true, result: ctrl.Result{RequeueAfter: time.Minute}, err: reconcileErr,
			wantResult: ctrl.Result{RequeueAfter: time.Minute}, wantErr: reconcileErr, wantWrites: 1,
			wantEvents: []string{"Normal TrialRunning phase Pending", "Warning PodEvicted 100% evicted"}, wantCalls: 1},
		"conflict rechecks soon": {changed: true, updateErr: conflict, err: reconcileErr,
			wantResult: ctrl.Result{RequeueAfter: conflictRecheck}, wantWrites: 1},
		"other write errors are returned": {changed: true, updateErr: reconcileErr, result: ctrl.Result{RequeueAfter: time.Minute},
			wantErr: reconcileErr, wantWrites: 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			trial := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "ns"}}
			writes := 0
			c := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithObjects(trial).WithStatusSubresource(trial).
				WithInterceptorFuncs(interceptor.Funcs{SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
					writes++
					if tc.updateErr != nil {
						return tc.updateErr
					}
					return c.SubResource(sub).Update(ctx, obj, opts...)
				}}).Build()
			trial.Status.Phase = evalv1.TrialPending
			rec := events.NewFakeRecorder(10)
			evs := []statusevents.Event{{Type: corev1.EventTypeNormal, Reason: reasons.TrialRunning, Note: "phase Pending"},
				{Type: corev1.EventTypeWarning, Reason: reasons.PodEvicted, Note: "100% evicted"}}
			calls := 0
			result, err := writeStatus(context.Background(), c, trial, tc.changed, tc.result, tc.err,
				afterWrite{rec: rec, events: evs, observe: func() { calls++ }})
			close(rec.Events)
			var recorded []string
			for e := range rec.Events {
				recorded = append(recorded, e)
			}
			if diff := cmp.Diff(tc.wantEvents, recorded); diff != "" {
				t.Errorf("events, recorded only after a successful write (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantResult, result); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if calls != tc.wantCalls {
				t.Errorf("metrics observed %d times, want %d", calls, tc.wantCalls)
			}
			if writes != tc.wantWrites {
				t.Errorf("status writes = %d, want %d", writes, tc.wantWrites)
			}
		})
	}
}
