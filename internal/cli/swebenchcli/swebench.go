// Package swebenchcli is `sweep swebench`: import SWE-bench predictions as tasks and a
// campaign, report such a campaign in SWE-bench's schema, and grade and parse local logs.
package swebenchcli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// Names of what `sweep swebench import` writes.
const (
	// ImportLabel marks every object of one import, and its SweepRun, with the import's name;
	// the SweepRun selects its tasks by it.
	ImportLabel = "eval.sweep.dev/swebench-import"
	// ImportRecordKey is the key of the import record ConfigMap (<name>-import): the dataset's
	// ids and which had no or an empty prediction, which no trial can tell.
	ImportRecordKey = "import.json"
	// MetadataInstanceID is the [metadata] key of task.toml naming the instance, so that every
	// trial's own snapshot says which instance it graded.
	MetadataInstanceID = "swebench_instance_id"
	// VerifierMarginSec is the verifier stage's time beyond the grader's timeout (starting,
	// grading, writing), so that the grader's own timeout (an error instance) fires first.
	VerifierMarginSec = 300
)

// importRecord is import.json.
type importRecord struct {
	GradingVersion swebench.GradingVersion `json:"grading_version"`
	// ScoredVerdict is which verdict the campaign scores (grading.json's scored_verdict).
	ScoredVerdict string   `json:"scored_verdict,omitempty"`
	Models        []string `json:"models"`
	InstanceIDs   []string `json:"instance_ids"`
	EmptyPatchIDs []string `json:"empty_patch_ids"`
	MissingIDs    []string `json:"missing_ids"`
}

// ImportOptions of `sweep swebench import --instances F --predictions F -o OUT`.
type ImportOptions struct {
	Instances, Predictions string
	// ImageTemplate, when set, names each instance's evaluation image ({id}, {instance_id}).
	ImageTemplate string
	Grading       string
	// Score is which verdict the campaign scores: swebench.ScoreHardened or ScoreOfficial.
	Score string
	// TimeoutSec is what the patch application and tests of one instance may take.
	TimeoutSec float64
	// Name is the SweepRun's and the import label's value.
	Name   string
	OutDir string
	// NamespaceLess writes no namespace: kubectl apply -n chooses it.
	NamespaceLess bool
	// VerifierNetwork is the verifier's network_mode: no-network unless the user widens it. The
	// verifier runs the model's code, and the evaluation image needs no network once built.
	VerifierNetwork string

	Cluster *clioptions.Cluster
	clioptions.IOStreams
	namespace string
	version   swebench.GradingVersion
}

func (o *ImportOptions) Complete(streams clioptions.IOStreams, _ []string) error {
	o.IOStreams = streams
	if o.VerifierNetwork == "" {
		o.VerifierNetwork = taskdef.NetworkNone
	}
	if o.NamespaceLess {
		return nil
	}
	var err error
	o.namespace, err = o.Cluster.Namespace()
	return err
}

func (o *ImportOptions) Validate() error {
	for _, f := range []struct{ flag, value string }{{"--instances", o.Instances}, {"--predictions", o.Predictions}, {"-o/--output-dir", o.OutDir}} {
		if f.value == "" {
			return fmt.Errorf("flag %s is required: sweep swebench import --instances F --predictions F -o OUT", f.flag)
		}
	}
	var err error
	if o.version, err = swebench.ParseGradingVersion(o.Grading); err != nil {
		return fmt.Errorf("flag --grading: %w", err)
	}
	if o.Score, err = swebench.ParseScoredVerdict(o.Score); err != nil {
		return fmt.Errorf("flag --score: %w", err)
	}
	if o.ImageTemplate != "" && !strings.Contains(o.ImageTemplate, "{id}") && !strings.Contains(o.ImageTemplate, "{instance_id}") {
		return fmt.Errorf("flag --image-template %q has neither {id} nor {instance_id}: every instance would run in that one image; for example --image-template mirror.example/sweb.eval.x86_64.{id}:latest", o.ImageTemplate)
	}
	if o.TimeoutSec <= 0 {
		return fmt.Errorf("flag --timeout is %g: give the seconds one instance may take, for example %d", o.TimeoutSec, swebench.DefaultTimeoutSec)
	}
	if o.VerifierNetwork != taskdef.NetworkNone && o.VerifierNetwork != taskdef.NetworkPublic {
		return fmt.Errorf("flag --verifier-network %q: want %s (the default: the verifier runs the model's code) or %s", o.VerifierNetwork, taskdef.NetworkNone, taskdef.NetworkPublic)
	}
	if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 || len(o.Name) > 40 {
		return fmt.Errorf("flag --name %q: it names the SweepRun, so it must be a lower-case DNS name of at most 40 characters (%s)", o.Name, strings.Join(errs, "; "))
	}
	return nil
}

// Run reads the dataset and the predictions, writes one task per instance to run, the
// patches, the import record and the SweepRun, checks that the result builds, and says what
// was left out.
func (o *ImportOptions) Run(context.Context) error {
	insts, m, err := o.match()
	if err != nil {
		return err
	}
	tasks, err := importTasks(o.Name, m.ToRun)
	if err != nil {
		return err
	}
	// Every repository is checked before anything is written: the error names the instance.
	for _, t := range tasks {
		if _, _, err := swebench.SpecGradingConfig(t.match.Instance, o.version); err != nil {
			return fmt.Errorf("%s: %w", o.Instances, err)
		}
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	w := newImportWriter(o)
	for _, t := range tasks {
		if err := w.addTask(t); err != nil {
			return err
		}
	}
	if err := w.addRecord(insts, m); err != nil {
		return err
	}
	if err := w.addSweepRun(); err != nil {
		return err
	}
	if err := catalogue.WriteBuilt(o.OutDir, w.k); err != nil {
		return err
	}
	o.printSummary(len(tasks), m, w.noSpec, w.reinstallOffline)
	return nil
}

// match reads the dataset and the predictions and pairs them; nothing to run is an error.
func (o *ImportOptions) match() ([]swebench.Instance, swebench.Matching, error) {
	insts, err := swebench.LoadInstances(o.Instances)
	if err != nil {
		return nil, swebench.Matching{}, err
	}
	preds, err := swebench.LoadPredictions(o.Predictions)
	if err != nil {
		return nil, swebench.Matching{}, err
	}
	m, err := swebench.MatchPredictions(insts, preds)
	if err != nil {
		return nil, m, fmt.Errorf("%s against %s: %w", o.Predictions, o.Instances, err)
	}
	if len(m.ToRun) == 0 {
		return nil, m, fmt.Errorf("%s: no prediction with a patch for an instance of %s (%d empty, %d instances without one): nothing to run", o.Predictions, o.Instances, len(m.EmptyPatchIDs), len(m.MissingIDs))
	}
	return insts, m, nil
}

func (o *ImportOptions) printSummary(tasks int, m swebench.Matching, noSpec, reinstallOffline []string) {
	w := o.Out
	fmt.Fprintf(w, "wrote %d SWE-bench tasks (grading %s) and sweeprun %s to %s\n", tasks, o.version, o.Name, filepath.Join(o.OutDir, catalogue.KustomizationFile))
	if len(m.EmptyPatchIDs) > 0 {
		fmt.Fprintf(w, "not run, empty patch (%d): %s\n", len(m.EmptyPatchIDs), strings.Join(m.EmptyPatchIDs, ", "))
	}
	if len(m.MissingIDs) > 0 {
		fmt.Fprintf(w, "not run, no prediction (%d): %s\n", len(m.MissingIDs), strings.Join(m.MissingIDs, ", "))
	}
	if len(noSpec) > 0 {
		fmt.Fprintf(w, "no official spec for the version, graded with the default test command (%d): %s\n", len(noSpec), strings.Join(noSpec, ", "))
	}
	if len(reinstallOffline) > 0 {
		fmt.Fprintf(w, "the specs' reinstall downloads build requirements, which a verifier without network cannot: compiled code a patch changes "+
			"is not rebuilt unless you import with --verifier-network %s (%d): %s\n", taskdef.NetworkPublic, len(reinstallOffline), strings.Join(reinstallOffline, ", "))
	}
	// Server-side: client-side apply would copy each object into an annotation, which holds
	// at most 256 KiB, and a patch Secret or a grader ConfigMap may be larger.
	apply := "kubectl apply --server-side -k " + o.OutDir
	if o.namespace == "" {
		apply += " -n NAMESPACE"
	}
	fmt.Fprintf(w, "start it with `%s`; then `sweep swebench report %s`\n", apply, o.Name)
}

// importTask is one instance to run, as the catalogue holds it.
type importTask struct {
	name string
	// folder names the task's files under OUT; configMap its task ConfigMap, which also
	// prefixes its grader ConfigMap and its patch Secret.
	folder, configMap string
	match             swebench.Match
}

// TaskConfigMapName is the task ConfigMap of an import's task: the import's name, then the
// task's, so that every object of an import is named after it and several imports (of one
// dataset too) live in one namespace.
func TaskConfigMapName(importName, task string) string {
	return importName + "-" + catalogue.ResourceName(task)
}

// PatchSecretName is the Secret holding the prediction of an import's task, under the key of
// the task's name (the patch agent's input): one Secret per instance, so that each patch may
// use a Secret's whole size.
func PatchSecretName(importName, task string) string {
	return TaskConfigMapName(importName, task) + "-patch"
}

func graderConfigMapName(importName, task string) string {
	return TaskConfigMapName(importName, task) + "-grader"
}

// importTasks names a task per instance: the instance id when it is a valid label value (it
// nearly always is), else a cleaned id with a hash of the original. Two instances whose names or
// ConfigMap names would collide are an error naming both.
func importTasks(importName string, matches []swebench.Match) ([]importTask, error) {
	byConfigMap := map[string]string{}
	tasks := make([]importTask, 0, len(matches))
	for _, mt := range matches {
		t := importTask{name: taskName(mt.Instance.InstanceID), match: mt}
		t.folder, t.configMap = catalogue.ResourceName(t.name), TaskConfigMapName(importName, t.name)
		if prev, dup := byConfigMap[t.configMap]; dup {
			return nil, fmt.Errorf("instances %s and %s both become ConfigMap %s: import them separately", prev, mt.Instance.InstanceID, t.configMap)
		}
		byConfigMap[t.configMap] = mt.Instance.InstanceID
		tasks = append(tasks, t)
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].name < tasks[j].name })
	return tasks, nil
}

var notLabelChars = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func taskName(id string) string {
	if len(validation.IsValidLabelValue(id)) == 0 {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	clean := strings.Trim(notLabelChars.ReplaceAllString(id, "-"), "-_.")
	if len(clean) > validation.LabelValueMaxLength-len(suffix) {
		clean = strings.TrimRight(clean[:validation.LabelValueMaxLength-len(suffix)], "-_.")
	}
	return clean + suffix
}

// importWriter writes the files of one import under OutDir and gathers the kustomization that
// reads them.
type importWriter struct {
	o           *ImportOptions
	k           *types.Kustomization
	importLabel map[string]string
	grading     swebench.GradingConfig
	// noSpec lists the instances whose version the official specs lack (graded with the
	// default test command), as "id (repo version)".
	noSpec []string
	// reinstallOffline lists the instances whose specs' reinstall needs the network that the
	// verifier does not get.
	reinstallOffline []string
}

func newImportWriter(o *ImportOptions) *importWriter {
	importLabel := map[string]string{ImportLabel: o.Name}
	return &importWriter{
		o:           o,
		k:           catalogue.NewKustomization(o.namespace),
		importLabel: importLabel,
		grading:     swebench.GradingConfig{GradingVersion: string(o.version), TimeoutSec: o.TimeoutSec, ScoredVerdict: scoredVerdictField(o.Score)},
	}
}

// addTask writes an instance's task ConfigMap, its grader ConfigMap and its patch.
func (w *importWriter) addTask(t importTask) error {
	if err := w.addTaskConfigMap(t); err != nil {
		return err
	}
	if err := w.addGraderConfigMap(t); err != nil {
		return err
	}
	return w.addPatch(t)
}

// addTaskConfigMap is the task as the catalogue holds it: task.toml and the problem statement,
// run and graded in the instance's evaluation image.
func (w *importWriter) addTaskConfigMap(t importTask) error {
	inst := t.match.Instance
	image := inst.EvalImage(w.o.ImageTemplate)
	def, err := taskTOML(t.name, inst, w.o.TimeoutSec, w.o.VerifierNetwork)
	if err != nil {
		return err
	}
	files := map[string][]byte{evalv1.TaskTOMLKey: def}
	if inst.ProblemStatement != "" {
		files[evalv1.InstructionKey] = []byte(inst.ProblemStatement)
	}
	gen, err := catalogue.WriteGenerator(w.o.OutDir, filepath.Join("tasks", t.folder), t.configMap,
		fmt.Sprintf("the problem statement of instance %s in %s", inst.InstanceID, w.o.Instances), files)
	if err != nil {
		return err
	}
	gen.Options = &types.GeneratorOptions{DisableNameSuffixHash: true,
		Labels: map[string]string{evalv1.LabelTask: t.name, ImportLabel: w.o.Name},
		Annotations: map[string]string{
			evalv1.AnnotationAgentImage:    image,
			evalv1.AnnotationVerifierImage: image,
			evalv1.AnnotationBugs:          "1",
			evalv1.AnnotationGrader:        podcontract.GraderSWEBench,
			evalv1.AnnotationGraderConfig:  graderConfigMapName(w.o.Name, t.name),
			evalv1.AnnotationPatchSecret:   PatchSecretName(w.o.Name, t.name),
		}}
	w.k.ConfigMapGenerator = append(w.k.ConfigMapGenerator, gen)
	return nil
}

// addGraderConfigMap is what the grader reads, mounted only into the verifier: the instance
// and the grading rules. It is checked as the grader checks it, so that an instance it would
// refuse is refused here.
func (w *importWriter) addGraderConfigMap(t importTask) error {
	inst := t.match.Instance
	// The grader needs neither the gold patch nor the issue text; leaving the gold patch out
	// keeps the fix out of the cluster.
	graded := inst
	graded.Patch, graded.ProblemStatement = "", ""
	grading, carried, err := swebench.SpecGradingConfig(inst, w.o.version)
	if err != nil {
		return fmt.Errorf("%s: %w", w.o.Instances, err)
	}
	switch {
	case carried && w.o.version == swebench.V41:
		// v4.1.0 builds the script from the specs and never reads a dataset's eval_script.
		graded.EvalScript = ""
	case !carried && inst.EvalScript == "":
		w.noSpec = append(w.noSpec, fmt.Sprintf("%s (%s %s)", inst.InstanceID, inst.Repo, inst.Version))
	}
	if grading.ReinstallNetwork && w.o.VerifierNetwork == taskdef.NetworkNone {
		w.reinstallOffline = append(w.reinstallOffline, inst.InstanceID)
	}
	instanceJSON, err := json.MarshalIndent(graded, "", "  ")
	if err != nil {
		return err
	}
	grading.TimeoutSec, grading.ScoredVerdict = w.grading.TimeoutSec, w.grading.ScoredVerdict
	gradingJSON, err := json.MarshalIndent(grading, "", "  ")
	if err != nil {
		return err
	}
	folder := filepath.Join("graders", t.folder)
	gen, err := catalogue.WriteGenerator(w.o.OutDir, folder, graderConfigMapName(w.o.Name, t.name),
		fmt.Sprintf("the test patch and eval script of instance %s in %s", inst.InstanceID, w.o.Instances),
		map[string][]byte{swebench.InstanceFile: instanceJSON, swebench.GradingFile: gradingJSON})
	if err != nil {
		return err
	}
	if _, err := swebench.ReadGraderDir(filepath.Join(w.o.OutDir, folder)); err != nil {
		return fmt.Errorf("instance %s of %s cannot be graded: %w", inst.InstanceID, w.o.Instances, err)
	}
	gen.Options = &types.GeneratorOptions{Labels: w.importLabel, DisableNameSuffixHash: true}
	w.k.ConfigMapGenerator = append(w.k.ConfigMapGenerator, gen)
	return nil
}

// addPatch writes the model patch as the task's patch Secret, keyed by the task's name; a
// patch larger than a Secret holds is refused.
func (w *importWriter) addPatch(t importTask) error {
	patch := *t.match.Prediction.ModelPatch
	name := PatchSecretName(w.o.Name, t.name)
	if size := len(t.name) + len(patch); size > podbuild.MaxSecretPayload {
		return fmt.Errorf("%s: the model_patch of instance %s has %d bytes, more than the %d a Secret (%s) holds: leave build products and data files out of the prediction",
			w.o.Predictions, t.match.Instance.InstanceID, len(patch), podbuild.MaxSecretPayload-len(t.name), name)
	}
	rel := filepath.Join("patches", t.folder, t.name)
	if err := writeFile(w.o.OutDir, rel, []byte(patch)); err != nil {
		return err
	}
	w.k.SecretGenerator = append(w.k.SecretGenerator, types.SecretArgs{GeneratorArgs: types.GeneratorArgs{Name: name,
		KvPairSources: types.KvPairSources{FileSources: []string{filepath.ToSlash(rel)}},
		Options:       &types.GeneratorOptions{Labels: w.importLabel, DisableNameSuffixHash: true}}, Type: string(corev1.SecretTypeOpaque)})
	return nil
}

// addRecord writes the import record: every id of the dataset and those not run.
func (w *importWriter) addRecord(insts []swebench.Instance, m swebench.Matching) error {
	record := importRecord{GradingVersion: w.o.version, ScoredVerdict: w.o.Score, Models: modelNames(m.ToRun),
		InstanceIDs: make([]string, 0, len(insts)), EmptyPatchIDs: nonNil(m.EmptyPatchIDs), MissingIDs: nonNil(m.MissingIDs)}
	for _, inst := range insts {
		record.InstanceIDs = append(record.InstanceIDs, inst.InstanceID)
	}
	recordJSON, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return err
	}
	gen, err := catalogue.WriteGenerator(w.o.OutDir, "import", w.o.Name+"-import", "the instance ids of "+w.o.Instances,
		map[string][]byte{ImportRecordKey: recordJSON})
	if err != nil {
		return err
	}
	gen.Options = &types.GeneratorOptions{Labels: w.importLabel, DisableNameSuffixHash: true}
	w.k.ConfigMapGenerator = append(w.k.ConfigMapGenerator, gen)
	return nil
}

func (w *importWriter) addSweepRun() error {
	run, err := sweepRunYAML(w.o.Name)
	if err != nil {
		return err
	}
	if err := writeFile(w.o.OutDir, "sweeprun.yaml", run); err != nil {
		return err
	}
	w.k.Resources = []string{"sweeprun.yaml"}
	return nil
}

// importedTask is the task.toml an import writes, encoded by the TOML encoder so that no
// dataset value (ids, commits) can add keys or tables.
type importedTask struct {
	SchemaVersion string           `toml:"schema_version"`
	Name          string           `toml:"name"`
	Artifacts     []string         `toml:"artifacts"`
	Metadata      map[string]any   `toml:"metadata"`
	Environment   importedWorkdir  `toml:"environment"`
	Agent         importedAgent    `toml:"agent"`
	Verifier      importedVerifier `toml:"verifier"`
}

type importedWorkdir struct {
	Workdir string `toml:"workdir"`
}

type importedAgent struct {
	NetworkMode string `toml:"network_mode"`
}

type importedVerifier struct {
	// TimeoutSec is an int64 when whole, so that the file says 2100 rather than 2100.0.
	TimeoutSec  any               `toml:"timeout_sec"`
	NetworkMode string            `toml:"network_mode"`
	Collect     []importedCollect `toml:"collect"`
}

type importedCollect struct {
	Command string `toml:"command"`
}

// taskTOMLHeader says where the file comes from; it holds nothing from the dataset.
const taskTOMLHeader = "# A SWE-bench instance (metadata.swebench_instance_id), written by sweep swebench import.\n"

// taskTOML is the task definition of an instance: the repository at /testbed, the patch as the
// artifact, one bug, the verifier's timeout above the grader's, no network for the agent (the
// patch agent only applies a patch) and the verifier's network as asked. The collect hook sends
// the prediction as it was written (the verifier applies it the official way, with fuzz), and
// for any other agent the tree's changes against the base commit.
func taskTOML(task string, inst swebench.Instance, timeoutSec float64, verifierNetwork string) ([]byte, error) {
	patchInput := podcontract.InputDir + "/" + podcontract.AgentPatchFile
	collect := fmt.Sprintf("if [ -f %[1]s ]; then cp %[1]s %[2]s; else git add -A && git diff --cached --binary %[3]s > %[2]s; fi",
		patchInput, podcontract.PatchPath, catalogue.ShellQuote(inst.BaseCommit))
	var timeout any = timeoutSec + VerifierMarginSec
	if whole := int64(timeoutSec + VerifierMarginSec); float64(whole) == timeoutSec+VerifierMarginSec {
		timeout = whole
	}
	def := importedTask{
		SchemaVersion: "1.4",
		Name:          task,
		Artifacts:     []string{podcontract.PatchPath},
		Metadata:      map[string]any{taskdef.MetadataBugsKey: 1, MetadataInstanceID: inst.InstanceID},
		Environment:   importedWorkdir{Workdir: swebench.DefaultWorkdir},
		Agent:         importedAgent{NetworkMode: taskdef.NetworkNone},
		Verifier: importedVerifier{TimeoutSec: timeout, NetworkMode: verifierNetwork,
			Collect: []importedCollect{{Command: collect}}},
	}
	var b bytes.Buffer
	b.WriteString(taskTOMLHeader)
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	if err := enc.Encode(def); err != nil {
		return nil, fmt.Errorf("instance %s: encode task.toml: %w", inst.InstanceID, err)
	}
	return b.Bytes(), nil
}

// sweepRunYAML is the campaign of the patch agent over the import's tasks.
func sweepRunYAML(name string) ([]byte, error) {
	run := &evalv1.SweepRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: evalv1.GroupVersion.String(), Kind: "SweepRun"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{ImportLabel: name}},
		Spec: evalv1.SweepRunSpec{
			Tasks: evalv1.TaskSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{ImportLabel: name}}},
			// Each task ConfigMap names its own patch Secret (AnnotationPatchSecret).
			Agent:       evalv1.AgentSpec{Patch: &evalv1.PatchAgent{}},
			Attempts:    1,
			Parallelism: 10,
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(run)
	if err != nil {
		return nil, err
	}
	// Status is the controller's, and a null creation time is noise in a file people read. The
	// Go zero values of the retry policy and placement would override the CRD's defaults
	// (three infrastructure retries with backoff), so those are left out.
	unstructured.RemoveNestedField(obj, "status")
	unstructured.RemoveNestedField(obj, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(obj, "spec", "retryPolicy")
	unstructured.RemoveNestedField(obj, "spec", "placement")
	return yaml.Marshal(obj)
}

func modelNames(matches []swebench.Match) []string {
	seen := map[string]bool{}
	names := []string{}
	for _, mt := range matches {
		if n := mt.Prediction.ModelNameOrPath; n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func writeFile(out, rel string, data []byte) error {
	path := filepath.Join(out, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// scoredVerdictField is grading.json's scored_verdict for score: left out for the default.
func scoredVerdictField(score string) string {
	if score == swebench.ScoreHardened {
		return ""
	}
	return score
}
