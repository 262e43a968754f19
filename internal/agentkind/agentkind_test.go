package agentkind_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
)

// apiKinds sets each field of evalv1.AgentSpec in turn: json name → a spec with only it set.
func apiKinds(t *testing.T) map[string]evalv1.AgentSpec {
	t.Helper()
	out := map[string]evalv1.AgentSpec{}
	typ := reflect.TypeFor[evalv1.AgentSpec]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() != reflect.Pointer {
			t.Fatalf("evalv1.AgentSpec.%s is not a pointer: every field of AgentSpec is one agent kind", f.Name)
		}
		var spec evalv1.AgentSpec
		reflect.ValueOf(&spec).Elem().Field(i).Set(reflect.New(f.Type.Elem()))
		out[name] = spec
	}
	return out
}

// TestTableMatchesAPI: every kind the API can select has a descriptor, and every descriptor
// is selected by the spec.agent field of its own name. internal/hook and internal/podbuild
// test that they handle every descriptor's run mode and mount.
func TestTableMatchesAPI(t *testing.T) {
	api := apiKinds(t)
	for name, spec := range api {
		if got := spec.Kind(); got != name {
			t.Errorf("spec.agent.%s set: Kind() = %q, want %q", name, got, name)
		}
		if _, ok := agentkind.Lookup(name); !ok {
			t.Errorf("spec.agent.%s has no descriptor in internal/agentkind", name)
		}
	}
	for _, d := range agentkind.All() {
		if _, ok := api[d.Name]; !ok {
			t.Errorf("descriptor %q has no field %s in evalv1.AgentSpec", d.Name, d.Field())
		}
		if d.Run == "" {
			t.Errorf("descriptor %q has no run mode", d.Name)
		}
	}
	if got := (evalv1.AgentSpec{}).Kind(); got != "" {
		t.Errorf("empty spec.agent: Kind() = %q, want \"\"", got)
	}
}

func TestNamesAndLookup(t *testing.T) {
	all := agentkind.All()
	names := agentkind.Names()
	for _, d := range all {
		if !strings.Contains(names, d.Name) {
			t.Errorf("Names() = %q lacks %q", names, d.Name)
		}
	}
	if last := all[len(all)-1].Name; !strings.HasPrefix(names, all[0].Name+", ") || !strings.HasSuffix(names, " or "+last) {
		t.Errorf("Names() = %q, want %q first and \" or %s\" last", names, all[0].Name, last)
	}
	if _, ok := agentkind.Lookup("command"); ok {
		t.Error(`Lookup("command") found a kind: the API and the Pod call it "external"`)
	}
	d, ok := agentkind.Lookup(agentkind.Oracle)
	want := agentkind.Descriptor{Name: "oracle", Mount: agentkind.MountSolution, NeedsSolution: true, Run: agentkind.RunSolution}
	if diff := cmp.Diff(want, d); !ok || diff != "" {
		t.Errorf("Lookup(oracle) found=%v (-want +got):\n%s", ok, diff)
	}
	if got := d.Field(); got != "spec.agent.oracle" {
		t.Errorf("Field() = %q", got)
	}
}
