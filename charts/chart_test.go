// Package charts holds the operator's Helm chart (charts/sweep-operator); these tests run the
// real helm that hack/helm.sh builds: lint, and template, whose default objects must be the
// ones `kustomize build config/default` renders.
package charts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const (
	chart     = "sweep-operator"
	release   = "sweep-operator"
	namespace = "sweep-system"
	manager   = "sweep-operator-manager"
	// The metrics endpoint's ClusterRoles: its own TokenReview and SubjectAccessReview rights,
	// and the one a scraper is bound to.
	metricsAuth   = "sweep-operator-metrics-auth"
	metricsReader = "sweep-operator-metrics-reader"
	// The default artifact store: a directory on the chart's PersistentVolumeClaim, as in config/.
	storeClaim = "sweep-operator-store"
	storeDir   = "/var/lib/sweep-operator/store"
	storeFlag  = "--artifact-store=file://" + storeDir
)

// storeMount and storeVolume are the manager's store volume as the chart renders it.
var storeMount = corev1.VolumeMount{Name: "store", MountPath: storeDir}

func storeVolume(claim string) corev1.Volume {
	return corev1.Volume{Name: "store", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

// helm is the pinned helm of hack/helm.sh; the tests fail without it rather than skip, so that
// a missing binary is never mistaken for a passing chart.
func helm(t *testing.T) string {
	t.Helper()
	bin, err := findHelm()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// findHelm asks hack/helm.sh where its helm (of HELM_VERSION, default the pinned one) is.
func findHelm() (string, error) {
	out, err := exec.Command("bash", filepath.Join("..", "hack", "helm.sh"), "--path").Output()
	if err != nil {
		return "", fmt.Errorf("hack/helm.sh --path: %w", err)
	}
	bin := strings.TrimSpace(string(out))
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("helm is not built (%w): run hack/helm.sh or make helm, which build it from the Go module proxy once; make test does it too", err)
	}
	return bin, nil
}

func TestMissingHelmSaysHowToBuildIt(t *testing.T) {
	t.Setenv("HELM_VERSION", "v0.0.0-never-built")
	_, err := findHelm()
	if err == nil || !strings.Contains(err.Error(), "helm-v0.0.0-never-built") || !strings.Contains(err.Error(), "run hack/helm.sh or make helm") {
		t.Errorf("err = %v, want one naming the missing binary and hack/helm.sh", err)
	}
}

// runHelm runs helm in this directory with a home of its own, so no user's repositories,
// plugins or caches take part.
func runHelm(t *testing.T, args ...string) (stdout []byte, err error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helm(t), args...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err = cmd.Output()
	if err != nil {
		return stdout, errors.New(strings.TrimSpace(stderr.String()) + ": " + err.Error())
	}
	return stdout, nil
}

// objects are rendered objects by kind/namespace/name, as JSON-decoded maps so that both
// renderers' numbers and nesting compare alike.
type objects map[string]map[string]any

func key(kind, ns, name string) string { return kind + "/" + ns + "/" + name }

func (o objects) add(t *testing.T, doc []byte) {
	t.Helper()
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("rendered YAML: %v\n%s", err, doc)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	if m == nil {
		return
	}
	u := unstructured.Unstructured{Object: m}
	k := key(u.GetKind(), u.GetNamespace(), u.GetName())
	if _, dup := o[k]; dup {
		t.Fatalf("%s rendered twice", k)
	}
	o[k] = m
}

// get decodes one rendered object into a typed one (or a map).
func (o objects) get(t *testing.T, kind, ns, name string, into any) {
	t.Helper()
	m, ok := o[key(kind, ns, name)]
	if !ok {
		t.Fatalf("no %s %s/%s among the rendered %v", kind, ns, name, o.keys())
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatal(err)
	}
}

func (o objects) keys() []string {
	var out []string
	for k := range o {
		out = append(out, k)
	}
	return out
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

func (o objects) ofKind(kind string) []string {
	var out []string
	for k := range o {
		if strings.HasPrefix(k, kind+"/") {
			out = append(out, k)
		}
	}
	return out
}

// render is `helm template` of the chart as the release sweep-operator in sweep-system, with
// its CRDs.
func render(t *testing.T, args ...string) objects {
	t.Helper()
	out, err := template(t, args...)
	if err != nil {
		t.Fatalf("helm template %v: %v", args, err)
	}
	return out
}

func template(t *testing.T, args ...string) (objects, error) {
	t.Helper()
	out, err := runHelm(t, append([]string{"template", release, chart, "--namespace", namespace, "--include-crds"}, args...)...)
	if err != nil {
		return nil, err
	}
	objs := objects{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(out)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			t.Fatalf("helm template output: %v", err)
		}
		objs.add(t, doc)
	}
}

func kustomize(t *testing.T, dir string) objects {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	objs := objects{}
	for _, r := range m.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		objs.add(t, b)
	}
	return objs
}

// helmOnlyLabels are Helm's bookkeeping, which config/ has no use for. The selectors keep
// app.kubernetes.io/name, which is config/'s selector.
var helmOnlyLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}

// keepOnUninstall is the annotation by which helm uninstall leaves an object (the store's
// volume) in place; kubectl delete -k has no such notion.
const keepOnUninstall = "helm.sh/resource-policy"

func withoutHelmLabels(objs objects) objects {
	for _, m := range objs {
		if annotations, found, _ := unstructured.NestedStringMap(m, "metadata", "annotations"); found {
			delete(annotations, keepOnUninstall)
			if len(annotations) == 0 {
				unstructured.RemoveNestedField(m, "metadata", "annotations")
			} else if err := unstructured.SetNestedStringMap(m, annotations, "metadata", "annotations"); err != nil {
				panic(err)
			}
		}
		for _, path := range [][]string{
			{"metadata", "labels"},
			{"spec", "selector"},                       // Service
			{"spec", "selector", "matchLabels"},        // Deployment
			{"spec", "template", "metadata", "labels"}, // Deployment
			{"spec", "podSelector", "matchLabels"},     // NetworkPolicy
		} {
			labels, found, _ := unstructured.NestedMap(m, path...)
			if !found {
				continue
			}
			for _, l := range helmOnlyLabels {
				delete(labels, l)
			}
			if err := unstructured.SetNestedMap(m, labels, path...); err != nil {
				panic(err)
			}
		}
	}
	return objs
}

// Lint with the defaults and with every optional object on.
func TestHelmLint(t *testing.T) {
	for _, values := range [][]string{
		nil,
		{"--set", "serviceMonitor.enabled=true,networkPolicy.enabled=true,replicas=2,watchNamespaces={team-a}"},
	} {
		out, err := runHelm(t, append([]string{"lint", "--strict", chart}, values...)...)
		if err != nil {
			t.Errorf("helm lint --strict %s %v: %v\n%s", chart, values, err, out)
		}
	}
}

// The chart and config/ deploy the same operator: every object and every field of it, Helm's
// labels aside. `helm install --create-namespace` makes the Namespace config/ declares.
func TestDefaultsRenderConfigDefault(t *testing.T) {
	want := kustomize(t, filepath.Join("..", "config", "default"))
	ns := key("Namespace", "", namespace)
	if _, ok := want[ns]; !ok {
		t.Fatalf("config/default has no Namespace %s: %v", namespace, want.keys())
	}
	delete(want, ns)
	got := withoutHelmLabels(render(t))
	if diff := cmp.Diff(sorted(want.keys()), sorted(got.keys())); diff != "" {
		t.Errorf("helm template (defaults) renders other objects than kustomize build config/default (-kustomize +helm):\n%s", diff)
	}
	for k, w := range want {
		if g, ok := got[k]; ok {
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("%s: helm template (defaults) differs from kustomize build config/default (-kustomize +helm):\n%s", k, diff)
			}
		}
	}
}

// The chart's generated files are copies of config/'s, which `make manifests` writes; a stale
// copy would install other CRDs or rules than the controllers were built with.
func TestGeneratedFilesAreConfigs(t *testing.T) {
	bases, err := filepath.Glob(filepath.Join("..", "config", "crd", "bases", "*.yaml"))
	if err != nil || len(bases) == 0 {
		t.Fatalf("no CRDs in config/crd/bases: %v", err)
	}
	pairs := map[string]string{
		filepath.Join("..", "config", "rbac", "role.yaml"):              filepath.Join(chart, "files", "role.yaml"),
		filepath.Join("..", "config", "rbac", "metrics_auth_role.yaml"): filepath.Join(chart, "files", "metrics_auth_role.yaml"),
	}
	for _, b := range bases {
		pairs[b] = filepath.Join(chart, "crds", filepath.Base(b))
	}
	copies, err := filepath.Glob(filepath.Join(chart, "crds", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) != len(bases) {
		t.Errorf("%s/crds has %d files, config/crd/bases %d: run make manifests", chart, len(copies), len(bases))
	}
	for src, dst := range pairs {
		want, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(dst)
		if err != nil {
			t.Errorf("%v: run make manifests", err)
			continue
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s is not a copy of %s: run make manifests", dst, src)
		}
	}
}

// deployment is the rendered manager Deployment.
func (o objects) deployment(t *testing.T) appsv1.Deployment {
	t.Helper()
	var d appsv1.Deployment
	o.get(t, "Deployment", namespace, manager, &d)
	return d
}

func managerArgs(t *testing.T, o objects) []string {
	t.Helper()
	return o.deployment(t).Spec.Template.Spec.Containers[0].Args
}

// ServiceMonitor is the part of prometheus-operator's type the chart sets.
type serviceMonitor struct {
	Spec struct {
		Selector          metav1.LabelSelector `json:"selector"`
		NamespaceSelector struct {
			MatchNames []string `json:"matchNames"`
		} `json:"namespaceSelector"`
		Endpoints []map[string]any `json:"endpoints"`
	} `json:"spec"`
}

func TestValuesOverrides(t *testing.T) {
	podLabels := map[string]string{"app.kubernetes.io/name": chart, "app.kubernetes.io/instance": release}
	roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: manager}
	subjects := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: manager, Namespace: namespace}}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, o objects)
	}{{
		name: "watched namespaces: the flag, and RoleBindings there and for the lease instead of the ClusterRoleBinding",
		args: []string{"--set", "watchNamespaces={team-a,team-b}"},
		check: func(t *testing.T, o objects) {
			if diff := cmp.Diff([]string{"--leader-elect", "--metrics-bind-address=:8443", "--health-probe-bind-address=:8081", storeFlag, "--watch-namespaces=team-a,team-b"}, managerArgs(t, o)); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			// Only the metrics endpoint's TokenReview and SubjectAccessReview, which are
			// cluster-scoped, are bound cluster-wide.
			if diff := cmp.Diff([]string{"ClusterRoleBinding//" + metricsAuth}, o.ofKind("ClusterRoleBinding")); diff != "" {
				t.Errorf("ClusterRoleBindings with watched namespaces (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"RoleBinding/sweep-system/" + manager, "RoleBinding/team-a/" + manager, "RoleBinding/team-b/" + manager}, sorted(o.ofKind("RoleBinding"))); diff != "" {
				t.Errorf("RoleBindings (-want +got):\n%s", diff)
			}
			for _, ns := range []string{"team-a", "team-b", namespace} {
				var rb rbacv1.RoleBinding
				o.get(t, "RoleBinding", ns, manager, &rb)
				if diff := cmp.Diff(roleRef, rb.RoleRef); diff != "" {
					t.Errorf("%s: roleRef (-want +got):\n%s", ns, diff)
				}
				if diff := cmp.Diff(subjects, rb.Subjects); diff != "" {
					t.Errorf("%s: subjects (-want +got):\n%s", ns, diff)
				}
			}
		},
	}, {
		name: "the release's namespace among the watched ones is bound once",
		args: []string{"--set", "watchNamespaces={sweep-system,team-a}"},
		check: func(t *testing.T, o objects) {
			if diff := cmp.Diff([]string{"RoleBinding/sweep-system/" + manager, "RoleBinding/team-a/" + manager}, sorted(o.ofKind("RoleBinding"))); diff != "" {
				t.Errorf("RoleBindings (-want +got):\n%s", diff)
			}
		},
	}, {
		name: "replicas with leader election",
		args: []string{"--set", "replicas=3"},
		check: func(t *testing.T, o objects) {
			d := o.deployment(t)
			if *d.Spec.Replicas != 3 || managerArgs(t, o)[0] != "--leader-elect" {
				t.Errorf("replicas %d, args %v: want 3 electing a leader", *d.Spec.Replicas, managerArgs(t, o))
			}
		},
	}, {
		name: "one replica without leader election",
		args: []string{"--set", "leaderElection.enabled=false"},
		check: func(t *testing.T, o objects) {
			if got := managerArgs(t, o)[0]; got != "--leader-elect=false" {
				t.Errorf("first arg %q, want --leader-elect=false", got)
			}
		},
	}, {
		name: "images and pull secrets",
		args: []string{"--set", "image.repository=registry.example/sweep/manager,image.tag=c-0123456789abcdef,image.pullPolicy=Always",
			"--set", "hookImage.repository=registry.example/sweep/sweep-hook,hookImage.tag=c-fedcba9876543210",
			"--set", "image.pullSecrets={regcred,mirror}"},
		check: func(t *testing.T, o objects) {
			pod := o.deployment(t).Spec.Template.Spec
			c := pod.Containers[0]
			want := []any{"registry.example/sweep/manager:c-0123456789abcdef", corev1.PullAlways, []corev1.EnvVar{{Name: "SWEEP_HOOK_IMAGE", Value: "registry.example/sweep/sweep-hook:c-fedcba9876543210"}},
				[]corev1.LocalObjectReference{{Name: "regcred"}, {Name: "mirror"}}}
			if diff := cmp.Diff(want, []any{c.Image, c.ImagePullPolicy, c.Env, pod.ImagePullSecrets}); diff != "" {
				t.Errorf("image, pull policy, env, pull secrets (-want +got):\n%s", diff)
			}
		},
	}, {
		name: "ServiceMonitor on: it selects the metrics Service and scrapes its port over HTTPS with a bearer token",
		args: []string{"--set", "serviceMonitor.enabled=true,serviceMonitor.interval=15s,serviceMonitor.labels.release=prometheus"},
		check: func(t *testing.T, o objects) {
			var sm serviceMonitor
			o.get(t, "ServiceMonitor", namespace, manager, &sm)
			var svc corev1.Service
			o.get(t, "Service", namespace, manager+"-metrics", &svc)
			sel, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
			if err != nil {
				t.Fatal(err)
			}
			if !sel.Matches(labels.Set(svc.Labels)) {
				t.Errorf("the ServiceMonitor's selector %v misses the Service's labels %v", sel, svc.Labels)
			}
			if diff := cmp.Diff([]string{namespace}, sm.Spec.NamespaceSelector.MatchNames); diff != "" {
				t.Errorf("namespaces (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]map[string]any{{"port": svc.Spec.Ports[0].Name, "path": "/metrics", "interval": "15s", "scheme": "https",
				"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token", "tlsConfig": map[string]any{"insecureSkipVerify": true}}}, sm.Spec.Endpoints); diff != "" {
				t.Errorf("endpoints (-want +got):\n%s", diff)
			}
			smLabels, _, _ := unstructured.NestedStringMap(o[key("ServiceMonitor", namespace, manager)], "metadata", "labels")
			if smLabels["release"] != "prometheus" {
				t.Errorf("ServiceMonitor labels %v lack release=prometheus", smLabels)
			}
		},
	}, {
		name: "NetworkPolicy on: the manager's Pods, ingress to the metrics port from the given peers",
		args: []string{"--set", "networkPolicy.enabled=true", "--set-json", `networkPolicy.metricsFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]`},
		check: func(t *testing.T, o objects) {
			var np networkingv1.NetworkPolicy
			o.get(t, "NetworkPolicy", namespace, manager, &np)
			tcp, metrics := corev1.ProtocolTCP, intstr.FromString("https")
			want := networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: podLabels},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress: []networkingv1.NetworkPolicyIngressRule{{
					Ports: []networkingv1.NetworkPolicyPort{{Port: &metrics, Protocol: &tcp}},
					From:  []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"}}}},
				}},
			}
			if diff := cmp.Diff(want, np.Spec); diff != "" {
				t.Errorf("NetworkPolicy (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(podLabels, o.deployment(t).Spec.Template.Labels); diff != "" {
				t.Errorf("the policy's selector is not the Pods' labels (-want +got):\n%s", diff)
			}
		},
	}, {
		name: "NetworkPolicy with egress rules restricts egress too; without metrics ingress is closed",
		args: []string{"--set", "networkPolicy.enabled=true,metrics.enabled=false", "--set-json", `networkPolicy.egress=[{"ports":[{"port":6443,"protocol":"TCP"}]}]`},
		check: func(t *testing.T, o objects) {
			var np networkingv1.NetworkPolicy
			o.get(t, "NetworkPolicy", namespace, manager, &np)
			tcp, apiserver := corev1.ProtocolTCP, intstr.FromInt32(6443)
			want := networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: podLabels},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{},
				Egress:      []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: &apiserver, Protocol: &tcp}}}},
			}
			if diff := cmp.Diff(want, np.Spec); diff != "" {
				t.Errorf("NetworkPolicy (-want +got):\n%s", diff)
			}
		},
	}, {
		name: "metrics off: bind address 0, no port, no Service",
		args: []string{"--set", "metrics.enabled=false"},
		check: func(t *testing.T, o objects) {
			c := o.deployment(t).Spec.Template.Spec.Containers[0]
			if c.Args[1] != "--metrics-bind-address=0" || len(c.Ports) != 0 {
				t.Errorf("args %v, ports %v: want metrics off", c.Args, c.Ports)
			}
			if svc := o.ofKind("Service"); len(svc) != 0 {
				t.Errorf("a metrics Service with metrics off: %v", svc)
			}
		},
	}, {
		name: "metrics port: flag, container port, Service port",
		args: []string{"--set", "metrics.port=9090"},
		check: func(t *testing.T, o objects) {
			c := o.deployment(t).Spec.Template.Spec.Containers[0]
			var svc corev1.Service
			o.get(t, "Service", namespace, manager+"-metrics", &svc)
			got := []any{c.Args[1], c.Ports[0].ContainerPort, svc.Spec.Ports[0].Port, svc.Spec.Ports[0].TargetPort}
			if diff := cmp.Diff([]any{"--metrics-bind-address=:9090", int32(9090), int32(9090), intstr.FromString("https")}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		},
	}, {
		name:  "metrics over plain HTTP: the flag, an http port, a plain ServiceMonitor, no metrics RBAC",
		args:  []string{"--set", "metrics.secure=false,serviceMonitor.enabled=true"},
		check: plainHTTPMetrics,
	}, {
		name:  "a metrics certificate: the Secret mounted read-only and its directory passed",
		args:  []string{"--set", "metrics.certSecretName=metrics-tls"},
		check: metricsCertificate,
	}, {
		name: "placement and resources of the manager's Pods",
		args: []string{"--set", "nodeSelector.pool=system,resources.limits.cpu=1",
			"--set-json", `tolerations=[{"key":"dedicated","operator":"Equal","value":"system","effect":"NoSchedule"}]`,
			"--set-json", `affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}]}}}`},
		check: func(t *testing.T, o objects) {
			pod := o.deployment(t).Spec.Template.Spec
			want := corev1.PodSpec{
				NodeSelector: map[string]string{"pool": "system"},
				Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "system", Effect: corev1.TaintEffectNoSchedule}},
				Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}}}}},
				}}},
			}
			got := corev1.PodSpec{NodeSelector: pod.NodeSelector, Tolerations: pod.Tolerations, Affinity: pod.Affinity}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("placement (-want +got):\n%s", diff)
			}
			limits := pod.Containers[0].Resources.Limits
			if limits.Cpu().String() != "1" || limits.Memory().String() != "512Mi" {
				t.Errorf("limits %v: want cpu 1 beside the default memory 512Mi", limits)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, render(t, tc.args...)) })
	}
}

// The store values: where the manager's --artifact-store points, its volume, its credentials.
func TestStoreValues(t *testing.T) {
	oldPodFirst := appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
		MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}}
	credentials := []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "sweep-operator-store"}, Optional: ptr.To(true)}}}
	emptyDir := corev1.Volume{Name: "store", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	const s3URL = "s3://records/campaigns?region=eu-west-1&endpoint=http://10.0.0.1:8333&use_path_style=true"
	for _, tc := range []struct {
		name string
		args []string
		// want is the part of the manager's Pod the store values set.
		want storePod
		// claim is the PersistentVolumeClaim the chart makes, if any.
		claim *corev1.PersistentVolumeClaimSpec
		// saAnnotations are the manager's ServiceAccount's.
		saAnnotations map[string]string
	}{{
		name:  "defaults: a file:// store on the chart's claim, which helm uninstall keeps",
		want:  storePod{Strategy: oldPodFirst, Args: []string{storeFlag}, EnvFrom: credentials, Mounts: []corev1.VolumeMount{storeMount}, Volumes: []corev1.Volume{storeVolume(storeClaim)}},
		claim: claimSpec(nil, "10Gi"),
	}, {
		name:  "a storage class and a size",
		args:  []string{"--set", "store.persistence.storageClassName=fast,store.persistence.size=200Gi"},
		want:  storePod{Strategy: oldPodFirst, Args: []string{storeFlag}, EnvFrom: credentials, Mounts: []corev1.VolumeMount{storeMount}, Volumes: []corev1.Volume{storeVolume(storeClaim)}},
		claim: claimSpec(ptr.To("fast"), "200Gi"),
	}, {
		name:  "storage class \"-\": none, to bind a PersistentVolume made by hand",
		args:  []string{"--set", "store.persistence.storageClassName=-"},
		want:  storePod{Strategy: oldPodFirst, Args: []string{storeFlag}, EnvFrom: credentials, Mounts: []corev1.VolumeMount{storeMount}, Volumes: []corev1.Volume{storeVolume(storeClaim)}},
		claim: claimSpec(ptr.To(""), "10Gi"),
	}, {
		name: "an existing claim, mounted where the URL says; the chart makes none",
		args: []string{"--set", "store.persistence.existingClaim=records,store.url=file:///records"},
		want: storePod{Strategy: oldPodFirst, Args: []string{"--artifact-store=file:///records"}, EnvFrom: credentials,
			Mounts: []corev1.VolumeMount{{Name: "store", MountPath: "/records"}}, Volumes: []corev1.Volume{storeVolume("records")}},
	}, {
		name: "persistence off: an emptyDir, and a rolling update",
		args: []string{"--set", "store.persistence.enabled=false"},
		want: storePod{Args: []string{storeFlag}, EnvFrom: credentials, Mounts: []corev1.VolumeMount{storeMount}, Volumes: []corev1.Volume{emptyDir}},
	}, {
		name: "an S3 store: the URL as given, its credentials, no volume",
		args: []string{"--set-string", "store.url=" + s3URL, "--set", "store.credentialsSecret=s3-records"},
		want: storePod{Args: []string{"--artifact-store=" + s3URL},
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s3-records"}, Optional: ptr.To(true)}}}},
	}, {
		name: "no store, no credentials",
		args: []string{"--set", "store.url=,store.credentialsSecret="},
	}, {
		name: "a gs:// store with the cloud's workload identity: no volume, the ServiceAccount annotated",
		args: []string{"--set", "store.url=gs://records/campaigns,store.credentialsSecret=",
			"--set-string", "serviceAccount.annotations.iam\\.gke\\.io/gcp-service-account=sweep@project.iam.gserviceaccount.com"},
		want:          storePod{Args: []string{"--artifact-store=gs://records/campaigns"}},
		saAnnotations: map[string]string{"iam.gke.io/gcp-service-account": "sweep@project.iam.gserviceaccount.com"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			o := render(t, tc.args...)
			d := o.deployment(t)
			pod := d.Spec.Template.Spec
			c := pod.Containers[0]
			got := storePod{Strategy: d.Spec.Strategy, EnvFrom: c.EnvFrom, Mounts: c.VolumeMounts, Volumes: pod.Volumes}
			for _, a := range c.Args {
				if strings.HasPrefix(a, "--artifact-store") {
					got.Args = append(got.Args, a)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("manager Pod (-want +got):\n%s", diff)
			}
			var sa corev1.ServiceAccount
			o.get(t, "ServiceAccount", namespace, manager, &sa)
			if diff := cmp.Diff(tc.saAnnotations, sa.Annotations); diff != "" {
				t.Errorf("ServiceAccount annotations (-want +got):\n%s", diff)
			}
			if fs := pod.SecurityContext.FSGroup; fs == nil || *fs != 65532 {
				t.Errorf("fsGroup %v: want the manager's group 65532, so that it can write the volume", fs)
			}
			claims := o.ofKind("PersistentVolumeClaim")
			if tc.claim == nil {
				if len(claims) != 0 {
					t.Errorf("PersistentVolumeClaims %v rendered, want none", claims)
				}
				return
			}
			var pvc corev1.PersistentVolumeClaim
			o.get(t, "PersistentVolumeClaim", namespace, storeClaim, &pvc)
			if diff := cmp.Diff(*tc.claim, pvc.Spec); diff != "" {
				t.Errorf("claim (-want +got):\n%s", diff)
			}
			if pvc.Annotations[keepOnUninstall] != "keep" {
				t.Errorf("claim annotations %v: want %s: keep, so that helm uninstall leaves the records", pvc.Annotations, keepOnUninstall)
			}
		})
	}
}

// storePod is the part of the manager's Deployment the store values set.
type storePod struct {
	Strategy appsv1.DeploymentStrategy
	Args     []string
	EnvFrom  []corev1.EnvFromSource
	Mounts   []corev1.VolumeMount
	Volumes  []corev1.Volume
}

func claimSpec(class *string, size string) *corev1.PersistentVolumeClaimSpec {
	return &corev1.PersistentVolumeClaimSpec{
		AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		StorageClassName: class,
		Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	}
}

// A bad value is refused by helm before anything reaches a cluster, naming the value.
func TestBadValues(t *testing.T) {
	const schema = "values don't meet the specifications of the schema"
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown value (a typo)", []string{"--set", "replica=2"}, []string{schema, "additional properties 'replica' not allowed"}},
		{"no replica", []string{"--set", "replicas=0"}, []string{schema, "/replicas", "minimum"}},
		{"pull policy", []string{"--set", "image.pullPolicy=Sometimes"}, []string{schema, "/image/pullPolicy"}},
		{"pull secrets as objects", []string{"--set-json", `image.pullSecrets=[{"name":"regcred"}]`}, []string{schema, "/image/pullSecrets/0"}},
		{"watched namespace not a name", []string{"--set", "watchNamespaces={Team_A}"}, []string{schema, "/watchNamespaces/0", "Team_A"}},
		{"watched namespaces as one string", []string{"--set", "watchNamespaces=team-a"}, []string{schema, "/watchNamespaces"}},
		{"metrics port out of range", []string{"--set", "metrics.port=70000"}, []string{schema, "/metrics/port"}},
		{"metrics port is the probes'", []string{"--set", "metrics.port=8081"}, []string{"metrics.port 8081 is the manager's health probe port"}},
		{"ServiceMonitor interval", []string{"--set", "serviceMonitor.interval=often"}, []string{schema, "/serviceMonitor/interval"}},
		{"ServiceMonitor without metrics", []string{"--set", "serviceMonitor.enabled=true,metrics.enabled=false"}, []string{"serviceMonitor.enabled needs metrics.enabled: true"}},
		{"store URL of an unknown scheme", []string{"--set", "store.url=http://records.example"}, []string{schema, "/store/url"}},
		{"file:// store at a relative path", []string{"--set", "store.url=file://records"}, []string{schema, "/store/url"}},
		{"store volume without a size", []string{"--set", "store.persistence.size="}, []string{schema, "/store/persistence/size"}},
		{"several managers without a leader", []string{"--set", "replicas=2,leaderElection.enabled=false"}, []string{"replicas > 1 needs leaderElection.enabled: true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := template(t, tc.args...)
			if err == nil {
				t.Fatalf("helm template %v rendered", tc.args)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// plainHTTPMetrics checks metrics.secure false: the flag, an http port, a plain
// ServiceMonitor endpoint, and none of the secure endpoint's RBAC.
func plainHTTPMetrics(t *testing.T, o objects) {
	c := o.deployment(t).Spec.Template.Spec.Containers[0]
	if diff := cmp.Diff([]string{"--leader-elect", "--metrics-bind-address=:8443", "--metrics-secure=false", "--health-probe-bind-address=:8081", storeFlag}, c.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	var svc corev1.Service
	o.get(t, "Service", namespace, manager+"-metrics", &svc)
	var sm serviceMonitor
	o.get(t, "ServiceMonitor", namespace, manager, &sm)
	got := []any{c.Ports[0].Name, svc.Spec.Ports[0].Name, svc.Spec.Ports[0].TargetPort, sm.Spec.Endpoints}
	want := []any{"http", "http", intstr.FromString("http"), []map[string]any{{"port": "http", "path": "/metrics", "interval": "30s"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("container port, Service port and target, endpoints (-want +got):\n%s", diff)
	}
	for _, k := range []string{key("ClusterRole", "", metricsAuth), key("ClusterRoleBinding", "", metricsAuth), key("ClusterRole", "", metricsReader)} {
		if _, ok := o[k]; ok {
			t.Errorf("%s rendered with metrics.secure false", k)
		}
	}
}

// metricsCertificate checks metrics.certSecretName: the manager serves the Secret's tls.crt
// and tls.key from a read-only mount.
func metricsCertificate(t *testing.T, o objects) {
	pod := o.deployment(t).Spec.Template.Spec
	c := pod.Containers[0]
	const dir = "/etc/sweep-operator/metrics-certs"
	want := []any{
		[]string{"--leader-elect", "--metrics-bind-address=:8443", "--metrics-cert-dir=" + dir, "--health-probe-bind-address=:8081", storeFlag},
		[]corev1.VolumeMount{storeMount, {Name: "metrics-certs", MountPath: dir, ReadOnly: true}},
		[]corev1.Volume{storeVolume(storeClaim), {Name: "metrics-certs", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "metrics-tls"}}}},
	}
	if diff := cmp.Diff(want, []any{c.Args, c.VolumeMounts, pod.Volumes}); diff != "" {
		t.Errorf("args, mounts, volumes (-want +got):\n%s", diff)
	}
}
