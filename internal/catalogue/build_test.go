package catalogue

import (
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
		KvPairSources: types.KvPairSources{FileSources: []string{"secret.txt"}}}}}
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
		}, wantErr: `two generators make ConfigMap "cm-0001" in namespace "ns"`},
		"a generator named as the resource": {edit: func(dir string, k *types.Kustomization) {
			k.ConfigMapGenerator[n-1].Name = "record"
		}, wantErr: "record"},
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

// The chunks' builds read their kustomization from memory, not the file on disk: with the
// file on disk unreadable as a kustomization, they still build.
func TestCheckBuildsReadsEachChunk(t *testing.T) {
	dir := t.TempDir()
	k := generated(t, dir, buildChunk+1)
	if err := os.WriteFile(filepath.Join(dir, KustomizationFile), []byte("not: [a kustomization"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkBuilds(dir, k); err != nil {
		t.Fatalf("checkBuilds read the file on disk: %v", err)
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
		"a patch":                          {edit: func(k *types.Kustomization) { k.Patches = []types.Patch{{Path: "p.yaml"}} }},
		"a name prefix":                    {edit: func(k *types.Kustomization) { k.NamePrefix = "x-" }},
		"a generator that merges":          {edit: func(k *types.Kustomization) { k.ConfigMapGenerator[0].Behavior = "merge" }},
		"a Secret generator that replaces": {edit: func(k *types.Kustomization) { k.SecretGenerator[0].Behavior = "replace" }},
		"a component":                      {edit: func(k *types.Kustomization) { k.Components = []string{"c"} }},
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
