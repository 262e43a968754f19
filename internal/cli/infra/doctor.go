// Package infra is `sweep infra`: check the cluster a campaign runs on.
package infra

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/doctor"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// DoctorOptions of `sweep infra doctor`.
type DoctorOptions struct {
	Format string

	Cluster *clioptions.Cluster
	clioptions.IOStreams
}

func (o *DoctorOptions) Complete(streams clioptions.IOStreams, _ []string) error {
	o.IOStreams = streams
	return nil
}

func (o *DoctorOptions) Validate() error {
	return clioptions.CheckOutput(o.Format)
}

func (o *DoctorOptions) Run(ctx context.Context) error {
	results, err := runDoctor(ctx, o.Cluster)
	if err != nil {
		return err
	}
	if err := clioptions.Write(o.Out, o.Format, results, func(w io.Writer) error { return writeDoctorTable(w, results) }); err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if r.Status == doctor.Fail {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed: apply the fixes above and run `sweep infra doctor` again", failed, len(results))
	}
	return nil
}

func runDoctor(ctx context.Context, kube *clioptions.Cluster) ([]doctor.Result, error) {
	cfg, err := kube.RESTConfig()
	if err != nil {
		return nil, err
	}
	ns, err := kube.Namespace()
	if err != nil {
		return nil, err
	}
	dc, err := kube.Discovery()
	if err != nil {
		return nil, err
	}
	v, verr := dc.ServerVersion()
	var gitVersion, minor string
	if verr == nil {
		gitVersion, minor = v.GitVersion, v.Minor
	}
	api := doctor.APIServer(cfg.Host, gitVersion, minor, verr)
	if api.Status == doctor.Fail && verr != nil {
		// Nothing else can be asked of a server that does not answer.
		return []doctor.Result{api}, nil
	}
	scheme := evalv1.NewScheme()
	utilruntime.Must(apiextensionsv1.AddToScheme(scheme))
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, err
	}
	results := []doctor.Result{api, checkCRDs(ctx, cl), checkOperator(ctx, cl), checkRBAC(ctx, cl, ns)}
	tasks, images, terr := catalogueNeeds(ctx, cl, ns)
	nodes := &corev1.NodeList{}
	nerr := cl.List(ctx, nodes)
	switch {
	case terr != nil:
		results = append(results, doctor.Unreadable(doctor.CheckNodes, "configmaps in namespace "+ns, terr))
	case nerr != nil:
		results = append(results, doctor.Unreadable(doctor.CheckNodes, "nodes", nerr))
	default:
		results = append(results, doctor.NodeFit(nodeCapacities(nodes.Items), tasks))
	}
	dsets := &appsv1.DaemonSetList{}
	var dsNames []string
	derr := cl.List(ctx, dsets, client.InNamespace("kube-system"))
	for _, d := range dsets.Items {
		dsNames = append(dsNames, d.Name)
	}
	results = append(results, doctor.NetworkPolicy(dsNames, derr == nil))
	switch {
	case terr != nil:
		results = append(results, doctor.Unreadable(doctor.CheckImages, "configmaps in namespace "+ns, terr))
	case nerr != nil:
		results = append(results, doctor.Unreadable(doctor.CheckImages, "nodes", nerr))
	default:
		results = append(results, doctor.Images(images, nodeImages(nodes.Items)))
	}
	return results, nil
}

func checkCRDs(ctx context.Context, cl client.Client) doctor.Result {
	wanted := []string{"sweepruns." + evalv1.GroupVersion.Group, "tasktrials." + evalv1.GroupVersion.Group}
	found := map[string]*doctor.CRD{}
	for _, name := range wanted {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		err := cl.Get(ctx, client.ObjectKey{Name: name}, crd)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return doctor.Unreadable(doctor.CheckCRDs, "customresourcedefinitions", err)
		}
		c := &doctor.CRD{Name: name}
		for _, v := range crd.Spec.Versions {
			if v.Served {
				c.Served = append(c.Served, v.Name)
			}
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				c.Established = true
			}
		}
		found[name] = c
	}
	return doctor.CRDs(wanted, found, evalv1.GroupVersion.Version)
}

func checkOperator(ctx context.Context, cl client.Client) doctor.Result {
	list := &coordinationv1.LeaseList{}
	err := cl.List(ctx, list, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", evalv1.LeaderLeaseName)})
	if apierrors.IsForbidden(err) {
		return doctor.Operator(evalv1.LeaderLeaseName, nil, true, time.Now())
	}
	if err != nil {
		return doctor.Unreadable(doctor.CheckOperator, "leases", err)
	}
	var leases []doctor.Lease
	for _, l := range list.Items {
		dl := doctor.Lease{Namespace: l.Namespace}
		if l.Spec.HolderIdentity != nil {
			dl.Holder = *l.Spec.HolderIdentity
		}
		if l.Spec.RenewTime != nil {
			dl.Renewed = l.Spec.RenewTime.Time
		}
		if l.Spec.LeaseDurationSeconds != nil {
			dl.Duration = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
		}
		leases = append(leases, dl)
	}
	return doctor.Operator(evalv1.LeaderLeaseName, leases, false, time.Now())
}

func checkRBAC(ctx context.Context, cl client.Client, ns string) doctor.Result {
	asks := []authorizationv1.ResourceAttributes{
		{Namespace: ns, Verb: "create", Group: evalv1.GroupVersion.Group, Resource: "sweepruns"},
		{Namespace: ns, Verb: "create", Resource: "secrets"},
		{Namespace: ns, Verb: "list", Group: evalv1.GroupVersion.Group, Resource: "tasktrials"},
	}
	var answers []doctor.Access
	for i := range asks {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &asks[i]}}
		err := cl.Create(ctx, review)
		answers = append(answers, doctor.Access{Verb: asks[i].Verb, Resource: asks[i].Resource, Allowed: review.Status.Allowed, Err: err})
	}
	return doctor.RBAC(ns, answers)
}

// catalogueNeeds reads the namespace's task ConfigMaps: each task's requests, as the operator
// computes them, and its images. A task whose task.toml does not parse is left out: its trials
// fail with InvalidTask and say why.
func catalogueNeeds(ctx context.Context, cl client.Client, ns string) ([]doctor.TaskRequest, []doctor.Image, error) {
	cms := &corev1.ConfigMapList{}
	if err := cl.List(ctx, cms, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil {
		return nil, nil, err
	}
	var tasks []doctor.TaskRequest
	var images []doctor.Image
	for _, cm := range cms.Items {
		name := cm.Labels[evalv1.LabelTask]
		images = append(images,
			doctor.Image{Task: name, Ref: cm.Annotations[evalv1.AnnotationAgentImage]},
			doctor.Image{Task: name, Ref: cm.Annotations[evalv1.AnnotationVerifierImage]})
		t, err := taskdef.Parse("configmap "+cm.Name, []byte(cm.Data[evalv1.TaskTOMLKey]))
		if err != nil {
			continue
		}
		req, err := podbuild.Resources(nil, t.Environment)
		if err != nil {
			continue
		}
		tasks = append(tasks, doctor.TaskRequest{Task: name, CPU: req.Requests[corev1.ResourceCPU], Memory: req.Requests[corev1.ResourceMemory]})
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].Task < tasks[j].Task })
	return tasks, images, nil
}

func nodeCapacities(nodes []corev1.Node) []doctor.Node {
	out := make([]doctor.Node, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, doctor.Node{Name: n.Name, CPU: n.Status.Allocatable[corev1.ResourceCPU],
			Memory: n.Status.Allocatable[corev1.ResourceMemory], Unschedulable: n.Spec.Unschedulable})
	}
	return out
}

func nodeImages(nodes []corev1.Node) map[string]bool {
	present := map[string]bool{}
	for _, n := range nodes {
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				present[name] = true
			}
		}
	}
	return present
}

func writeDoctorTable(w io.Writer, results []doctor.Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Status, r.Check, r.Message)
		if r.Fix != "" {
			fmt.Fprintf(tw, "\t\tfix: %s\n", r.Fix)
		}
	}
	return tw.Flush()
}
