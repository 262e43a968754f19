package catalogue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/regularfile"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// Entry is one task of the catalogue.
type Entry struct {
	Dir *taskdef.Dir
	// ConfigMap names the task's ConfigMap; SolutionConfigMap its solution's, empty when the
	// task has no solution/ files.
	ConfigMap         string
	SolutionConfigMap string
	Images            []Image
	Grader            string
	// SolutionFiles are the file names directly in solution/.
	SolutionFiles []string
	// BugIDs are the bug ids of the task's bundle in its order, nil when tests/ has none: a
	// bug subset can reach only a task that has them (AnnotationBugIDs).
	BugIDs []string
}

// Image returns the entry's image of a role.
func (e Entry) Image(role Role) string {
	for _, i := range e.Images {
		if i.Role == role {
			return i.Ref
		}
	}
	return ""
}

// Plan decides each task's objects and images. It fails on the first task that cannot be in a
// catalogue, saying what to change.
func Plan(dirs []*taskdef.Dir, registry string) ([]Entry, error) {
	byName := map[string]string{}
	entries := make([]Entry, 0, len(dirs))
	for _, d := range dirs {
		t := d.Task
		if errs := validation.IsValidLabelValue(t.Name); len(errs) > 0 {
			return nil, fmt.Errorf("task %s (%s): the name is the value of label %s, which %s: rename the task in task.toml",
				t.Name, d.Path, evalv1.LabelTask, errs[0])
		}
		cm := ResourceName(t.Name)
		if prev, dup := byName[cm]; dup {
			return nil, fmt.Errorf("tasks %s and %s both become ConfigMap %s: rename one of them in its task.toml", prev, t.Name, cm)
		}
		byName[cm] = t.Name
		images, err := TaskImages(d, registry)
		if err != nil {
			return nil, err
		}
		e := Entry{Dir: d, ConfigMap: cm, Images: images}
		if _, err := os.Stat(filepath.Join(d.Path, TestsDir, swesweep.BundleFile)); err == nil {
			e.Grader = pc.GraderSWESweep // a SWE-sweep grading bundle: tests/bundle.json (docs/task-format.md)
		}
		if e.BugIDs, err = bugIDs(d, e.Grader); err != nil {
			return nil, err
		}
		if e.SolutionFiles, err = solutionFiles(d); err != nil {
			return nil, err
		}
		if len(e.SolutionFiles) > 0 {
			e.SolutionConfigMap = cm + "-solution"
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// bugIDs reads the bug ids of the task's bundle: tests/bundle.json for the built-in grader,
// else SWE-sweep's tests/swesweep_eval.json, through which a subset reaches tests/test.sh. A
// task with neither has none (nil).
func bugIDs(d *taskdef.Dir, grader string) ([]string, error) {
	var ids []string
	var path string
	if grader == pc.GraderSWESweep {
		path = filepath.Join(d.Path, TestsDir, swesweep.BundleFile)
		data, err := os.ReadFile(path) // as the grader reads it
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", d.Task.Name, err)
		}
		var b swesweep.Bundle
		if err := json.Unmarshal(data, &b); err != nil {
			return nil, fmt.Errorf("task %s: %s: %w: fix the bundle", d.Task.Name, path, err)
		}
		ids = []string{}
		for _, bug := range b.Bugs {
			ids = append(ids, bug.ID)
		}
	} else {
		path = filepath.Join(d.Path, TestsDir, sweepbundle.File)
		// As the verifier stage reads it: a symbolic link, which the image would carry as one,
		// is refused there too.
		data, err := regularfile.ReadFile(path, sweepbundle.MaxBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("task %s: %w: make it a regular file of at most %d bytes (a bug subset reaches tests/test.sh through it)", d.Task.Name, err, sweepbundle.MaxBytes)
		}
		if ids, err = sweepbundle.IDs(data); err != nil {
			return nil, fmt.Errorf("task %s: %s: %w: fix the file (a bug subset reaches tests/test.sh through it)", d.Task.Name, path, err)
		}
	}
	for _, id := range ids {
		if id == "" || strings.Contains(id, ",") {
			return nil, fmt.Errorf("task %s: %s: bug id %q: the ids are listed comma-separated in annotation %s, so an id is neither empty nor holds a comma: rename the bug",
				d.Task.Name, path, id, evalv1.AnnotationBugIDs)
		}
	}
	return ids, nil
}

// solutionFiles lists solution/'s files. A ConfigMap key cannot hold a path, so nested
// directories are refused rather than flattened into names the oracle would not find.
func solutionFiles(d *taskdef.Dir) ([]string, error) {
	dir := filepath.Join(d.Path, SolutionDir)
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("task %s: %s is not a regular file: the solution ConfigMap holds only the files directly in solution/ (solve.sh, *.patch); move its content into them",
				d.Task.Name, filepath.Join(dir, e.Name()))
		}
		if errs := validation.IsConfigMapKey(e.Name()); len(errs) > 0 {
			return nil, fmt.Errorf("task %s: %s: %s; rename the file", d.Task.Name, filepath.Join(dir, e.Name()), errs[0])
		}
		files = append(files, e.Name())
	}
	return files, nil
}

// MaxConfigMapBytes is the most data a ConfigMap holds.
const MaxConfigMapBytes = 1 << 20

// Kustomization file name and the folders the bundle copies task files into.
const (
	KustomizationFile = "kustomization.yaml"
	tasksFolder       = "tasks"
	solutionsFolder   = "solutions"
)

// WriteKustomization writes out/kustomization.yaml with one ConfigMap generator per task and
// per solution, and copies the files they read under out/tasks and out/solutions. Names carry
// no hash suffix: trials find a task by its label and a solution by the name in the
// annotation. The result is built once with kustomize before returning, so that a bundle that
// would not build is never left looking finished.
func WriteKustomization(out string, entries []Entry) error {
	k := NewKustomization("")
	for _, e := range entries {
		t := e.Dir.Task
		taskFiles := map[string][]byte{}
		toml, err := os.ReadFile(filepath.Join(e.Dir.Path, "task.toml"))
		if err != nil {
			return err
		}
		taskFiles[evalv1.TaskTOMLKey] = toml
		if _, err := os.Stat(filepath.Join(e.Dir.Path, evalv1.InstructionKey)); err == nil {
			taskFiles[evalv1.InstructionKey] = []byte(e.Dir.Instruction)
		}
		annotations := map[string]string{
			evalv1.AnnotationAgentImage:    e.Image(RoleAgent),
			evalv1.AnnotationVerifierImage: e.Image(RoleVerifier),
			evalv1.AnnotationBugs:          strconv.Itoa(t.Bugs),
		}
		if e.Grader != "" {
			annotations[evalv1.AnnotationGrader] = e.Grader
		}
		if e.SolutionConfigMap != "" {
			annotations[evalv1.AnnotationSolution] = e.SolutionConfigMap
		}
		if e.BugIDs != nil {
			annotations[evalv1.AnnotationBugIDs] = strings.Join(e.BugIDs, ",")
		}
		gen, err := WriteGenerator(out, filepath.Join(tasksFolder, e.ConfigMap), e.ConfigMap, e.Dir.Path+"'s task.toml and instruction.md", taskFiles)
		if err != nil {
			return err
		}
		gen.Options = &types.GeneratorOptions{Labels: map[string]string{evalv1.LabelTask: t.Name}, Annotations: annotations, DisableNameSuffixHash: true}
		k.ConfigMapGenerator = append(k.ConfigMapGenerator, gen)
		if e.SolutionConfigMap == "" {
			continue
		}
		solution := map[string][]byte{}
		for _, f := range e.SolutionFiles {
			if solution[f], err = os.ReadFile(filepath.Join(e.Dir.Path, SolutionDir, f)); err != nil {
				return err
			}
		}
		gen, err = WriteGenerator(out, filepath.Join(solutionsFolder, e.ConfigMap), e.SolutionConfigMap, filepath.Join(e.Dir.Path, SolutionDir), solution)
		if err != nil {
			return err
		}
		// No task label: a solution is not a task, and the catalogue selects tasks by it.
		gen.Options = &types.GeneratorOptions{DisableNameSuffixHash: true}
		k.ConfigMapGenerator = append(k.ConfigMapGenerator, gen)
	}
	return WriteBuilt(out, k)
}

// NewKustomization is an empty kustomization; namespace, when set, is given to every object.
func NewKustomization(namespace string) *types.Kustomization {
	return &types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind}, Namespace: namespace}
}

// WriteBuilt writes k as out/kustomization.yaml and builds it with kustomize (render), so
// that a kustomization that would not build is never left looking finished.
func WriteBuilt(out string, k *types.Kustomization) error {
	data, err := yaml.Marshal(k)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, KustomizationFile), data, 0o644); err != nil {
		return err
	}
	if _, err := render(out, k); err != nil {
		return fmt.Errorf("the kustomization written to %s does not build: %w", out, err)
	}
	return nil
}

// WriteGenerator writes files under out/folder and returns a ConfigMap generator reading them;
// source names where the files come from, for the error of a ConfigMap too large.
func WriteGenerator(out, folder, name, source string, files map[string][]byte) (types.ConfigMapArgs, error) {
	gen := types.ConfigMapArgs{GeneratorArgs: types.GeneratorArgs{Name: name}}
	size := 0
	for _, data := range files {
		size += len(data)
	}
	if size > MaxConfigMapBytes {
		return gen, fmt.Errorf("configmap %s would hold %d bytes, more than the %d a ConfigMap can: shrink %s", name, size, MaxConfigMapBytes, source)
	}
	if err := os.MkdirAll(filepath.Join(out, folder), 0o755); err != nil {
		return gen, err
	}
	for _, key := range sortedKeys(files) {
		if err := os.WriteFile(filepath.Join(out, folder, key), files[key], 0o644); err != nil {
			return gen, err
		}
		gen.FileSources = append(gen.FileSources, filepath.ToSlash(filepath.Join(folder, key)))
	}
	return gen, nil
}
