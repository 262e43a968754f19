// Package charts holds the operator's Helm chart (charts/sweep-operator); these tests run the
// real helm that hack/helm.sh builds: lint, and template, whose default objects must be the
// ones `kustomize build config/default` renders.
package charts

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const (
	chart     = "sweep-operator"
	release   = "sweep-operator"
	namespace = "sweep-system"
	manager   = "sweep-operator-manager"
)

// helm is the pinned helm of hack/helm.sh; the tests fail without it rather than skip, so that
// a missing binary is never mistaken for a passing chart.
func helm(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join("..", "hack", "helm.sh"), "--path").Output()
	if err != nil {
		t.Fatalf("hack/helm.sh --path: %v", err)
	}
	bin := strings.TrimSpace(string(out))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("helm is not built (%v): run hack/helm.sh or make helm, which build it from the Go module proxy once; make test does it too", err)
	}
	return bin
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

func withoutHelmLabels(objs objects) objects {
	for _, m := range objs {
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

func TestHelmLint(t *testing.T) {
	out, err := runHelm(t, "lint", "--strict", chart)
	if err != nil {
		t.Fatalf("helm lint --strict %s: %v\n%s", chart, err, out)
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
	pairs := map[string]string{filepath.Join("..", "config", "rbac", "role.yaml"): filepath.Join(chart, "files", "role.yaml")}
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
