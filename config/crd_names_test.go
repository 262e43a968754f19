package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// crdNames reads the generated CRDs and returns every name kubectl resolves for them: each
// resource's plural, singular and short names, and the categories apart.
func crdNames(t *testing.T) (resources map[string]string, categories map[string][]string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs under crd/bases (%v): run make manifests", err)
	}
	resources, categories = map[string]string{}, map[string][]string{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		n := crd.Spec.Names
		for _, name := range append([]string{n.Plural, n.Singular}, n.ShortNames...) {
			if other, ok := resources[name]; ok {
				t.Errorf("%s: %q names both %s and %s", file, name, other, n.Plural)
			}
			resources[name] = n.Plural
		}
		for _, c := range n.Categories {
			categories[c] = append(categories[c], n.Plural)
		}
	}
	return resources, categories
}

// kubectl get NAME looks NAME up among the categories before the resources' names, so a short
// name (or any name) that is also a category can never be reached: `kubectl get sweep` would
// list every kind of the category instead of one.
func TestNoResourceNameIsACategory(t *testing.T) {
	resources, categories := crdNames(t)
	for name, plural := range resources {
		if kinds, ok := categories[name]; ok {
			t.Errorf("%q is a name of %s and the category of %v: kubectl get %s would list the category; rename one of them in the kubebuilder:resource marker", name, plural, kinds, name)
		}
	}
}

// What `kubectl get NAME` means for the names docs/cli.md promises.
func TestKubectlNames(t *testing.T) {
	resources, categories := crdNames(t)
	for name, want := range map[string]string{"sweeprun": "sweepruns", "sr": "sweepruns", "trial": "tasktrials", "tt": "tasktrials"} {
		if got := resources[name]; got != want {
			t.Errorf("kubectl get %s: names %q, want %s", name, got, want)
		}
	}
	if diff := cmp.Diff([]string{"sweepruns", "tasktrials"}, categories["sweep"]); diff != "" {
		t.Errorf("kubectl get sweep, the category of every sweep kind (-want +got):\n%s", diff)
	}
}
