package catalogue

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/yaml"
)

// buildChunk is how many generators one build holds. kustomize checks every object it adds
// against every object it holds, so a single build grows with the square of the objects: 88 s
// for the 6,884 of an import of SWE-bench Full's size. Builds of a chunk each add up linearly.
const buildChunk = 256

// Render renders the kustomization in dir as `kustomize build dir` does, to YAML.
func Render(dir string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, KustomizationFile))
	if err != nil {
		return renderWhole(dir)
	}
	k := &types.Kustomization{}
	if err := yaml.Unmarshal(data, k); err != nil {
		return renderWhole(dir)
	}
	return render(dir, k)
}

func renderWhole(dir string) ([]byte, error) {
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	return resMap.AsYaml()
}

// render builds the kustomization k written in dir, as `kustomize build dir` would: the same
// objects in the same order, or the error that build would give. A kustomization of
// generators and resources only (chunkable) is built in parts: its resources, then its
// ConfigMap generators and its Secret generators, buildChunk at a time, in the order the whole
// build makes them. What the whole build would also catch between parts, two objects of one
// kind, namespace and name, is checked apart (uniqueGenerated, generatedNotAResource).
func render(dir string, k *types.Kustomization) ([]byte, error) {
	if len(k.ConfigMapGenerator)+len(k.SecretGenerator) <= buildChunk || !chunkable(k) {
		return renderWhole(dir)
	}
	if err := uniqueGenerated(k); err != nil {
		return nil, err
	}
	disk := filesys.MakeFsOnDisk()
	file, err := filepath.Abs(filepath.Join(dir, KustomizationFile))
	if err != nil {
		return nil, err
	}
	var out [][]byte
	build := func(part types.Kustomization) error {
		data, err := yaml.Marshal(&part)
		if err != nil {
			return err
		}
		resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(chunkFS{FileSystem: disk, file: file, data: data}, dir)
		if err != nil {
			return err
		}
		if part.Resources != nil {
			if err := generatedNotAResource(k, resMap.AllIds()); err != nil {
				return err
			}
		}
		y, err := resMap.AsYaml()
		if len(y) > 0 {
			out = append(out, y)
		}
		return err
	}
	resources := *k
	resources.ConfigMapGenerator, resources.SecretGenerator = nil, nil
	if err := build(resources); err != nil {
		return nil, err
	}
	for from := 0; from < len(k.ConfigMapGenerator); from += buildChunk {
		part := *k
		part.Resources, part.SecretGenerator = nil, nil
		part.ConfigMapGenerator = k.ConfigMapGenerator[from:min(from+buildChunk, len(k.ConfigMapGenerator))]
		if err := build(part); err != nil {
			return nil, err
		}
	}
	for from := 0; from < len(k.SecretGenerator); from += buildChunk {
		part := *k
		part.Resources, part.ConfigMapGenerator = nil, nil
		part.SecretGenerator = k.SecretGenerator[from:min(from+buildChunk, len(k.SecretGenerator))]
		if err := build(part); err != nil {
			return nil, err
		}
	}
	return bytes.Join(out, []byte("---\n")), nil
}

// chunkable reports whether k holds nothing but what applies to each object alone (its
// namespace, labels and annotations, generator options) beside its resources and generators,
// no generator merges with or replaces another object, and no generated name takes a hash
// suffix (which would rename the resources' references to it): a build of part of it then
// makes those objects exactly as the whole build does.
func chunkable(k *types.Kustomization) bool {
	rest := *k
	rest.TypeMeta, rest.Namespace, rest.Labels, rest.CommonAnnotations = types.TypeMeta{}, "", nil, nil
	rest.Resources, rest.ConfigMapGenerator, rest.SecretGenerator, rest.GeneratorOptions = nil, nil, nil, nil
	if !reflect.DeepEqual(rest, types.Kustomization{}) {
		return false
	}
	noHash := k.GeneratorOptions != nil && k.GeneratorOptions.DisableNameSuffixHash
	ok := true
	eachGenerator(k, func(_ string, g types.GeneratorArgs) {
		if g.Behavior != "" && g.Behavior != "create" || !noHash && (g.Options == nil || !g.Options.DisableNameSuffixHash) {
			ok = false
		}
	})
	return ok
}

// eachGenerator calls f with the kind and arguments of each of k's generators, in the order a
// build makes their objects.
func eachGenerator(k *types.Kustomization, f func(kind string, g types.GeneratorArgs)) {
	for _, g := range k.ConfigMapGenerator {
		f("ConfigMap", g.GeneratorArgs)
	}
	for _, g := range k.SecretGenerator {
		f("Secret", g.GeneratorArgs)
	}
}

// generatedID is the kind, namespace and name of the object generator g of k makes: the
// kustomization's namespace, when set, replaces the generator's own.
func generatedID(k *types.Kustomization, kind string, g types.GeneratorArgs) string {
	ns := k.Namespace
	if ns == "" {
		ns = g.Namespace
	}
	return kind + " " + ns + "/" + g.Name
}

// uniqueGenerated is the error a whole build gives when two generators make objects of one
// kind, namespace and name.
func uniqueGenerated(k *types.Kustomization) error {
	seen := map[string]bool{}
	var err error
	eachGenerator(k, func(kind string, g types.GeneratorArgs) {
		id := generatedID(k, kind, g)
		if seen[id] && err == nil {
			err = fmt.Errorf("two generators make %s: give each a name of its own", id)
		}
		seen[id] = true
	})
	return err
}

// generatedNotAResource is the error a whole build gives when a generator makes an object
// that k's resources, built (ids), hold too.
func generatedNotAResource(k *types.Kustomization, ids []resid.ResId) error {
	held := map[string]bool{}
	for _, id := range ids {
		if id.Group == "" {
			held[id.Kind+" "+id.Namespace+"/"+id.Name] = true
		}
	}
	var err error
	eachGenerator(k, func(kind string, g types.GeneratorArgs) {
		if id := generatedID(k, kind, g); held[id] && err == nil {
			err = fmt.Errorf("a generator makes %s, which the resources hold too: keep one", id)
		}
	})
	return err
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
