// Package campaigns reads and writes the SweepRuns and TaskTrials the CLI's verbs work on, and
// follows a campaign to its end.
package campaigns

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cachetrim"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
)

// GetSweepRun reads a campaign, with an error that says how to find the right name.
func GetSweepRun(ctx context.Context, cl client.Client, ns, name string) (*evalv1.SweepRun, error) {
	run := &evalv1.SweepRun{}
	err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, run)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("sweeprun %q not found in namespace %q: list campaigns with `kubectl get sweepruns -n %s`, or pass -n", name, ns, ns)
	}
	if err != nil {
		return nil, fmt.Errorf("reading sweeprun %q in namespace %q: %w", name, ns, err)
	}
	return run, nil
}

// listPage is how many TaskTrials one List request returns: a campaign of thousands of
// trials is read in pages, so that no single response holds all of them.
const listPage = 500

// Trials lists a campaign's TaskTrials (label eval.sweep.dev/sweep-run), in task and
// attempt order: each attempt's final result (campaign.FinalTrials), as the campaign scores
// it; trials a `sweep retry` rerun superseded are left out. A campaign whose trials its TTL
// deleted is refused, with where its records are.
func Trials(ctx context.Context, cl client.Client, run *evalv1.SweepRun) ([]*evalv1.TaskTrial, error) {
	if err := CheckTrialsKept(run); err != nil {
		return nil, err
	}
	items, _, err := listTrials(ctx, cl, run.Namespace, run.Name)
	if err != nil {
		return nil, err
	}
	return finalInOrder(items), nil
}

// listTrials reads every TaskTrial of a campaign, a page at a time, and returns them with the
// resource version a watch of them starts from. Each page is held as the manager's cache holds
// trials (cachetrim.Intern: no managed fields, strings interned), since a campaign of
// 10,000 trials is otherwise hundreds of MiB in the CLI.
func listTrials(ctx context.Context, cl client.Client, ns, name string) ([]*evalv1.TaskTrial, string, error) {
	var items []*evalv1.TaskTrial
	opts := []client.ListOption{client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: name}, client.Limit(listPage)}
	for cont := ""; ; {
		list := &evalv1.TaskTrialList{}
		if err := cl.List(ctx, list, append(opts, client.Continue(cont))...); err != nil {
			return nil, "", fmt.Errorf("listing the tasktrials of sweeprun %q in namespace %q: %w", name, ns, err)
		}
		for i := range list.Items {
			cachetrim.Intern(&list.Items[i])
			items = append(items, &list.Items[i])
		}
		if cont = list.Continue; cont == "" {
			return items, list.ResourceVersion, nil
		}
	}
}

// finalInOrder is campaign.FinalTrials of items, in task and attempt order.
func finalInOrder(items []*evalv1.TaskTrial) []*evalv1.TaskTrial {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i].Spec, items[j].Spec
		if a.Task != b.Task {
			return a.Task < b.Task
		}
		return a.Attempt < b.Attempt
	})
	return campaign.FinalTrials(items)
}

// CreateHint adds what to do to an error of creating a campaign.
func CreateHint(err error) error {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%w: ask for create on sweepruns in this namespace; `sweep infra doctor` checks it", err)
	case meta.IsNoMatchError(err):
		return fmt.Errorf("%w: the cluster does not know SweepRuns; install the CRDs (kubectl apply -f config/crd/bases), `sweep infra doctor` checks it", err)
	}
	return err
}

// CreateSweepRun creates run with the CRD's retry policy defaults: the Go type would send its
// zero values, which the API server keeps, so the field is left out of the request.
func CreateSweepRun(ctx context.Context, cl client.Client, run *evalv1.SweepRun) error {
	raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(run)
	if err != nil {
		return err
	}
	obj := &unstructured.Unstructured{Object: raw}
	obj.SetGroupVersionKind(evalv1.GroupVersion.WithKind("SweepRun"))
	unstructured.RemoveNestedField(obj.Object, "spec", "retryPolicy")
	unstructured.RemoveNestedField(obj.Object, "status")
	if err := cl.Create(ctx, obj); err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, run)
}

// FindTask is the task's ConfigMap, chosen as a SweepRun chooses it.
func FindTask(ctx context.Context, cl client.Client, ns, task string) (*corev1.ConfigMap, error) {
	list := &corev1.ConfigMapList{}
	if err := cl.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelTask: task}); err != nil {
		return nil, fmt.Errorf("listing task configmaps in namespace %s: %w", ns, err)
	}
	tasks, _ := campaign.SelectTasks(evalv1.TaskSelection{Names: []string{task}}, list.Items, nil)
	if len(tasks) == 0 {
		return nil, fmt.Errorf("task %q not found in namespace %q: no ConfigMap labelled %s=%s; bundle the catalogue with `sweep tasks bundle` and `kubectl apply -k` it, or pass -n",
			task, ns, evalv1.LabelTask, task)
	}
	return tasks[0].ConfigMap, nil
}

// FinishedCampaign reads a SweepRun and its trials for a request (verb, which does what) that
// only a finished campaign takes, and refuses it for one still running (CheckFinished).
func FinishedCampaign(ctx context.Context, cl client.Client, ns, name, verb, does string) (*evalv1.SweepRun, []*evalv1.TaskTrial, error) {
	run, err := GetSweepRun(ctx, cl, ns, name)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckFinished(run, verb, does); err != nil {
		return nil, nil, err
	}
	trials, err := Trials(ctx, cl, run)
	if err != nil {
		return nil, nil, err
	}
	return run, trials, nil
}

// CheckTrialsKept refuses a campaign whose trials spec.ttlSecondsAfterFinished deleted: its
// summary is in its status, its records in the artifact store.
func CheckTrialsKept(run *evalv1.SweepRun) error {
	deleted := run.Status.TrialsDeletedTime
	if deleted == nil {
		return nil
	}
	where := "it had no artifact store, so only its status is left (kubectl get sweeprun " + run.Name + " -n " + run.Namespace + " -o yaml)"
	if rec := run.Status.Record; rec != nil && rec.Store != "" {
		where = fmt.Sprintf("its records are in the artifact store: sweep info %s/%s", strings.TrimSuffix(rec.Store, "/"), rec.Folder)
	}
	return fmt.Errorf("sweeprun %s in namespace %s has no trials: spec.ttlSecondsAfterFinished deleted them at %s; %s",
		run.Name, run.Namespace, deleted.UTC().Format(time.RFC3339), where)
}

// CheckFinished refuses a request (verb, which does what) that only a finished campaign takes.
func CheckFinished(run *evalv1.SweepRun, verb, does string) error {
	if run.Status.CompletionTime != nil {
		return nil
	}
	return fmt.Errorf("sweeprun %s in namespace %s is not finished (phase %s, %s trials finished): sweep %s %s of a finished campaign; follow it with `sweep watch %s -n %s` and %s when it ends",
		run.Name, run.Namespace, OrNone(string(run.Status.Phase)), OrNone(run.Status.Progress), verb, does, run.Name, run.Namespace, verb)
}

// OrNone is s, or <none> when it is empty, as kubectl shows an empty column.
func OrNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
