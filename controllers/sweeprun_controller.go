package controllers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

// SweepRunReconciler fans a campaign out into trials and aggregates them.
type SweepRunReconciler struct {
	client.Client
	MaxConcurrentReconciles int

	// created remembers trials created but not yet seen in the cache, so that a stale cache
	// can neither cause a double create nor let parallelism be exceeded.
	mu      sync.Mutex
	created map[types.NamespacedName]sets.Set[string]
}

// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=eval.sweep.dev,resources=tasktrials,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch

// Reconcile gathers the campaign's changes and writes its status once.
func (r *SweepRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &evalv1.SweepRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	before := run.Status.DeepCopy()
	result, err := r.reconcile(ctx, run)
	run.Status.ObservedGeneration = run.Generation
	if !equality.Semantic.DeepEqual(before, &run.Status) {
		if uerr := r.Status().Update(ctx, run); uerr != nil {
			if apierrors.IsConflict(uerr) {
				return ctrl.Result{Requeue: true}, nil
			}
			return ctrl.Result{}, uerr
		}
	}
	return result, err
}

func (r *SweepRunReconciler) reconcile(ctx context.Context, run *evalv1.SweepRun) (ctrl.Result, error) {
	st := &run.Status
	now := time.Now()
	if st.StartTime == nil {
		st.StartTime = &metav1.Time{Time: now}
	}
	if st.CompletionTime != nil {
		return r.applyTTL(ctx, run, now)
	}
	tasks, missing, err := r.selectTasks(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	trials, err := r.listTrials(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	existing := sets.New[string]()
	unfinished := 0
	for i := range trials {
		existing.Insert(trials[i].Name)
		if !trials[i].Status.Phase.Finished() {
			unfinished++
		}
	}
	key := client.ObjectKeyFromObject(run)
	pending := r.pendingCreates(key, existing)
	unfinished += pending.Len()

	plan := campaign.Plan(run, tasks)
	st.Tasks = int32(len(tasks))
	st.Trials = campaign.Counts(trials, int32(len(plan)))
	st.Trials.Created += int32(pending.Len())
	campaign.Aggregate(st, trials)
	st.Progress = fmt.Sprintf("%d/%d", campaign.FinishedTrials(st.Trials), len(plan))

	if len(missing) > 0 {
		r.setPhase(run, evalv1.SweepRunPending, evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.TasksNotFound,
			fmt.Sprintf("no task ConfigMap labelled %s for: %s; apply the task catalogue", evalv1.LabelTask, strings.Join(missing, ", ")))
		return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
	}
	if len(tasks) == 0 {
		r.setPhase(run, evalv1.SweepRunPending, evalv1.SweepRunProgressing, metav1.ConditionFalse, reasons.NoTasksSelected,
			"spec.tasks selects no task ConfigMap in this namespace; apply the task catalogue or fix the selection")
		return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
	}

	exists := func(name string) bool { return existing.Has(name) || pending.Has(name) }
	for _, p := range campaign.ToCreate(plan, exists, unfinished, run.Spec.Parallelism, run.Spec.Suspend) {
		if err := r.createTrial(ctx, run, p); err != nil {
			return ctrl.Result{}, err
		}
		st.Trials.Created++
	}

	finished := campaign.FinishedTrials(st.Trials)
	switch {
	case int(finished) == len(plan):
		st.CompletionTime = &metav1.Time{Time: now}
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.SweepRunProgressing, Status: metav1.ConditionFalse,
			Reason: reasons.AllTrialsFinished, Message: st.Progress + " trials finished", ObservedGeneration: run.Generation})
		meta.RemoveStatusCondition(&st.Conditions, evalv1.SweepRunSuspended)
		if st.GradedTrials == 0 {
			r.setPhase(run, evalv1.SweepRunFailedPh, evalv1.SweepRunFailed, metav1.ConditionTrue, reasons.NothingMeasured,
				fmt.Sprintf("every trial ended without a measurement (%d evaluation failures); see the trials' reasons", st.EvaluationFailures))
		} else {
			r.setPhase(run, evalv1.SweepRunSucceeded, evalv1.SweepRunComplete, metav1.ConditionTrue, reasons.AllTrialsFinished,
				fmt.Sprintf("score %s over %d bugs (%d evaluation failures)", st.Score, st.BugsTotal, st.EvaluationFailures))
		}
		return r.applyTTL(ctx, run, now)
	case run.Spec.Suspend:
		r.setPhase(run, evalv1.SweepRunSuspend, evalv1.SweepRunSuspended, metav1.ConditionTrue, reasons.Suspended,
			"spec.suspend is true: no new trials start; running trials finish")
	default:
		if meta.IsStatusConditionTrue(st.Conditions, evalv1.SweepRunSuspended) {
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.SweepRunSuspended, Status: metav1.ConditionFalse,
				Reason: reasons.Resumed, Message: "spec.suspend is false", ObservedGeneration: run.Generation})
		}
		r.setPhase(run, evalv1.SweepRunRunning, evalv1.SweepRunProgressing, metav1.ConditionTrue, reasons.TrialsRunning,
			fmt.Sprintf("%s trials finished, %d running", st.Progress, st.Trials.Running+st.Trials.Verifying))
	}
	return ctrl.Result{}, nil
}

func (r *SweepRunReconciler) setPhase(run *evalv1.SweepRun, phase evalv1.SweepRunPhase, cond string, status metav1.ConditionStatus, reason, msg string) {
	run.Status.Phase = phase
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: cond, Status: status, Reason: reason, Message: msg, ObservedGeneration: run.Generation})
}

func (r *SweepRunReconciler) selectTasks(ctx context.Context, run *evalv1.SweepRun) ([]campaign.Task, []string, error) {
	cms := &corev1.ConfigMapList{}
	if err := r.List(ctx, cms, client.InNamespace(run.Namespace), client.HasLabels{evalv1.LabelTask}); err != nil {
		return nil, nil, err
	}
	matches := func(*corev1.ConfigMap) bool { return false }
	if sel := run.Spec.Tasks.Selector; sel != nil {
		selector, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			return nil, nil, fmt.Errorf("spec.tasks.selector: %w", err)
		}
		matches = func(cm *corev1.ConfigMap) bool { return selector.Matches(labels.Set(cm.Labels)) }
	}
	tasks, missing := campaign.SelectTasks(run.Spec.Tasks, cms.Items, matches)
	return tasks, missing, nil
}

func (r *SweepRunReconciler) listTrials(ctx context.Context, run *evalv1.SweepRun) ([]evalv1.TaskTrial, error) {
	list := &evalv1.TaskTrialList{}
	if err := r.List(ctx, list, client.InNamespace(run.Namespace), client.MatchingLabels{evalv1.LabelSweepRun: run.Name}); err != nil {
		return nil, err
	}
	out := list.Items[:0]
	for _, t := range list.Items {
		if metav1.IsControlledBy(&t, run) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (r *SweepRunReconciler) createTrial(ctx context.Context, run *evalv1.SweepRun, p campaign.Planned) error {
	trial := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: run.Namespace},
		Spec:       campaign.TrialSpec(run, p.Task, p.Attempt),
	}
	trial.Labels = podbuild.Labels(trial, "")
	if err := controllerutil.SetControllerReference(run, trial, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, trial); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create trial %s: %w", p.Name, err)
	}
	r.remember(client.ObjectKeyFromObject(run), p.Name)
	return nil
}

func (r *SweepRunReconciler) remember(key types.NamespacedName, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.created == nil {
		r.created = map[types.NamespacedName]sets.Set[string]{}
	}
	if r.created[key] == nil {
		r.created[key] = sets.New[string]()
	}
	r.created[key].Insert(name)
}

// pendingCreates returns the trials created but not yet in the cache, and forgets the rest.
func (r *SweepRunReconciler) pendingCreates(key types.NamespacedName, seen sets.Set[string]) sets.Set[string] {
	r.mu.Lock()
	defer r.mu.Unlock()
	pending := r.created[key]
	if pending == nil {
		return sets.New[string]()
	}
	pending.Delete(seen.UnsortedList()...)
	return pending.Clone()
}

func (r *SweepRunReconciler) forget(key types.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.created, key)
}

// applyTTL deletes a finished campaign once its TTL has passed.
func (r *SweepRunReconciler) applyTTL(ctx context.Context, run *evalv1.SweepRun, now time.Time) (ctrl.Result, error) {
	ttl := run.Spec.TTLSecondsAfterFinished
	if ttl == nil || run.Status.CompletionTime == nil {
		return ctrl.Result{}, nil
	}
	expires := run.Status.CompletionTime.Add(time.Duration(*ttl) * time.Second)
	if now.Before(expires) {
		return ctrl.Result{RequeueAfter: expires.Sub(now)}, nil
	}
	err := r.Delete(ctx, run, client.PropagationPolicy(metav1.DeletePropagationBackground))
	return ctrl.Result{}, client.IgnoreNotFound(err)
}

// SetupWithManager watches campaigns, their trials, and task ConfigMaps (a catalogue applied
// after the campaign wakes it).
func (r *SweepRunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	taskToRuns := handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		runs := &evalv1.SweepRunList{}
		if err := r.List(ctx, runs, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		var out []reconcile.Request
		for _, run := range runs.Items {
			if run.Status.CompletionTime == nil {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&run)})
			}
		}
		return out
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&evalv1.SweepRun{}).
		Owns(&evalv1.TaskTrial{}).
		Watches(&corev1.ConfigMap{}, taskToRuns).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("sweeprun").
		Complete(r)
}
