package controllers

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/provenance"
	"github.com/swe-sweep/sweep-operator/internal/statusevents"
	"github.com/swe-sweep/sweep-operator/internal/statuswrite"
	"github.com/swe-sweep/sweep-operator/internal/trialindex"
)

// SweepRunReconciler fans a campaign out into trials and aggregates them. Its decisions are
// internal/campaign's; it gathers the facts and writes the status once.
type SweepRunReconciler struct {
	client.Client
	MaxConcurrentReconciles int
	// Events records the campaign's Events (statusevents.ForSweepRun); nil records none.
	Events events.EventRecorder
	// Stores are the artifact stores of the campaigns' records, for status.record.
	Stores *Stores
	// APIReader reads exclusion lists, which the manager's cache (task ConfigMaps only) does
	// not hold.
	APIReader client.Reader

	created campaign.CreatedTrials
	// superseded remembers the trials a retry marked superseded until the cache shows the
	// label, so that a stale cache cannot count them as final again; regraded those of them a
	// regrade marked, so that their reruns regrade.
	superseded campaign.CreatedTrials
	regraded   campaign.CreatedTrials
	// frozen keeps the campaigns' snapshotted exclusion lists, read once.
	frozen frozenLists
	// written is when each campaign's status was last written, to space the writes that
	// change only its aggregates (statuswrite.SweepRun).
	written statuswrite.LastWrites
	// trials are each campaign's trials, the cache's objects uncopied; trialEvents keeps it.
	trials trialindex.Index
}

// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns,verbs=get;list;watch;update;patch;delete
// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=eval.sweep.dev,resources=tasktrials,verbs=get;list;watch;create;patch;deletecollection
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create

// Reconcile gathers the campaign's changes and writes its status once.
func (r *SweepRunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	run := &evalv1.SweepRun{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			r.created.Forget(req.NamespacedName)
			r.superseded.Forget(req.NamespacedName)
			r.regraded.Forget(req.NamespacedName)
			r.frozen.forget(req.NamespacedName)
			r.written.Forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	before := run.Status.DeepCopy()
	result, err := r.reconcile(ctx, run)
	run.Status.ObservedGeneration = run.Generation
	now := time.Now()
	write, wait := statuswrite.SweepRun(before, &run.Status, r.written.At(req.NamespacedName), now)
	if wait > 0 && (result.RequeueAfter == 0 || wait < result.RequeueAfter) {
		result.RequeueAfter = wait
	}
	return writeStatus(ctx, r.Client, run, write, result, err,
		afterWrite{rec: r.Events, events: statusevents.ForSweepRun(before, &run.Status), observe: func() { r.written.Wrote(req.NamespacedName, now) }})
}

func (r *SweepRunReconciler) reconcile(ctx context.Context, run *evalv1.SweepRun) (ctrl.Result, error) {
	st := &run.Status
	now := time.Now()
	if st.StartTime == nil {
		st.StartTime = &metav1.Time{Time: now}
	}
	// The TTL deleted the trials: the status is the campaign's record, and nothing is left to
	// rerun or regrade.
	if st.TrialsDeletedTime != nil {
		return ctrl.Result{}, nil
	}
	if st.CompletionTime != nil {
		if err := r.handleRetry(ctx, run, now); err != nil {
			return ctrl.Result{}, err
		}
	}
	// A retry that reruns trials takes the campaign out of completion: a regrade requested
	// with it waits for the reruns to end.
	if st.CompletionTime != nil {
		if err := r.handleRegrade(ctx, run, now); err != nil {
			return ctrl.Result{}, err
		}
	}
	if st.CompletionTime != nil {
		campaign.SetStanding(run, nil)
		return r.applyTTL(ctx, run, now)
	}
	tasks, missing, err := r.selectTasks(ctx, run)
	if err != nil {
		return ctrl.Result{}, err
	}
	all := r.listTrials(run)
	refusal := campaign.CheckBugs(run.Spec.Tasks.Bugs, tasks)
	tasks, excl, problem, err := r.applyExclusions(ctx, run, tasks)
	if err != nil {
		return ctrl.Result{}, err
	}
	seen := sets.New[string]()
	for i := range all {
		seen.Insert(all[i].Name)
	}
	unseen := r.created.Unseen(client.ObjectKeyFromObject(run), seen)
	// A list that cannot be applied holds the campaign until it is fixed; a refused bug subset
	// fails it instead.
	if problem != nil && (refusal == nil || st.Trials.Created > 0) {
		return holdForExclusions(run, problem, all, unseen.Len(), now), nil
	}
	st.Images = provenance.PinImages(st.Images, all)
	plan := campaign.PlanReruns(campaign.Plan(run, tasks), all)
	exists := func(name string) bool { return seen.Has(name) || unseen.Has(name) }
	started := campaign.Started(plan, exists)
	// Every trial's usage counts, superseded ones too: their agents ran.
	st.Usage = campaign.SumUsage(all)
	budgetWait := campaign.CheckBudget(run, now, len(plan), len(started))
	if st.Budget != nil {
		plan = started
	}
	// Each attempt counts with its final result; the trials reruns superseded are records.
	trials := campaign.FinalTrials(all)
	campaign.Summarize(st, len(tasks), len(plan), trials, unseen.Len())
	st.Record = jobRecord(r.Stores, run, all)

	if token, ok := campaign.PendingResume(run); ok {
		campaign.Resume(run, token, now)
	}
	if trip := campaign.CheckGuard(run, trials, len(plan)); trip != nil {
		campaign.Trip(run, *trip, now)
	}
	decision := campaign.Decide(run, missing, len(plan))
	// A bug subset no trial can grade fails the campaign before its first trial; spec.tasks
	// is immutable, so the refusal is final. A campaign with trials already goes on as it is.
	if refusal != nil && st.Trials.Created == 0 {
		decision = refusal.Decision(run)
	}
	if !decision.WaitForTasks && !decision.Complete {
		toCreate := campaign.ToCreate(plan, exists, campaign.Unfinished(st.Trials), run.Spec.Parallelism, run.Spec.Suspend || st.Guard.Holds())
		if len(toCreate) > 0 {
			if err := r.freezeExclusions(ctx, run, excl); err != nil {
				return ctrl.Result{}, err
			}
		}
		created, err := r.createTrials(ctx, run, toCreate)
		st.Trials.Created += created
		if err != nil {
			return ctrl.Result{}, err
		}
	}
	decision.Apply(st, now)
	campaign.SetStanding(run, campaign.FindInfrastructureStall(trials))
	switch {
	case decision.WaitForTasks:
		return ctrl.Result{RequeueAfter: campaign.TaskRecheck}, nil
	case decision.Complete:
		return r.applyTTL(ctx, run, now)
	}
	return ctrl.Result{RequeueAfter: budgetWait}, nil
}

func (r *SweepRunReconciler) selectTasks(ctx context.Context, run *evalv1.SweepRun) ([]campaign.Task, []string, error) {
	cms := &corev1.ConfigMapList{}
	// The cache's own ConfigMaps, not copies: the catalogue is listed at every reconcile, and
	// the tasks chosen from it are only read (a trial's spec copies what it takes).
	if err := r.List(ctx, cms, client.InNamespace(run.Namespace), client.HasLabels{evalv1.LabelTask}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, err
	}
	matches, err := campaign.SelectorMatcher(run.Spec.Tasks.Selector)
	if err != nil {
		return nil, nil, err
	}
	tasks, missing := campaign.SelectTasks(run.Spec.Tasks, cms.Items, matches)
	return tasks, missing, nil
}

// listTrials lists the campaign's trials, those a retry marked superseded shown so even
// before the cache does. The trials are the cache's own, not copies (trialindex: a campaign of
// 10,000 would otherwise be copied whole at each reconcile, about once a second): the
// reconciler and internal/campaign only read them, and what changes one copies it first
// (markSuperseded's callers).
func (r *SweepRunReconciler) listTrials(run *evalv1.SweepRun) []*evalv1.TaskTrial {
	cached := r.trials.Trials(client.ObjectKeyFromObject(run))
	out := cached[:0]
	labelled, regradeLabelled := sets.New[string](), sets.New[string]()
	for _, t := range cached {
		if metav1.IsControlledBy(t, run) {
			out = append(out, t)
			if campaign.Superseded(t) {
				labelled.Insert(t.Name)
			}
			if campaign.Regraded(t) {
				regradeLabelled.Insert(t.Name)
			}
		}
	}
	key := client.ObjectKeyFromObject(run)
	marked, regradeMarked := r.superseded.Unseen(key, labelled), r.regraded.Unseen(key, regradeLabelled)
	for i := range out {
		if marked.Has(out[i].Name) {
			out[i] = out[i].DeepCopy()
			markSuperseded(out[i], regradeMarked.Has(out[i].Name))
		}
	}
	return out
}

// markSuperseded labels trial as superseded by its next run, and as regraded by it when that
// run is a regrade. It changes t's labels in place: t must be a copy, never the cache's.
func markSuperseded(t *evalv1.TaskTrial, regrade bool) {
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Labels[evalv1.LabelSupersededBy] = campaign.NextRunName(t)
	if regrade {
		t.Labels[evalv1.LabelRegradedBy] = campaign.NextRunName(t)
	}
}

// trialCreates is how many of a campaign's trials are created at once: one at a time, the
// API server's latency (tens of milliseconds a create on a loaded cluster) capped a campaign
// at about ten new trials a second however many could run.
const trialCreates = 10

// createTrials creates the planned trials, trialCreates at a time, and returns how many were
// created; on an error the rest are not tried, and the next reconcile plans them again.
func (r *SweepRunReconciler) createTrials(ctx context.Context, run *evalv1.SweepRun, planned []campaign.Planned) (int32, error) {
	var created atomic.Int32
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(trialCreates)
	for _, p := range planned {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := r.createTrial(gctx, run, p); err != nil {
				return err
			}
			created.Add(1)
			return nil
		})
	}
	err := g.Wait()
	return created.Load(), err
}

func (r *SweepRunReconciler) createTrial(ctx context.Context, run *evalv1.SweepRun, p campaign.Planned) error {
	trial := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: run.Namespace},
		Spec:       p.Spec(run),
	}
	trial.Labels = podbuild.Labels(trial, "")
	trial.Annotations = map[string]string{evalv1.AnnotationTaskSHA256: provenance.TaskEntrySHA256(p.Task.ConfigMap)}
	if p.Rerun > 0 {
		trial.Labels[evalv1.LabelRerun] = strconv.Itoa(int(p.Rerun))
	}
	if err := controllerutil.SetControllerReference(run, trial, r.Scheme()); err != nil {
		return err
	}
	if err := r.Create(ctx, trial); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create trial %s: %w", p.Name, err)
	}
	r.created.Remember(client.ObjectKeyFromObject(run), p.Name)
	return nil
}

// handleRetry handles a finished campaign's new retry request (annotation
// eval.sweep.dev/retry): it marks each trial to rerun as superseded by its rerun, which the
// plan then creates (campaign.PlanReruns), and records the request in status. Marking first
// makes a request interrupted halfway safe: the marked trials are no longer final, so handling
// it again picks only the rest.
func (r *SweepRunReconciler) handleRetry(ctx context.Context, run *evalv1.SweepRun, now time.Time) error {
	if _, ok := campaign.PendingRetry(run); !ok {
		return nil
	}
	trials := r.listTrials(run)
	req, rerun, ok := campaign.DecideRetry(run, trials)
	if !ok {
		return nil
	}
	// Trials marked by an earlier pass whose status write was lost still wait for their
	// reruns.
	awaiting := campaign.AwaitingRerun(trials)
	for i := range rerun {
		t := rerun[i].DeepCopy()
		patch := client.MergeFrom(t.DeepCopy())
		markSuperseded(t, false)
		if err := r.Patch(ctx, t, patch); err != nil {
			return fmt.Errorf("mark trial %s superseded for retry %s: %w", t.Name, req.Token, err)
		}
		r.superseded.Remember(client.ObjectKeyFromObject(run), t.Name)
	}
	campaign.BeginRetry(run, req, len(rerun)+awaiting, now)
	return nil
}

// handleRegrade handles a finished campaign's new regrade request (annotation
// eval.sweep.dev/regrade) as handleRetry handles a retry: it marks each final trial with
// stored artifacts superseded and regraded by its rerun, which the plan then creates with
// spec.regradeOf, and records the request in status.regrade.
func (r *SweepRunReconciler) handleRegrade(ctx context.Context, run *evalv1.SweepRun, now time.Time) error {
	if _, ok := campaign.PendingRegrade(run); !ok {
		return nil
	}
	trials := r.listTrials(run)
	token, regrade, ok := campaign.DecideRegrade(run, trials)
	if !ok {
		return nil
	}
	awaiting := campaign.AwaitingRerun(trials)
	for i := range regrade {
		t := regrade[i].DeepCopy()
		patch := client.MergeFrom(t.DeepCopy())
		markSuperseded(t, true)
		if err := r.Patch(ctx, t, patch); err != nil {
			return fmt.Errorf("mark trial %s superseded for regrade %s: %w", t.Name, token, err)
		}
		key := client.ObjectKeyFromObject(run)
		r.superseded.Remember(key, t.Name)
		r.regraded.Remember(key, t.Name)
	}
	campaign.BeginRegrade(run, token, len(regrade)+awaiting, now)
	return nil
}

// applyTTL deletes a finished campaign's trials once its TTL has passed, and keeps the
// SweepRun: deleting it would let a GitOps tool that keeps it applied create it again, which
// reruns (and pays for) the whole campaign.
func (r *SweepRunReconciler) applyTTL(ctx context.Context, run *evalv1.SweepRun, now time.Time) (ctrl.Result, error) {
	wait, expired := campaign.Expiry(run, now)
	if !expired {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	if err := r.DeleteAllOf(ctx, &evalv1.TaskTrial{}, client.InNamespace(run.Namespace),
		client.MatchingLabels{evalv1.LabelSweepRun: run.Name}, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		return ctrl.Result{}, err
	}
	run.Status.TrialsDeletedTime = &metav1.Time{Time: now}
	return ctrl.Result{}, nil
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
		Watches(&evalv1.TaskTrial{}, trialEvents{cache: mgr.GetCache(), index: &r.trials}).
		Watches(&corev1.ConfigMap{}, taskToRuns).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(r.MaxConcurrentReconciles, 1)}).
		Named("sweeprun").
		Complete(r)
}
