// Package get is `sweep get KIND [NAME...]`: SweepRuns and TaskTrials as kubectl get prints
// them (the CRDs' printer columns, -o wide for the rest) and in kubectl's other formats.
package get

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
)

// tableAccept asks the API server for a Table rendered with the CRD's printer columns, as
// kubectl get does.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// Options of `sweep get KIND [NAME...] [--run NAME] [-o FORMAT]`.
type Options struct {
	// Kind is a name kubectl takes for one of the CRDs: plural, singular or short name.
	Kind  string
	Names []string
	// SweepRun is --run: keep the TaskTrials of this SweepRun.
	SweepRun string
	Print    *clioptions.ObjectPrintFlags

	Cluster *clioptions.Cluster
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams = streams
	if len(args) > 0 {
		o.Kind, o.Names = args[0], args[1:]
	}
	return nil
}

func (o *Options) Validate() error {
	if o.Kind == "" {
		return fmt.Errorf("sweep get: name a kind: sweepruns (sr) or tasktrials (tt), for example sweep get sr")
	}
	if o.Print.IsDefault() || o.Print.IsWide() {
		return nil
	}
	_, err := o.Print.ToPrinter()
	return err
}

func (o *Options) Run(ctx context.Context) error {
	cfg, err := o.Cluster.RESTConfig()
	if err != nil {
		return err
	}
	ns, err := o.Cluster.Namespace()
	if err != nil {
		return err
	}
	res, err := Resolve(o.Cluster, o.Kind)
	if err != nil {
		return err
	}
	selector := labels.Everything()
	if o.SweepRun != "" {
		if res.Kind != "TaskTrial" {
			return fmt.Errorf("flag --run: keeps the TaskTrials of a SweepRun, not %s: use sweep get tasktrials --run %s", res.Name, o.SweepRun)
		}
		selector = labels.SelectorFromSet(labels.Set{evalv1.LabelSweepRun: o.SweepRun})
	}
	if o.Print.IsDefault() || o.Print.IsWide() {
		return o.printTable(ctx, cfg, ns, res, selector)
	}
	return o.printObjects(ctx, ns, res, selector)
}

// Resources are the kinds the API server serves for evalv1.GroupVersion, without subresources.
func Resources(kube *clioptions.Cluster) ([]metav1.APIResource, error) {
	dc, err := kube.Discovery()
	if err != nil {
		return nil, err
	}
	list, err := dc.ServerResourcesForGroupVersion(evalv1.GroupVersion.String())
	if err != nil {
		return nil, fmt.Errorf("reading the resources of %s: %w: are the CRDs installed? `sweep infra doctor` checks it", evalv1.GroupVersion, err)
	}
	var out []metav1.APIResource
	for _, r := range list.APIResources {
		if !strings.Contains(r.Name, "/") {
			out = append(out, r)
		}
	}
	return out, nil
}

// Resolve finds kind among Resources by any name kubectl takes for it: plural, singular or
// short name.
func Resolve(kube *clioptions.Cluster, kind string) (metav1.APIResource, error) {
	resources, err := Resources(kube)
	if err != nil {
		return metav1.APIResource{}, err
	}
	var known []string
	for _, r := range resources {
		if r.Name == kind || r.SingularName == kind || slices.Contains(r.ShortNames, kind) {
			return r, nil
		}
		known = append(known, fmt.Sprintf("%s (%s)", r.Name, strings.Join(append([]string{r.SingularName}, r.ShortNames...), ", ")))
	}
	slices.Sort(known)
	return metav1.APIResource{}, fmt.Errorf("sweep get %s: not a kind of %s: want one of %s", kind, evalv1.GroupVersion.Group, strings.Join(known, ", "))
}

// printTable prints the API server's Table of res, the rows of Names alone when there are any.
func (o *Options) printTable(ctx context.Context, cfg *rest.Config, ns string, res metav1.APIResource, selector labels.Selector) error {
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion, cfg.APIPath = &evalv1.GroupVersion, "/apis"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return err
	}
	raw, err := rc.Get().Namespace(ns).Resource(res.Name).Param("labelSelector", selector.String()).
		SetHeader("Accept", tableAccept).Do(ctx).Raw()
	if err != nil {
		return listError(res, ns, err)
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(raw, table); err != nil {
		return fmt.Errorf("listing %s in namespace %s: the API server sent no Table: %w", res.Name, ns, err)
	}
	if len(o.Names) > 0 {
		byName := map[string]metav1.TableRow{}
		for _, row := range table.Rows {
			m := metav1.PartialObjectMetadata{}
			if err := json.Unmarshal(row.Object.Raw, &m); err != nil {
				return err
			}
			byName[m.Name] = row
		}
		table.Rows = nil
		for _, name := range o.Names {
			row, ok := byName[name]
			if !ok {
				return notFound(res, name, ns, o.SweepRun)
			}
			table.Rows = append(table.Rows, row)
		}
	}
	if len(table.Rows) == 0 {
		fmt.Fprintf(o.ErrOut, "No %s in namespace %s.\n", res.Name, ns)
		return nil
	}
	return printers.NewTablePrinter(printers.PrintOptions{Wide: o.Print.IsWide()}).PrintObj(table, o.Out)
}

// printObjects prints one object as itself, and several (or none named) as a list, as
// kubectl get does.
func (o *Options) printObjects(ctx context.Context, ns string, res metav1.APIResource, selector labels.Selector) error {
	p, err := o.Print.ToPrinter()
	if err != nil {
		return err
	}
	cl, _, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(evalv1.GroupVersion.WithKind(res.Kind + "List"))
	if err := cl.List(ctx, list, client.InNamespace(ns), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return listError(res, ns, err)
	}
	if len(o.Names) > 0 {
		byName := map[string]unstructured.Unstructured{}
		for _, item := range list.Items {
			byName[item.GetName()] = item
		}
		list.Items = nil
		for _, name := range o.Names {
			item, ok := byName[name]
			if !ok {
				return notFound(res, name, ns, o.SweepRun)
			}
			list.Items = append(list.Items, item)
		}
		if len(list.Items) == 1 {
			return p.PrintObj(&list.Items[0], o.Out)
		}
	}
	return p.PrintObj(list, o.Out)
}

// listError says what a refused list needs: the API server's message is lost when it answers a
// Table request with an error.
func listError(res metav1.APIResource, ns string, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("listing %s in namespace %s: forbidden: ask for list on %s.%s in this namespace", res.Name, ns, res.Name, evalv1.GroupVersion.Group)
	}
	return fmt.Errorf("listing %s in namespace %s: %w", res.Name, ns, err)
}

func notFound(res metav1.APIResource, name, ns, run string) error {
	if run != "" {
		return fmt.Errorf("%s %s not found in namespace %s among the trials of sweeprun %s: leave out --run or pass -n", res.SingularName, name, ns, run)
	}
	return fmt.Errorf("%s %s not found in namespace %s: `sweep get %s` lists them; pass -n for another namespace", res.SingularName, name, ns, res.Name)
}
