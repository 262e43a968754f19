// Package version is `sweep version`: the client's build and the operator's image.
package version

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
)

// Version is the release the binary was built as, set by the build:
//
//	go build -ldflags "-X github.com/swe-sweep/sweep-operator/internal/cli/version.Version=v0.3.0" ./cmd/sweep
//
// Empty, it is the module version Go recorded (a tag with go install, else "(devel)").
var Version string

// Client is how this binary was built.
type Client struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	BuildTime string `json:"buildTime,omitempty"`
	// Modified is true when the work tree had uncommitted changes.
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
}

// Operator is a running manager: the Pod that holds the leader lease and the image it runs.
type Operator struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Image     string `json:"image"`
	// ImageID is the digest the node pulled, when the Pod reports it.
	ImageID string `json:"imageID,omitempty"`
}

// Info is what `sweep version -o json|yaml` prints.
type Info struct {
	Client    Client     `json:"clientVersion"`
	Operators []Operator `json:"operators,omitempty"`
}

// ReadClient is the client's version from Version and the build information Go records.
func ReadClient(bi *debug.BuildInfo) Client {
	c := Client{Version: Version}
	if bi == nil {
		return orDevel(c)
	}
	c.GoVersion = bi.GoVersion
	if c.Version == "" {
		c.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			c.Revision = s.Value
		case "vcs.time":
			c.BuildTime = s.Value
		case "vcs.modified":
			c.Modified = s.Value == "true"
		}
	}
	return orDevel(c)
}

func orDevel(c Client) Client {
	if c.Version == "" {
		c.Version = "(devel)"
	}
	return c
}

// Options of `sweep version [--client]`.
type Options struct {
	// ClientOnly prints the client's version without reaching the cluster.
	ClientOnly bool
	Format     string

	Cluster *clioptions.Cluster
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, _ []string) error {
	o.IOStreams = streams
	return nil
}

func (o *Options) Validate() error {
	return clioptions.CheckOutput(o.Format)
}

// Run prints the client's version, then the operator's; when the operator cannot be read the
// client's version is still printed and the error says why.
func (o *Options) Run(ctx context.Context) error {
	bi, _ := debug.ReadBuildInfo()
	info := Info{Client: ReadClient(bi)}
	var operatorErr error
	if !o.ClientOnly {
		info.Operators, operatorErr = o.operators(ctx)
	}
	if err := clioptions.Write(o.Out, o.Format, info, func(w io.Writer) error { return writeText(w, info, o.ClientOnly) }); err != nil {
		return err
	}
	if operatorErr != nil {
		return fmt.Errorf("operator version: %w; `sweep version --client` prints the client's alone", operatorErr)
	}
	return nil
}

// operators finds the managers by their leader lease (evalv1.LeaderLeaseName) in every
// namespace, whatever installed them, and reads the image of the Pod that holds each lease.
func (o *Options) operators(ctx context.Context) ([]Operator, error) {
	cl, _, err := o.Cluster.Client()
	if err != nil {
		return nil, err
	}
	leases := &coordinationv1.LeaseList{}
	if err := cl.List(ctx, leases, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", evalv1.LeaderLeaseName)}); err != nil {
		return nil, fmt.Errorf("listing leases named %s: %w: the operator is found by its leader lease, so you need list on leases in all namespaces", evalv1.LeaderLeaseName, err)
	}
	if len(leases.Items) == 0 {
		return nil, fmt.Errorf("no lease %s in any namespace: the operator is not installed or has never become leader; `sweep infra doctor` checks it", evalv1.LeaderLeaseName)
	}
	var ops []Operator
	var errs []error
	for _, l := range leases.Items {
		op, err := leader(ctx, cl, l)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Namespace < ops[j].Namespace })
	return ops, errors.Join(errs...)
}

// leader reads the Pod named in the lease's holder identity, which controller-runtime writes
// as POD_UUID.
func leader(ctx context.Context, cl client.Client, l coordinationv1.Lease) (Operator, error) {
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return Operator{}, fmt.Errorf("lease %s in namespace %s has no holder: no manager is leader now", l.Name, l.Namespace)
	}
	podName, _, _ := strings.Cut(*l.Spec.HolderIdentity, "_")
	pod := &corev1.Pod{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: l.Namespace, Name: podName}, pod); err != nil {
		return Operator{}, fmt.Errorf("reading the leader Pod %s in namespace %s (holder of lease %s): %w", podName, l.Namespace, l.Name, err)
	}
	op := Operator{Namespace: l.Namespace, Pod: podName}
	if len(pod.Spec.Containers) > 0 {
		op.Image = pod.Spec.Containers[0].Image
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if len(pod.Spec.Containers) > 0 && cs.Name == pod.Spec.Containers[0].Name {
			op.ImageID = cs.ImageID
		}
	}
	return op, nil
}

func writeText(w io.Writer, info Info, clientOnly bool) error {
	c := info.Client
	details := []string{}
	if c.Revision != "" {
		rev := "revision " + c.Revision
		if c.Modified {
			rev += " (modified)"
		}
		details = append(details, rev)
	}
	if c.BuildTime != "" {
		details = append(details, "committed "+c.BuildTime)
	}
	details = append(details, c.GoVersion)
	fmt.Fprintf(w, "Client Version: %s (%s)\n", c.Version, strings.Join(details, ", "))
	if clientOnly {
		return nil
	}
	for _, op := range info.Operators {
		id := ""
		if op.ImageID != "" {
			id = " (" + op.ImageID + ")"
		}
		fmt.Fprintf(w, "Operator Image: %s%s, leader Pod %s in namespace %s\n", op.Image, id, op.Pod, op.Namespace)
	}
	return nil
}
