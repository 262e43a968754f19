// Package doctor decides the checks of `sweep infra doctor` from what the cluster reports: each
// check is ok, warn or fail with a one-line message and, unless ok, a one-line fix. Gathering
// the facts is the CLI's job; the decisions are here so that every path is tested.
package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Status of a check.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Result is one check's outcome.
type Result struct {
	Check   string `json:"check"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Check names.
const (
	CheckAPI      = "api-server"
	CheckCRDs     = "crds"
	CheckOperator = "operator"
	CheckRBAC     = "rbac"
	CheckNodes    = "node-capacity"
	CheckNetwork  = "network-policy"
	CheckImages   = "images"
)

// MinMinor is the first Kubernetes 1.x whose native sidecars (init containers with
// restartPolicy Always) are on by default; the trial Pods' collector is one.
const MinMinor = 29

// APIServer checks that the API answered and is new enough.
func APIServer(host, gitVersion, minor string, err error) Result {
	r := Result{Check: CheckAPI}
	if err != nil {
		r.Status, r.Message = Fail, fmt.Sprintf("%s does not answer: %v", host, err)
		r.Fix = "check the cluster with `kubectl cluster-info`, or pick another with --kubeconfig / --context"
		return r
	}
	n, convErr := strconv.Atoi(strings.TrimRight(minor, "+"))
	switch {
	case convErr != nil:
		r.Status, r.Message = Warn, fmt.Sprintf("%s answers, Kubernetes %s: minor version %q unreadable, native sidecars need 1.%d+", host, gitVersion, minor, MinMinor)
		r.Fix = fmt.Sprintf("make sure the cluster runs Kubernetes 1.%d or later", MinMinor)
	case n < MinMinor:
		r.Status, r.Message = Fail, fmt.Sprintf("%s answers, Kubernetes %s: trial Pods use native sidecars, which need 1.%d+", host, gitVersion, MinMinor)
		r.Fix = fmt.Sprintf("upgrade the cluster to Kubernetes 1.%d or later", MinMinor)
	default:
		r.Status, r.Message = OK, fmt.Sprintf("%s answers, Kubernetes %s (native sidecars need 1.%d+)", host, gitVersion, MinMinor)
	}
	return r
}

// CRD is what the cluster says about one CustomResourceDefinition; nil means it is missing.
type CRD struct {
	Name        string
	Served      []string
	Established bool
}

// CRDs checks that every wanted CRD is installed and serves version.
func CRDs(wanted []string, found map[string]*CRD, version string) Result {
	r := Result{Check: CheckCRDs, Status: OK}
	var missing, wrong, pending []string
	for _, name := range wanted {
		c := found[name]
		switch {
		case c == nil:
			missing = append(missing, name)
		case !contains(c.Served, version):
			wrong = append(wrong, fmt.Sprintf("%s serves %s", name, strings.Join(c.Served, ",")))
		case !c.Established:
			pending = append(pending, name)
		}
	}
	switch {
	case len(missing) > 0:
		r.Status, r.Message = Fail, "not installed: "+strings.Join(missing, ", ")
		r.Fix = "install the CRDs: kubectl apply -f config/crd/bases (or the operator's release manifests)"
	case len(wrong) > 0:
		r.Status, r.Message = Fail, fmt.Sprintf("want version %s: %s", version, strings.Join(wrong, "; "))
		r.Fix = "install the CRDs of this sweep release: kubectl apply -f config/crd/bases"
	case len(pending) > 0:
		r.Status, r.Message = Warn, "not established yet: "+strings.Join(pending, ", ")
		r.Fix = "wait a moment and run the doctor again; if it stays, see `kubectl describe crd " + pending[0] + "`"
	default:
		r.Message = fmt.Sprintf("%s installed at %s", strings.Join(wanted, ", "), version)
	}
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Lease is the operator's leader-election lease.
type Lease struct {
	Namespace, Holder string
	Renewed           time.Time
	Duration          time.Duration
}

// Operator checks that a manager holds a fresh leader lease. forbidden means the lease could
// not be read.
func Operator(leaseName string, leases []Lease, forbidden bool, now time.Time) Result {
	r := Result{Check: CheckOperator}
	if forbidden {
		r.Status, r.Message = Warn, fmt.Sprintf("cannot read leases to find the operator's lease %s", leaseName)
		r.Fix = "ask for list on coordination.k8s.io leases, or check the manager's Deployment with kubectl"
		return r
	}
	if len(leases) == 0 {
		r.Status, r.Message = Fail, fmt.Sprintf("no operator running: no leader lease %s in any namespace", leaseName)
		r.Fix = "deploy the manager (the operator's release manifests) and check its Pod's logs"
		return r
	}
	sort.Slice(leases, func(i, j int) bool { return leases[i].Renewed.After(leases[j].Renewed) })
	l := leases[0]
	// A lease not renewed for three lease durations has no live holder.
	stale := 3 * max(l.Duration, 15*time.Second)
	if age := now.Sub(l.Renewed); age > stale {
		r.Status, r.Message = Warn, fmt.Sprintf("lease %s/%s held by %s was last renewed %s ago: the operator looks stopped", l.Namespace, leaseName, l.Holder, age.Round(time.Second))
		r.Fix = fmt.Sprintf("check the manager's Pod in namespace %s (kubectl get pods -n %s)", l.Namespace, l.Namespace)
		return r
	}
	r.Status, r.Message = OK, fmt.Sprintf("running: %s holds lease %s/%s", l.Holder, l.Namespace, leaseName)
	return r
}

// Access is one SelfSubjectAccessReview's answer.
type Access struct {
	Verb, Resource string
	Allowed        bool
	Err            error
}

// RBAC checks that the user may do what the CLI's verbs do in namespace.
func RBAC(namespace string, answers []Access) Result {
	r := Result{Check: CheckRBAC, Status: OK}
	var denied, failed []string
	for _, a := range answers {
		switch {
		case a.Err != nil:
			failed = append(failed, fmt.Sprintf("%s %s (%v)", a.Verb, a.Resource, a.Err))
		case !a.Allowed:
			denied = append(denied, a.Verb+" "+a.Resource)
		}
	}
	switch {
	case len(denied) > 0:
		r.Status, r.Message = Fail, fmt.Sprintf("not allowed in namespace %s: %s", namespace, strings.Join(denied, ", "))
		r.Fix = fmt.Sprintf("ask an admin for a Role in %s granting these (kubectl auth can-i create sweepruns -n %s)", namespace, namespace)
	case len(failed) > 0:
		r.Status, r.Message = Warn, "could not check: "+strings.Join(failed, ", ")
		r.Fix = fmt.Sprintf("try kubectl auth can-i create sweepruns -n %s", namespace)
	default:
		r.Message = fmt.Sprintf("may create sweepruns and secrets and read tasktrials in namespace %s", namespace)
	}
	return r
}

// Node is one node's allocatable resources.
type Node struct {
	Name          string
	CPU, Memory   resource.Quantity
	Unschedulable bool
}

// TaskRequest is what one task's trial Pods ask for.
type TaskRequest struct {
	Task        string
	CPU, Memory resource.Quantity
}

// listLimit bounds the names a message lists.
const listLimit = 5

func list(names []string) string {
	if len(names) <= listLimit {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:listLimit], ", "), len(names)-listLimit)
}

// NodeFit checks that every task fits on some schedulable node.
func NodeFit(nodes []Node, tasks []TaskRequest) Result {
	r := Result{Check: CheckNodes}
	if len(tasks) == 0 {
		r.Status, r.Message = Warn, "no task ConfigMaps (label eval.sweep.dev/task) in the namespace to size"
		r.Fix = "install a catalogue: sweep tasks bundle DIR --registry REG -o OUT && kubectl apply -k OUT"
		return r
	}
	var usable []Node
	for _, n := range nodes {
		if !n.Unschedulable {
			usable = append(usable, n)
		}
	}
	if len(usable) == 0 {
		r.Status, r.Message = Fail, fmt.Sprintf("no schedulable nodes for %d tasks", len(tasks))
		r.Fix = "add nodes or uncordon one (kubectl uncordon NODE)"
		return r
	}
	var nowhere []string
	largest := tasks[0]
	for _, t := range tasks {
		if t.CPU.Cmp(largest.CPU) > 0 || (t.CPU.Cmp(largest.CPU) == 0 && t.Memory.Cmp(largest.Memory) > 0) {
			largest = t
		}
		fits := false
		for _, n := range usable {
			if t.CPU.Cmp(n.CPU) <= 0 && t.Memory.Cmp(n.Memory) <= 0 {
				fits = true
				break
			}
		}
		if !fits {
			nowhere = append(nowhere, fmt.Sprintf("%s (%s CPU, %s)", t.Task, t.CPU.String(), t.Memory.String()))
		}
	}
	biggest := usable[0]
	for _, n := range usable[1:] {
		if n.CPU.Cmp(biggest.CPU) > 0 {
			biggest = n
		}
	}
	if len(nowhere) > 0 {
		r.Status = Fail
		r.Message = fmt.Sprintf("%d of %d tasks fit on no node (largest node %s: %s CPU, %s): %s",
			len(nowhere), len(tasks), biggest.Name, biggest.CPU.String(), biggest.Memory.String(), list(nowhere))
		r.Fix = "add larger nodes, or scale requests down in the SweepRun: spec.resources {mode: Scaled, scale: \"0.25\"}"
		return r
	}
	r.Status = OK
	r.Message = fmt.Sprintf("all %d tasks fit on a node; the largest, %s, asks %s CPU and %s", len(tasks), largest.Task, largest.CPU.String(), largest.Memory.String())
	return r
}

// enforcingCNIs are network plugins known to enforce NetworkPolicy, by a word of their
// DaemonSet's name.
var enforcingCNIs = []string{"calico", "cilium", "antrea", "weave", "kube-router", "canal"}

// NetworkPolicy explains whether no-network stages are isolated: the API accepts
// NetworkPolicies whether or not the network plugin enforces them. daemonSets are the names of
// kube-system's DaemonSets; known is false when they could not be read.
func NetworkPolicy(daemonSets []string, known bool) Result {
	r := Result{Check: CheckNetwork, Status: Warn}
	r.Fix = "check that the CNI enforces NetworkPolicy (Calico, Cilium, Antrea do; flannel and kindnet alone do not)"
	if known {
		for _, ds := range daemonSets {
			for _, cni := range enforcingCNIs {
				if strings.Contains(ds, cni) {
					r.Status, r.Fix = OK, ""
					r.Message = fmt.Sprintf("network plugin %s enforces NetworkPolicy: no-network and allowlist stages are isolated", ds)
					return r
				}
			}
		}
		r.Message = "no network plugin known to enforce NetworkPolicy in kube-system: no-network stages may reach the network"
		return r
	}
	r.Message = "cannot tell the network plugin (kube-system DaemonSets unreadable): NetworkPolicies isolate stages only if it enforces them"
	return r
}

// Image is one image the catalogue references.
type Image struct {
	Task, Ref string
}

// Images checks the catalogue's images against those the nodes report holding. An image on no
// node may still be pullable; only pulling tells, so that is a warning.
func Images(images []Image, onNodes map[string]bool) Result {
	r := Result{Check: CheckImages}
	if len(images) == 0 {
		r.Status, r.Message = Warn, "no catalogue images to check (no task ConfigMaps)"
		r.Fix = "install a catalogue: kubectl apply -k OUT after sweep tasks bundle"
		return r
	}
	var absent, missingRef []string
	for _, img := range images {
		switch {
		case img.Ref == "":
			missingRef = append(missingRef, img.Task)
		case !onNodes[img.Ref]:
			absent = append(absent, img.Ref)
		}
	}
	switch {
	case len(missingRef) > 0:
		r.Status, r.Message = Fail, "tasks without an agent or verifier image annotation: "+list(missingRef)
		r.Fix = "rebundle them with sweep tasks bundle DIR --registry REG and kubectl apply -k OUT"
	case len(absent) > 0:
		r.Status = Warn
		r.Message = fmt.Sprintf("%d of %d images are on no node yet; whether they pull shows only when a trial starts: %s", len(absent), len(images), list(absent))
		r.Fix = "build and push them (sweep tasks images DIR --registry REG prints the commands); add spec.placement.imagePullSecrets for a private registry"
	default:
		r.Status, r.Message = OK, fmt.Sprintf("all %d images are present on some node", len(images))
	}
	return r
}

// Unreadable is the warning of a check whose facts the user may not read.
func Unreadable(check, what string, err error) Result {
	return Result{Check: check, Status: Warn, Message: fmt.Sprintf("cannot read %s: %v", what, err),
		Fix: fmt.Sprintf("ask for list on %s, or run the doctor as a cluster admin", what)}
}
