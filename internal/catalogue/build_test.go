package catalogue

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/types"
)

// generated is a kustomization of n ConfigMap generators and one Secret generator, each
// reading a file of its own written under dir, and one resource.
func generated(t *testing.T, dir string, n int) *types.Kustomization {
	t.Helper()
	k := NewKustomization("ns")
	for i := range n {
		gen, err := WriteGenerator(dir, fmt.Sprintf("cm-%04d", i), fmt.Sprintf("cm-%04d", i), "a test", map[string][]byte{"data": []byte(fmt.Sprint(i))})
		if err != nil {
			t.Fatal(err)
		}
		gen.Options = &types.GeneratorOptions{DisableNameSuffixHash: true}
		k.ConfigMapGenerator = append(k.ConfigMapGenerator, gen)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	k.SecretGenerator = []types.SecretArgs{{GeneratorArgs: types.GeneratorArgs{Name: "patch",
		KvPairSources: types.KvPairSources{FileSources: []string{"secret.txt"}},
		Options:       &types.GeneratorOptions{DisableNameSuffixHash: true}}}}
	res := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: record\n"
	if err := os.WriteFile(filepath.Join(dir, "record.yaml"), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	k.Resources = []string{"record.yaml"}
	return k
}

// A kustomization past one chunk is checked a chunk at a time, and still fails as the whole
// build would: a missing file in any chunk, two generators of one object across chunks, a
// generator named as the resource.
func TestWriteBuiltInChunks(t *testing.T) {
	n := 2*buildChunk + 10
	cases := map[string]struct {
		edit    func(dir string, k *types.Kustomization)
		wantErr string
	}{
		"builds": {},
		"a file missing in the last chunk": {edit: func(dir string, k *types.Kustomization) {
			if err := os.Remove(filepath.Join(dir, "cm-0515", "data")); err != nil {
				t.Fatal(err)
			}
		}, wantErr: "cm-0515"},
		"the Secret's file missing": {edit: func(dir string, k *types.Kustomization) {
			k.SecretGenerator[0].FileSources = []string{"nowhere.txt"}
		}, wantErr: "nowhere.txt"},
		"one ConfigMap made in two chunks": {edit: func(dir string, k *types.Kustomization) {
			k.ConfigMapGenerator[n-1].Name = "cm-0001"
		}, wantErr: `two generators make ConfigMap ns/cm-0001`},
		"a generator named as the resource": {edit: func(dir string, k *types.Kustomization) {
			k.ConfigMapGenerator[n-1].Name = "record"
		}, wantErr: "a generator makes ConfigMap ns/record, which the resources hold too"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			k := generated(t, dir, n)
			if tc.edit != nil {
				tc.edit(dir, k)
			}
			err := WriteBuilt(dir, k)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("WriteBuilt: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("WriteBuilt = %v, want an error naming %q", err, tc.wantErr)
			}
		})
	}
}

// The parts' builds read their kustomization from memory, not the file on disk: with the
// file on disk unreadable as a kustomization, they still build.
func TestRenderReadsEachPart(t *testing.T) {
	dir := t.TempDir()
	k := generated(t, dir, buildChunk+1)
	if err := os.WriteFile(filepath.Join(dir, KustomizationFile), []byte("not: [a kustomization"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := render(dir, k); err != nil {
		t.Fatalf("render read the file on disk: %v", err)
	}
}

// Only generators, resources and what applies to each object alone are built in chunks.
func TestChunkable(t *testing.T) {
	cases := map[string]struct {
		edit func(k *types.Kustomization)
		want bool
	}{
		"generators, a resource, a namespace, labels": {edit: func(k *types.Kustomization) {
			k.Labels = []types.Label{{Pairs: map[string]string{"a": "b"}}}
			k.GeneratorOptions = &types.GeneratorOptions{DisableNameSuffixHash: true}
		}, want: true},
		"a patch":                             {edit: func(k *types.Kustomization) { k.Patches = []types.Patch{{Path: "p.yaml"}} }},
		"a name prefix":                       {edit: func(k *types.Kustomization) { k.NamePrefix = "x-" }},
		"a generator that merges":             {edit: func(k *types.Kustomization) { k.ConfigMapGenerator[0].Behavior = "merge" }},
		"a Secret generator that replaces":    {edit: func(k *types.Kustomization) { k.SecretGenerator[0].Behavior = "replace" }},
		"a component":                         {edit: func(k *types.Kustomization) { k.Components = []string{"c"} }},
		"a generated name with a hash suffix": {edit: func(k *types.Kustomization) { k.ConfigMapGenerator[1].Options = nil }},
		"every hash suffix off at once": {edit: func(k *types.Kustomization) {
			k.GeneratorOptions = &types.GeneratorOptions{DisableNameSuffixHash: true}
			k.ConfigMapGenerator[1].Options, k.SecretGenerator[0].Options = nil, nil
		}, want: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			k := generated(t, t.TempDir(), 2)
			tc.edit(k)
			if got := chunkable(k); got != tc.want {
				t.Errorf("chunkable = %v, want %v", got, tc.want)
			}
		})
	}
}

// Built in parts, a kustomization renders to what its whole build renders, byte for byte:
// the same objects, namespaces, labels and annotations, in the same order.
func TestRenderInPartsAsWhole(t *testing.T) {
	dir := t.TempDir()
	k := generated(t, dir, 2*buildChunk+10)
	k.Labels = []types.Label{{Pairs: map[string]string{"eval.sweep.dev/import": "full"}}}
	k.CommonAnnotations = map[string]string{"note": "x"}
	run := "apiVersion: eval.sweep.dev/v1alpha1\nkind: SweepRun\nmetadata:\n  name: full\nspec:\n  attempts: 1\n"
	if err := os.WriteFile(filepath.Join(dir, "run.yaml"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	k.Resources = append(k.Resources, "run.yaml")
	for i := range 300 {
		k.SecretGenerator = append(k.SecretGenerator, types.SecretArgs{GeneratorArgs: types.GeneratorArgs{Name: fmt.Sprintf("s-%04d", i),
			KvPairSources: types.KvPairSources{FileSources: []string{"secret.txt"}},
			Options:       &types.GeneratorOptions{DisableNameSuffixHash: true}}})
	}
	if err := WriteBuilt(dir, k); err != nil {
		t.Fatal(err)
	}
	got, err := Render(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, err := renderWhole(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rendered in parts, %d bytes, differs from the whole build's %d bytes", len(got), len(want))
	}
	if n := bytes.Count(got, []byte("\nkind: ")); n != 2*buildChunk+10+301+2 {
		t.Errorf("rendered %d objects, want %d", n, 2*buildChunk+10+301+2)
	}
}
