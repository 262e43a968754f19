package catalogue

import (
	"fmt"
	"path/filepath"
	"reflect"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// buildChunk is how many generators one check build holds. kustomize checks every object it
// adds against every object it holds, so a single build grows with the square of the objects:
// 88 s for the 6,884 of an import of SWE-bench Full's size. Builds of a chunk each add up
// linearly.
const buildChunk = 256

// checkBuilds builds the kustomization k written in dir, as `kustomize build dir` would, and
// returns the error that build would give. A kustomization of generators and resources only
// (chunkable) is built a chunk of generators at a time, each chunk with every resource; what
// a whole build would also catch between chunks, two objects of one kind, namespace and name,
// is checked apart (uniqueGenerated). Anything else is built whole.
func checkBuilds(dir string, k *types.Kustomization) error {
	gens := len(k.ConfigMapGenerator) + len(k.SecretGenerator)
	if gens <= buildChunk || !chunkable(k) {
		_, err := Render(dir)
		return err
	}
	if err := uniqueGenerated(k); err != nil {
		return err
	}
	disk := filesys.MakeFsOnDisk()
	file, err := filepath.Abs(filepath.Join(dir, KustomizationFile))
	if err != nil {
		return err
	}
	build := func(chunk types.Kustomization) error {
		data, err := yaml.Marshal(&chunk)
		if err != nil {
			return err
		}
		_, err = krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(chunkFS{FileSystem: disk, file: file, data: data}, dir)
		return err
	}
	for from := 0; from < len(k.ConfigMapGenerator); from += buildChunk {
		chunk := *k
		chunk.ConfigMapGenerator, chunk.SecretGenerator = k.ConfigMapGenerator[from:min(from+buildChunk, len(k.ConfigMapGenerator))], nil
		if err := build(chunk); err != nil {
			return err
		}
	}
	for from := 0; from < len(k.SecretGenerator); from += buildChunk {
		chunk := *k
		chunk.ConfigMapGenerator, chunk.SecretGenerator = nil, k.SecretGenerator[from:min(from+buildChunk, len(k.SecretGenerator))]
		if err := build(chunk); err != nil {
			return err
		}
	}
	return nil
}

// chunkable reports whether k holds nothing but what applies to each object alone (its
// namespace, labels and annotations, generator options) beside its resources and generators,
// and no generator merges with or replaces another object: a build of part of its generators
// then makes those objects exactly as the whole build does.
func chunkable(k *types.Kustomization) bool {
	rest := *k
	rest.TypeMeta, rest.Namespace, rest.Labels, rest.CommonAnnotations = types.TypeMeta{}, "", nil, nil
	rest.Resources, rest.ConfigMapGenerator, rest.SecretGenerator, rest.GeneratorOptions = nil, nil, nil, nil
	if !reflect.DeepEqual(rest, types.Kustomization{}) {
		return false
	}
	for _, g := range k.ConfigMapGenerator {
		if g.Behavior != "" && g.Behavior != "create" {
			return false
		}
	}
	for _, g := range k.SecretGenerator {
		if g.Behavior != "" && g.Behavior != "create" {
			return false
		}
	}
	return true
}

// uniqueGenerated is the error a whole build gives when two generators make objects of one
// kind, namespace and name.
func uniqueGenerated(k *types.Kustomization) error {
	seen := map[string]bool{}
	add := func(kind string, g types.GeneratorArgs) error {
		ns := g.Namespace
		if ns == "" {
			ns = k.Namespace
		}
		id := kind + " " + ns + "/" + g.Name
		if seen[id] {
			return fmt.Errorf("two generators make %s %q in namespace %q: give each a name of its own", kind, g.Name, ns)
		}
		seen[id] = true
		return nil
	}
	for _, g := range k.ConfigMapGenerator {
		if err := add("ConfigMap", g.GeneratorArgs); err != nil {
			return err
		}
	}
	for _, g := range k.SecretGenerator {
		if err := add("Secret", g.GeneratorArgs); err != nil {
			return err
		}
	}
	return nil
}

// chunkFS is the disk with one file, the kustomization, read as data instead.
type chunkFS struct {
	filesys.FileSystem
	file string
	data []byte
}

func (f chunkFS) ReadFile(path string) ([]byte, error) {
	if abs, err := filepath.Abs(path); err == nil && abs == f.file {
		return f.data, nil
	}
	return f.FileSystem.ReadFile(path)
}
