package controllers

import (
	"context"
	"io"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/metrics"
	"github.com/swe-sweep/sweep-operator/internal/readiness"
	"github.com/swe-sweep/sweep-operator/internal/statusevents"
	"github.com/swe-sweep/sweep-operator/internal/statuswrite"
)

// LogReader streams a container's log; the real one reads pods/log.
type LogReader interface {
	ContainerLog(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error)
}

// PodLogReader reads logs through the Kubernetes API.
type PodLogReader struct{ Clientset kubernetes.Interface }

// ContainerLog implements LogReader.
func (r PodLogReader) ContainerLog(ctx context.Context, namespace, pod, container string) (io.ReadCloser, error) {
	return r.Clientset.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container}).Stream(ctx)
}

// TaskTrialReconciler runs one trial: agent Job, harvest, verifier Job, harvest, score.
type TaskTrialReconciler struct {
	client.Client
	Logs LogReader
	// HookImage is the sweep-hook image of the install init container and the collector.
	HookImage string
	// StartTimeout bounds the time from a stage Job's creation to its main container starting.
	StartTimeout time.Duration
	// MaxConcurrentReconciles is the controller's concurrency.
	MaxConcurrentReconciles int
	// Events records the trial's Events (statusevents.ForTrial); nil records none.
	Events events.EventRecorder
	// Stores are the artifact stores the trials' records go to; nil records none unless a
	// SweepRun names its own.
	Stores *Stores

	// replaced is, per trial, the version its last status write replaced: a reconcile that
	// reads it reads the trial from before that write (the cache lags) and waits for the
	// write's own watch event instead of redoing what it recorded. jobsDeleted is the version
	// at which a finished trial's Jobs were deleted, so that they are deleted once.
	replaced, jobsDeleted statuswrite.Versions
	// policies are the egress NetworkPolicies this manager created.
	policies egressPolicies
}

// +kubebuilder:rbac:groups=eval.sweep.dev,resources=tasktrials,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=eval.sweep.dev,resources=tasktrials/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete;deletecollection
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create

// Reconcile gathers the trial's changes and writes its status once.
func (r *TaskTrialReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	trial := &evalv1.TaskTrial{}
	if err := r.Get(ctx, req.NamespacedName, trial); err != nil {
		if apierrors.IsNotFound(err) {
			r.replaced.Forget(req.NamespacedName)
			r.jobsDeleted.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !trial.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if r.replaced.Is(req.NamespacedName, trial.ResourceVersion) {
		return ctrl.Result{RequeueAfter: conflictRecheck}, nil
	}
	replacedVersion := trial.ResourceVersion
	before := trial.Status.DeepCopy()
	s := &trialScope{r: r, trial: trial, now: time.Now()}
	result, err := s.run(ctx)
	trial.Status.ObservedGeneration = trial.Generation
	readiness.Set(&trial.Status.Conditions, trial.Generation, readiness.Trial(&trial.Status))
	return writeStatus(ctx, r.Client, trial, statuswrite.Trial(before, &trial.Status), result, err,
		afterWrite{rec: r.Events, events: statusevents.ForTrial(before, &trial.Status), observe: func() {
			r.replaced.Set(req.NamespacedName, replacedVersion)
			metrics.TrialWritten(before, trial, s.replacedAgent)
		}})
}

// podJobIndex indexes the cached Pods by the Job that made them (its job-name label), so that
// a stage's Pod is found by a lookup: matching the label instead reads every trial Pod of the
// namespace, a campaign's parallelism of them, at every reconcile of every trial.
const podJobIndex = "metadata.labels." + batchv1.JobNameLabel

func podJob(o client.Object) []string {
	if name := o.GetLabels()[batchv1.JobNameLabel]; name != "" {
		return []string{name}
	}
	return nil
}

// SetupWithManager watches trials (their own status writes included: a recorded end is what
// lets the next reconcile delete the trial's Jobs), their Jobs, and their Pods by the
// trial label, so that a Pod stuck pulling an image is noticed before its Job ends.
func (r *TaskTrialReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, podJobIndex, podJob); err != nil {
		return err
	}
	podToTrial := handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
		name := o.GetLabels()[evalv1.LabelTrial]
		if name == "" {
			return nil
		}
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&evalv1.TaskTrial{}).
		Owns(&batchv1.Job{}).
		Watches(&corev1.Pod{}, podToTrial).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("tasktrial").
		Complete(r)
}
