// Package run is `sweep run`: apply a SweepRun manifest, as kubectl apply --server-side does,
// and optionally follow it.
package run

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/watch"
)

// Options of `sweep run -f FILE [--watch]`.
type Options struct {
	// File is the manifest, or - for In.
	File string
	// Watch follows the campaign until it finishes.
	Watch bool
	// ForceConflicts takes the fields another manager owns (a GitOps tool's, say), as
	// kubectl apply --server-side --force-conflicts does; without it such a change is refused.
	ForceConflicts bool
	// Print is -o: nil or empty prints one line saying what apply did.
	Print *clioptions.ObjectPrintFlags

	Cluster *clioptions.Cluster
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, _ []string) error {
	o.IOStreams = streams
	return nil
}

func (o *Options) Validate() error {
	if o.File == "" {
		return fmt.Errorf("flag -f/--filename is required: give a SweepRun manifest, for example -f campaign.yaml")
	}
	if o.Print.IsDefault() {
		return nil
	}
	if o.Watch {
		return fmt.Errorf("flags -o/--output and --watch: -o prints the applied SweepRun and --watch its progress and report, both on stdout: use one, then `sweep watch NAME`")
	}
	_, err := o.Print.ToPrinter()
	return err
}

func (o *Options) Run(ctx context.Context) error {
	obj, err := readSweepRunManifest(o.In, o.File)
	if err != nil {
		return err
	}
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	if obj.GetNamespace() == "" {
		obj.SetNamespace(ns)
	}
	if err := checkBugs(ctx, cl, obj); err != nil {
		return fmt.Errorf("sweeprun %s in namespace %s from %s, not applied: %w", obj.GetName(), obj.GetNamespace(), o.File, err)
	}
	outcome, err := applySweepRun(ctx, cl, obj, o.ForceConflicts)
	if apierrors.IsConflict(err) {
		return fmt.Errorf("applying sweeprun %s in namespace %s from %s: %w: another field manager (a GitOps tool, or kubectl) owns those fields; change them where that manager takes them from, or pass --force-conflicts to take them (that manager may set them back)",
			obj.GetName(), obj.GetNamespace(), o.File, err)
	}
	if err != nil {
		return fmt.Errorf("applying sweeprun %s in namespace %s from %s: %w", obj.GetName(), obj.GetNamespace(), o.File, campaigns.CreateHint(err))
	}
	if !o.Print.IsDefault() {
		p, err := o.Print.ToPrinter()
		if err != nil {
			return err
		}
		return p.PrintObj(obj, o.Out)
	}
	fmt.Fprintf(o.Out, "sweeprun.eval.sweep.dev/%s %s in namespace %s\n", obj.GetName(), outcome, obj.GetNamespace())
	if !o.Watch {
		return nil
	}
	return watch.AndReport(ctx, o.IOStreams, cl, obj.GetNamespace(), obj.GetName())
}

// readSweepRunManifest reads one SweepRun as an unstructured object, so that fields the file
// leaves out stay unset and get the CRD's defaults.
func readSweepRunManifest(stdin io.Reader, file string) (*unstructured.Unstructured, error) {
	data, err := clioptions.ReadFileOrStdin(stdin, file)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: not YAML or JSON: %w", file, err)
	}
	gvk := obj.GroupVersionKind()
	want := evalv1.GroupVersion.WithKind("SweepRun")
	if gvk != want {
		return nil, fmt.Errorf("%s: apiVersion %q kind %q: want apiVersion %q kind %q (one SweepRun per file)",
			file, obj.GetAPIVersion(), obj.GetKind(), want.GroupVersion().String(), want.Kind)
	}
	if obj.GetName() == "" && obj.GetGenerateName() == "" {
		return nil, fmt.Errorf("%s: metadata.name is empty: name the campaign (or set metadata.generateName)", file)
	}
	return obj, nil
}

// checkBugs refuses the manifest's bug subsets as the controller would refuse the SweepRun
// (campaign.CheckBugs), so that nothing is applied. A manifest the typed API cannot read, or
// task ConfigMaps this user cannot list, are left to the API server and the controller.
func checkBugs(ctx context.Context, cl client.Client, obj *unstructured.Unstructured) error {
	run := &evalv1.SweepRun{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, run); err != nil || len(run.Spec.Tasks.Bugs) == 0 {
		return nil
	}
	matches, err := campaign.SelectorMatcher(run.Spec.Tasks.Selector)
	if err != nil {
		return nil
	}
	cms := &corev1.ConfigMapList{}
	if err := cl.List(ctx, cms, client.InNamespace(obj.GetNamespace()), client.HasLabels{evalv1.LabelTask}); err != nil {
		return nil
	}
	tasks, _ := campaign.SelectTasks(run.Spec.Tasks, cms.Items, matches)
	if refusal := campaign.CheckBugs(run.Spec.Tasks.Bugs, tasks); refusal != nil {
		return fmt.Errorf("%s: %s", refusal.Reason, refusal.Message)
	}
	return nil
}

// fieldManager owns the fields sweep applies.
const fieldManager = "sweep"

// applySweepRun applies obj server-side as the field manager "sweep", taking fields other
// managers own only when force is set, and says whether it was created, changed or already
// so. A manifest with only generateName is created: apply needs a name.
func applySweepRun(ctx context.Context, cl client.Client, obj *unstructured.Unstructured, force bool) (string, error) {
	if obj.GetName() == "" {
		return "created", cl.Create(ctx, obj, client.FieldOwner(fieldManager))
	}
	before := &unstructured.Unstructured{}
	before.SetGroupVersionKind(obj.GroupVersionKind())
	err := cl.Get(ctx, client.ObjectKeyFromObject(obj), before)
	if err != nil && !apierrors.IsNotFound(err) {
		return "", err
	}
	existed := err == nil
	opts := []client.ApplyOption{client.FieldOwner(fieldManager)}
	if force {
		opts = append(opts, client.ForceOwnership)
	}
	if err := cl.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), opts...); err != nil {
		return "", err
	}
	switch {
	case !existed:
		return "created", nil
	case sameApplied(before, obj):
		return "unchanged", nil
	}
	return "configured", nil
}

// sameApplied says whether an apply left the object as it was in what a user applies: its
// metadata and spec. The resource version alone would not do: the API server also writes an
// object whose status it has only defaulted (the CRD's status default), once, on its first
// update.
func sameApplied(before, after *unstructured.Unstructured) bool {
	strip := func(u *unstructured.Unstructured) map[string]any {
		c := u.DeepCopy()
		unstructured.RemoveNestedField(c.Object, "status")
		unstructured.RemoveNestedField(c.Object, "metadata", "resourceVersion")
		unstructured.RemoveNestedField(c.Object, "metadata", "managedFields")
		return c.Object
	}
	return equality.Semantic.DeepEqual(strip(before), strip(after))
}
