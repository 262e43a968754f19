package doctor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// expect checks a result's status and that its message and fix hold the given parts.
type expect struct {
	status Status
	msg    string
	fix    string
}

func check(t *testing.T, name string, got Result, want expect) {
	t.Helper()
	if got.Status != want.status || !strings.Contains(got.Message, want.msg) || !strings.Contains(got.Fix, want.fix) {
		t.Errorf("%s: got %s %q (fix %q), want %s with %q (fix %q)", name, got.Status, got.Message, got.Fix, want.status, want.msg, want.fix)
	}
	if (got.Status == OK) != (got.Fix == "") {
		t.Errorf("%s: status %s with fix %q: every warn and fail has a fix, ok has none", name, got.Status, got.Fix)
	}
}

func TestAPIServer(t *testing.T) {
	check(t, "unreachable", APIServer("https://h", "", "", errors.New("connection refused")), expect{Fail, "https://h does not answer: connection refused", "kubectl cluster-info"})
	check(t, "too old", APIServer("h", "v1.28.3", "28", nil), expect{Fail, "Kubernetes v1.28.3: trial Pods use native sidecars, which need 1.29+", "upgrade"})
	check(t, "new enough, managed minor", APIServer("h", "v1.30.1-eks", "30+", nil), expect{OK, "Kubernetes v1.30.1-eks", ""})
	check(t, "unreadable minor", APIServer("h", "v1.x", "x", nil), expect{Warn, `minor version "x" unreadable`, "1.29 or later"})
}

func TestCRDs(t *testing.T) {
	wanted := []string{"sweepruns.eval.sweep.dev", "tasktrials.eval.sweep.dev"}
	good := func(name string) *CRD { return &CRD{Name: name, Served: []string{"v1alpha1"}, Established: true} }
	check(t, "installed", CRDs(wanted, map[string]*CRD{wanted[0]: good(wanted[0]), wanted[1]: good(wanted[1])}, "v1alpha1"),
		expect{OK, "installed at v1alpha1", ""})
	check(t, "missing", CRDs(wanted, map[string]*CRD{wanted[0]: good(wanted[0])}, "v1alpha1"), expect{Fail, "not installed: tasktrials.eval.sweep.dev", "kubectl apply -f config/crd/bases"})
	old := &CRD{Name: wanted[1], Served: []string{"v0"}, Established: true}
	check(t, "other version", CRDs(wanted, map[string]*CRD{wanted[0]: good(wanted[0]), wanted[1]: old}, "v1alpha1"), expect{Fail, "want version v1alpha1: tasktrials.eval.sweep.dev serves v0", "this sweep release"})
	pending := &CRD{Name: wanted[1], Served: []string{"v1alpha1"}}
	check(t, "not established", CRDs(wanted, map[string]*CRD{wanted[0]: good(wanted[0]), wanted[1]: pending}, "v1alpha1"), expect{Warn, "not established yet", "kubectl describe crd tasktrials.eval.sweep.dev"})
}

func TestOperator(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	fresh := Lease{Namespace: "sweep-system", Holder: "manager-abc", Renewed: now.Add(-5 * time.Second), Duration: 15 * time.Second}
	stale := Lease{Namespace: "old", Holder: "manager-old", Renewed: now.Add(-time.Hour), Duration: 15 * time.Second}
	check(t, "running", Operator("l", []Lease{stale, fresh}, false, now), expect{OK, "manager-abc holds lease sweep-system/l", ""})
	check(t, "stale", Operator("l", []Lease{stale}, false, now), expect{Warn, "last renewed 1h0m0s ago", "kubectl get pods -n old"})
	check(t, "none", Operator("l", nil, false, now), expect{Fail, "no operator running: no leader lease l", "deploy the manager"})
	check(t, "forbidden", Operator("l", nil, true, now), expect{Warn, "cannot read leases", "list on coordination.k8s.io leases"})
}

func TestRBAC(t *testing.T) {
	check(t, "allowed", RBAC("ns", []Access{{Verb: "create", Resource: "sweepruns", Allowed: true}}), expect{OK, "may create sweepruns", ""})
	check(t, "denied", RBAC("ns", []Access{{Verb: "create", Resource: "sweepruns"}, {Verb: "create", Resource: "secrets", Allowed: true}}),
		expect{Fail, "not allowed in namespace ns: create sweepruns", "kubectl auth can-i create sweepruns -n ns"})
	check(t, "unknown", RBAC("ns", []Access{{Verb: "create", Resource: "sweepruns", Err: errors.New("boom")}}), expect{Warn, "could not check: create sweepruns (boom)", "kubectl auth can-i"})
}

func TestNodeFit(t *testing.T) {
	q := resource.MustParse
	big := Node{Name: "big", CPU: q("32"), Memory: q("128Gi")}
	small := Node{Name: "small", CPU: q("8"), Memory: q("32Gi")}
	sweep := TaskRequest{Task: "swe-sweep__arrow", CPU: q("16"), Memory: q("64Gi")}
	tiny := TaskRequest{Task: "hello", CPU: q("1"), Memory: q("2Gi")}
	check(t, "fits", NodeFit([]Node{small, big}, []TaskRequest{tiny, sweep}), expect{OK, "all 2 tasks fit on a node; the largest, swe-sweep__arrow, asks 16 CPU and 64Gi", ""})
	check(t, "too small", NodeFit([]Node{small, {Name: "cordoned", CPU: q("64"), Memory: q("256Gi"), Unschedulable: true}}, []TaskRequest{tiny, sweep}),
		expect{Fail, "1 of 2 tasks fit on no node (largest node small: 8 CPU, 32Gi): swe-sweep__arrow (16 CPU, 64Gi)", "spec.resources"})
	check(t, "no nodes", NodeFit(nil, []TaskRequest{tiny}), expect{Fail, "no schedulable nodes for 1 tasks", "uncordon"})
	check(t, "no tasks", NodeFit([]Node{big}, nil), expect{Warn, "no task ConfigMaps", "sweep tasks bundle"})
	var many []TaskRequest
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		many = append(many, TaskRequest{Task: n, CPU: q("16"), Memory: q("64Gi")})
	}
	check(t, "many tasks fit nowhere", NodeFit([]Node{small}, many), expect{Fail, "e (16 CPU, 64Gi) and 2 more", "spec.resources"})
}

func TestNetworkPolicy(t *testing.T) {
	check(t, "calico", NetworkPolicy([]string{"kube-proxy", "calico-node"}, true), expect{OK, "calico-node enforces NetworkPolicy", ""})
	check(t, "flannel", NetworkPolicy([]string{"kube-proxy", "kube-flannel-ds"}, true), expect{Warn, "no network plugin known to enforce", "Calico, Cilium"})
	check(t, "unknown", NetworkPolicy(nil, false), expect{Warn, "cannot tell the network plugin", "enforces NetworkPolicy"})
}

func TestImages(t *testing.T) {
	imgs := []Image{{Task: "a", Ref: "r/a-env:1"}, {Task: "a", Ref: "r/a-verifier:1"}}
	check(t, "present", Images(imgs, map[string]bool{"r/a-env:1": true, "r/a-verifier:1": true}), expect{OK, "all 2 images are present", ""})
	check(t, "absent", Images(imgs, map[string]bool{"r/a-env:1": true}), expect{Warn, "1 of 2 images are on no node yet", "sweep tasks images"})
	check(t, "no annotation", Images(append(imgs, Image{Task: "b"}), nil), expect{Fail, "without an agent or verifier image annotation: b", "rebundle"})
	check(t, "no catalogue", Images(nil, nil), expect{Warn, "no catalogue images", "kubectl apply -k"})
}

func TestUnreadable(t *testing.T) {
	check(t, "forbidden", Unreadable(CheckNodes, "nodes", errors.New("forbidden")), expect{Warn, "cannot read nodes: forbidden", "ask for list on nodes"})
}
