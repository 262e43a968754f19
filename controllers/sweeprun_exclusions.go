package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

// exclusionList is the exclusion list a campaign applies, as read this reconcile.
type exclusionList struct {
	list   exclusions.List
	digest string
	// data is the list's bytes, which the snapshot copies.
	data string
	// frozen: the list is the campaign's snapshot, so it no longer follows its ConfigMap.
	frozen bool
}

// applyExclusions applies spec.tasks.exclusions to the selected tasks and sets
// status.exclusions: it returns the tasks left, each with the bugs it grades, and the list
// applied, or the problem that holds the campaign (the tasks then as given).
func (r *SweepRunReconciler) applyExclusions(ctx context.Context, run *evalv1.SweepRun, tasks []campaign.Task) ([]campaign.Task, *exclusionList, *campaign.ExclusionsProblem, error) {
	spec := run.Spec.Tasks.Exclusions
	if spec == nil {
		return tasks, nil, nil, nil
	}
	l, problem, err := r.readExclusions(ctx, run)
	if err != nil || problem != nil {
		return tasks, nil, problem, err
	}
	left, applied, problem := campaign.ApplyExclusions(l.list, tasks, run.Spec.Tasks.Bugs)
	if problem != nil {
		return tasks, nil, problem, nil
	}
	applied.ConfigMapName, applied.SHA256 = spec.ConfigMapName, l.digest
	if l.frozen {
		applied.Snapshot = campaign.ExclusionsSnapshotName(run.Name)
	}
	run.Status.Exclusions = &applied
	return left, l, nil, nil
}

// readExclusions reads the list spec.tasks.exclusions names: the campaign's snapshot once it
// has one (made with its first trial, so that later edits of the ConfigMap change nothing),
// else the ConfigMap itself. Both are read from the API server: the manager's cache holds
// only task ConfigMaps.
func (r *SweepRunReconciler) readExclusions(ctx context.Context, run *evalv1.SweepRun) (*exclusionList, *campaign.ExclusionsProblem, error) {
	spec := run.Spec.Tasks.Exclusions
	key := client.ObjectKeyFromObject(run)
	if l := r.frozen.get(key, run.UID); l != nil {
		return l, nil, nil
	}
	snapshotName := campaign.ExclusionsSnapshotName(run.Name)
	snapshot, err := r.getConfigMap(ctx, run.Namespace, snapshotName)
	if err != nil {
		return nil, nil, err
	}
	if snapshot != nil {
		if !metav1.IsControlledBy(snapshot, run) {
			return nil, &campaign.ExclusionsProblem{Reason: reasons.InvalidExclusions, Message: fmt.Sprintf(
				"%s, the name of this campaign's copy of its exclusion list, is taken by a ConfigMap it does not own: delete or rename that ConfigMap, or create the SweepRun under another name",
				campaign.ExclusionsSource(run.Namespace, snapshotName))}, nil
		}
		list, digest, problem := campaign.ReadExclusions(run.Namespace, snapshotName, snapshot)
		if problem != nil {
			return nil, problem, nil
		}
		l := &exclusionList{list: list, digest: digest, frozen: true}
		r.frozen.remember(key, run.UID, l)
		return l, nil, nil
	}
	cm, err := r.getConfigMap(ctx, run.Namespace, spec.ConfigMapName)
	if err != nil {
		return nil, nil, err
	}
	list, digest, problem := campaign.ReadExclusions(run.Namespace, spec.ConfigMapName, cm)
	// A campaign that already applied a list goes on only with those very bytes.
	if frozen := run.Status.Exclusions; frozen != nil && frozen.Snapshot != "" && (problem != nil || digest != frozen.SHA256) {
		return nil, &campaign.ExclusionsProblem{Reason: reasons.ExclusionsNotFound, Message: fmt.Sprintf(
			"%s, the copy of the exclusion list this campaign applied (sha256 %s), is gone and %s no longer holds that list: put it back under key %s of either, or start a new SweepRun",
			campaign.ExclusionsSource(run.Namespace, frozen.Snapshot), frozen.SHA256, campaign.ExclusionsSource(run.Namespace, spec.ConfigMapName), exclusions.ConfigMapKey)}, nil
	}
	if problem != nil {
		return nil, problem, nil
	}
	return &exclusionList{list: list, digest: digest, data: cm.Data[exclusions.ConfigMapKey]}, nil, nil
}

// getConfigMap reads a ConfigMap from the API server; nil when there is none.
func (r *SweepRunReconciler) getConfigMap(ctx context.Context, namespace, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read exclusion list configmap %s/%s: %w", namespace, name, err)
	}
	return cm, nil
}

// holdForExclusions is the status of a campaign whose list cannot be applied: its counts as
// recorded, Pending with the problem, reading the list again after ExclusionsRecheck.
func holdForExclusions(run *evalv1.SweepRun, problem *campaign.ExclusionsProblem, all []*evalv1.TaskTrial, unseen int, now time.Time) ctrl.Result {
	st := &run.Status
	// Counts of a list read before, and never applied, are not the campaign's.
	if st.Exclusions != nil && st.Exclusions.Snapshot == "" {
		st.Exclusions = nil
	}
	campaign.Summarize(st, int(st.Tasks), int(st.Trials.Total), campaign.FinalTrials(all), unseen)
	problem.Decision(run).Apply(st, now)
	campaign.SetStanding(run, nil)
	return ctrl.Result{RequeueAfter: campaign.ExclusionsRecheck}
}

// freezeExclusions copies the list (nil: the campaign applies none) into the campaign's
// immutable snapshot, which the SweepRun owns, before its first trial is created.
func (r *SweepRunReconciler) freezeExclusions(ctx context.Context, run *evalv1.SweepRun, l *exclusionList) error {
	if l == nil {
		return nil
	}
	if l.frozen {
		run.Status.Exclusions.Snapshot = campaign.ExclusionsSnapshotName(run.Name)
		return nil
	}
	snapshot := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: campaign.ExclusionsSnapshotName(run.Name), Namespace: run.Namespace,
			Labels: map[string]string{evalv1.LabelSweepRun: run.Name}},
		Data:      map[string]string{exclusions.ConfigMapKey: l.data},
		Immutable: ptr.To(true),
	}
	if err := controllerutil.SetControllerReference(run, snapshot, r.Scheme()); err != nil {
		return err
	}
	// One that appeared since it was read may hold other bytes: the error requeues, and the next
	// reconcile applies what it holds.
	if err := r.Create(ctx, snapshot); err != nil {
		return fmt.Errorf("copy exclusion list to configmap %s/%s: %w", run.Namespace, snapshot.Name, err)
	}
	l.frozen = true
	r.frozen.remember(client.ObjectKeyFromObject(run), run.UID, l)
	run.Status.Exclusions.Snapshot = snapshot.Name
	return nil
}

// frozenLists remembers each campaign's snapshotted list, which never changes, so that a
// reconcile reads and parses it once rather than on every trial's change. A SweepRun deleted
// and created again under its name has another UID. Safe for concurrent reconciles.
type frozenLists struct {
	mu    sync.Mutex
	lists map[types.NamespacedName]frozenList
}

type frozenList struct {
	uid  types.UID
	list *exclusionList
}

func (f *frozenLists) get(run types.NamespacedName, uid types.UID) *exclusionList {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l, ok := f.lists[run]; ok && l.uid == uid {
		return l.list
	}
	return nil
}

func (f *frozenLists) remember(run types.NamespacedName, uid types.UID, l *exclusionList) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lists == nil {
		f.lists = map[types.NamespacedName]frozenList{}
	}
	f.lists[run] = frozenList{uid: uid, list: l}
}

func (f *frozenLists) forget(run types.NamespacedName) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.lists, run)
}
