package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// Names of what `sweep swebench import` writes.
const (
	// labelSWEBenchImport marks every object of one import, and its SweepRun, with the import's
	// name; the SweepRun selects its tasks by it.
	labelSWEBenchImport = "eval.sweep.dev/swebench-import"
	// swebenchPatchesSecret holds the model patches, keyed by task name (the patch agent's input).
	swebenchPatchesSecret = "swebench-patches"
	// swebenchImportKey is the key of the import record ConfigMap (<name>-import): the dataset's
	// ids and which had no or an empty prediction, which no trial can tell.
	swebenchImportKey = "import.json"
	// metadataInstanceID is the [metadata] key of task.toml naming the instance, so that every
	// trial's own snapshot says which instance it graded.
	metadataInstanceID = "swebench_instance_id"
	// verifierMarginSec is the verifier stage's time beyond the grader's timeout (starting,
	// grading, writing), so that the grader's own timeout (an error instance) fires first.
	verifierMarginSec = 300
	// maxSecretBytes is the most data a Secret holds.
	maxSecretBytes = 1 << 20
)

// swebenchImportRecord is import.json.
type swebenchImportRecord struct {
	GradingVersion swebench.GradingVersion `json:"grading_version"`
	Models         []string                `json:"models"`
	InstanceIDs    []string                `json:"instance_ids"`
	EmptyPatchIDs  []string                `json:"empty_patch_ids"`
	MissingIDs     []string                `json:"missing_ids"`
}

func newSwebenchCmd(kube *cluster) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "swebench",
		Short: "Import SWE-bench predictions as a campaign, and grade, parse and report SWE-bench runs",
		Long: "SWE-bench instances become tasks graded by the built-in SWE-bench grader (docs/swebench.md):\n" +
			"import writes them and a campaign of the patch agent over the predictions; report prints the\n" +
			"run report of such a campaign in SWE-bench's schema; grade and parse work on local logs.",
	}
	cmd.AddCommand(newSwebenchImportCmd(kube), newSwebenchParseCmd(), newSwebenchGradeCmd(), newSwebenchReportCmd(kube))
	return cmd
}

type swebenchImportOptions struct {
	instances, predictions, imageTemplate, grading, name, out string
	timeoutSec                                                float64
	namespaceLess                                             bool
}

func newSwebenchImportCmd(kube *cluster) *cobra.Command {
	var o swebenchImportOptions
	cmd := &cobra.Command{
		Use:   "import --instances F --predictions F -o OUT",
		Short: "Write SWE-bench instances and predictions as tasks and a SweepRun (kubectl apply -k OUT)",
		Long: "import writes OUT/kustomization.yaml with, for every instance that has a non-empty prediction:\n" +
			"a task ConfigMap (task.toml, instruction.md = the problem statement) whose agent and verifier\n" +
			"image is the instance's evaluation image, and a grader ConfigMap (instance.json, grading.json)\n" +
			"mounted only into the verifier; Secret " + swebenchPatchesSecret + " with the model patches keyed by\n" +
			"task name; ConfigMap NAME-import recording the dataset's ids; and SweepRun NAME of the patch\n" +
			"agent over these tasks. Empty or null patches are listed and not run. The objects carry the\n" +
			"namespace of -n (or the kubeconfig's) unless --namespace-less leaves it to kubectl apply -n.",
		Example: "  sweep swebench import --instances verified.jsonl --predictions preds.jsonl --grading 5 -o swebench/ -n evals\n" +
			"  kubectl apply -k swebench/ && sweep watch swebench -n evals && sweep swebench report swebench -n evals",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ns := ""
			if !o.namespaceLess {
				var err error
				if ns, err = kube.namespace(); err != nil {
					return err
				}
			}
			return swebenchImport(cmd, o, ns)
		},
	}
	cmd.Flags().StringVar(&o.instances, "instances", "", "SWE-bench instances (.json or .jsonl, official field names)")
	cmd.Flags().StringVar(&o.predictions, "predictions", "", "predictions (.jsonl, a .json list, or a .json object keyed by instance id)")
	cmd.Flags().StringVar(&o.imageTemplate, "image-template", "", "evaluation image per instance; {id} is the official image-safe id, {instance_id} the id as written (default: the instance's image, else "+swebench.DefaultImageTemplate+")")
	cmd.Flags().StringVar(&o.grading, "grading", string(swebench.V5), "SWE-bench grading rules: 4.1 or 5")
	cmd.Flags().Float64Var(&o.timeoutSec, "timeout", swebench.DefaultTimeoutSec, "seconds the patch application and tests of one instance may take (a timeout is an error instance)")
	cmd.Flags().StringVar(&o.name, "name", "swebench", "name of the SweepRun and label value of the import's objects")
	cmd.Flags().BoolVar(&o.namespaceLess, "namespace-less", false, "write no namespace: choose it with kubectl apply -k OUT -n NAMESPACE")
	cmd.Flags().StringVarP(&o.out, "output-dir", "o", "", "folder to write kustomization.yaml and the object files to")
	return cmd
}

// swebenchTask is one instance to run, as the catalogue holds it.
type swebenchTask struct {
	name, configMap string
	match           swebench.Match
}

func swebenchImport(cmd *cobra.Command, o swebenchImportOptions, namespace string) error {
	for _, f := range []struct{ flag, value string }{{"--instances", o.instances}, {"--predictions", o.predictions}, {"-o/--output-dir", o.out}} {
		if f.value == "" {
			return fmt.Errorf("flag %s is required: sweep swebench import --instances F --predictions F -o OUT", f.flag)
		}
	}
	version, err := swebench.ParseGradingVersion(o.grading)
	if err != nil {
		return fmt.Errorf("flag --grading: %w", err)
	}
	if o.imageTemplate != "" && !strings.Contains(o.imageTemplate, "{id}") && !strings.Contains(o.imageTemplate, "{instance_id}") {
		return fmt.Errorf("flag --image-template %q has neither {id} nor {instance_id}: every instance would run in that one image; for example --image-template mirror.example/sweb.eval.x86_64.{id}:latest", o.imageTemplate)
	}
	if o.timeoutSec <= 0 {
		return fmt.Errorf("flag --timeout is %g: give the seconds one instance may take, for example %d", o.timeoutSec, swebench.DefaultTimeoutSec)
	}
	if errs := validation.IsDNS1123Subdomain(o.name); len(errs) > 0 || len(o.name) > 40 {
		return fmt.Errorf("flag --name %q: it names the SweepRun, so it must be a lower-case DNS name of at most 40 characters (%s)", o.name, strings.Join(errs, "; "))
	}
	insts, err := swebench.LoadInstances(o.instances)
	if err != nil {
		return err
	}
	preds, err := swebench.LoadPredictions(o.predictions)
	if err != nil {
		return err
	}
	m, err := swebench.MatchPredictions(insts, preds)
	if err != nil {
		return fmt.Errorf("%s against %s: %w", o.predictions, o.instances, err)
	}
	if len(m.ToRun) == 0 {
		return fmt.Errorf("%s: no prediction with a patch for an instance of %s (%d empty, %d instances without one): nothing to run", o.predictions, o.instances, len(m.EmptyPatchIDs), len(m.MissingIDs))
	}
	tasks, err := swebenchTasks(m.ToRun)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	k := &types.Kustomization{TypeMeta: types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind}, Namespace: namespace}
	importLabel := map[string]string{labelSWEBenchImport: o.name}
	grading := swebench.GradingConfig{GradingVersion: string(version), TimeoutSec: o.timeoutSec}
	patches := types.SecretArgs{GeneratorArgs: types.GeneratorArgs{Name: swebenchPatchesSecret,
		Options: &types.GeneratorOptions{Labels: importLabel, DisableNameSuffixHash: true}}, Type: string(corev1.SecretTypeOpaque)}
	patchBytes := 0
	for _, t := range tasks {
		inst := t.match.Instance
		image := inst.EvalImage(o.imageTemplate)
		graderCM := t.configMap + "-grader"
		taskFiles := map[string][]byte{evalv1.TaskTOMLKey: swebenchTaskTOML(t.name, inst, o.timeoutSec)}
		if inst.ProblemStatement != "" {
			taskFiles[evalv1.InstructionKey] = []byte(inst.ProblemStatement)
		}
		gen, err := writeGenerator(o.out, filepath.Join("tasks", t.configMap), t.configMap, taskFiles)
		if err != nil {
			return err
		}
		gen.Options = &types.GeneratorOptions{DisableNameSuffixHash: true,
			Labels: map[string]string{evalv1.LabelTask: t.name, labelSWEBenchImport: o.name},
			Annotations: map[string]string{
				evalv1.AnnotationAgentImage:    image,
				evalv1.AnnotationVerifierImage: image,
				evalv1.AnnotationBugs:          "1",
				evalv1.AnnotationGrader:        podcontract.GraderSWEBench,
				evalv1.AnnotationGraderConfig:  graderCM,
			}}
		k.ConfigMapGenerator = append(k.ConfigMapGenerator, gen)

		// The grader needs neither the gold patch nor the issue text; leaving the gold patch out
		// keeps the fix out of the cluster.
		graded := inst
		graded.Patch, graded.ProblemStatement = "", ""
		instanceJSON, err := json.MarshalIndent(graded, "", "  ")
		if err != nil {
			return err
		}
		gradingJSON, err := json.MarshalIndent(grading, "", "  ")
		if err != nil {
			return err
		}
		folder := filepath.Join("graders", t.configMap)
		gen, err = writeGenerator(o.out, folder, graderCM, map[string][]byte{swebench.InstanceFile: instanceJSON, swebench.GradingFile: gradingJSON})
		if err != nil {
			return err
		}
		// The grader's own checks, so that an instance it would refuse is refused here.
		if _, err := swebench.ReadGraderDir(filepath.Join(o.out, folder)); err != nil {
			return fmt.Errorf("instance %s of %s cannot be graded: %w", inst.InstanceID, o.instances, err)
		}
		gen.Options = &types.GeneratorOptions{Labels: importLabel, DisableNameSuffixHash: true}
		k.ConfigMapGenerator = append(k.ConfigMapGenerator, gen)

		patch := *t.match.Prediction.ModelPatch
		patchBytes += len(patch)
		if err := writeFile(o.out, filepath.Join("patches", t.name), []byte(patch)); err != nil {
			return err
		}
		patches.FileSources = append(patches.FileSources, filepath.ToSlash(filepath.Join("patches", t.name)))
	}
	if patchBytes > maxSecretBytes {
		return fmt.Errorf("%s: the %d model patches hold %d bytes, more than the %d a Secret (%s) can: import the instances in parts (split %s), each into its own namespace",
			o.predictions, len(tasks), patchBytes, maxSecretBytes, swebenchPatchesSecret, o.instances)
	}
	k.SecretGenerator = append(k.SecretGenerator, patches)

	record := swebenchImportRecord{GradingVersion: version, Models: modelNames(m.ToRun),
		InstanceIDs: make([]string, 0, len(insts)), EmptyPatchIDs: nonNil(m.EmptyPatchIDs), MissingIDs: nonNil(m.MissingIDs)}
	for _, inst := range insts {
		record.InstanceIDs = append(record.InstanceIDs, inst.InstanceID)
	}
	recordJSON, err := json.MarshalIndent(record, "", "  ")
	if err != nil {
		return err
	}
	gen, err := writeGenerator(o.out, "import", o.name+"-import", map[string][]byte{swebenchImportKey: recordJSON})
	if err != nil {
		return err
	}
	gen.Options = &types.GeneratorOptions{Labels: importLabel, DisableNameSuffixHash: true}
	k.ConfigMapGenerator = append(k.ConfigMapGenerator, gen)

	run, err := swebenchSweepRun(o.name)
	if err != nil {
		return err
	}
	if err := writeFile(o.out, "sweeprun.yaml", run); err != nil {
		return err
	}
	k.Resources = []string{"sweeprun.yaml"}

	data, err := yaml.Marshal(k)
	if err != nil {
		return err
	}
	if err := writeFile(o.out, catalogue.KustomizationFile, data); err != nil {
		return err
	}
	if _, err := catalogue.Render(o.out); err != nil {
		return fmt.Errorf("the kustomization written to %s does not build: %w", o.out, err)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "wrote %d SWE-bench tasks (grading %s) and sweeprun %s to %s\n", len(tasks), version, o.name, filepath.Join(o.out, catalogue.KustomizationFile))
	if len(m.EmptyPatchIDs) > 0 {
		fmt.Fprintf(w, "not run, empty patch (%d): %s\n", len(m.EmptyPatchIDs), strings.Join(m.EmptyPatchIDs, ", "))
	}
	if len(m.MissingIDs) > 0 {
		fmt.Fprintf(w, "not run, no prediction (%d): %s\n", len(m.MissingIDs), strings.Join(m.MissingIDs, ", "))
	}
	apply := "kubectl apply -k " + o.out
	if namespace == "" {
		apply += " -n NAMESPACE"
	}
	fmt.Fprintf(w, "start it with `%s`; then `sweep swebench report %s`\n", apply, o.name)
	return nil
}

// swebenchTasks names a task per instance: the instance id when it is a valid label value (it
// nearly always is), else a cleaned id with a hash of the original. Two instances whose names or
// ConfigMap names would collide are an error naming both.
func swebenchTasks(matches []swebench.Match) ([]swebenchTask, error) {
	byConfigMap := map[string]string{}
	tasks := make([]swebenchTask, 0, len(matches))
	for _, mt := range matches {
		t := swebenchTask{name: swebenchTaskName(mt.Instance.InstanceID), match: mt}
		t.configMap = catalogue.ResourceName(t.name)
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

func swebenchTaskName(id string) string {
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

// swebenchTaskTOML is the task definition of an instance: the repository at /testbed, the patch
// as the artifact, one bug, the verifier's timeout above the grader's. The collect hook sends the
// prediction as it was written (the verifier applies it the official way, with fuzz), and for
// any other agent the tree's changes against the base commit.
func swebenchTaskTOML(task string, inst swebench.Instance, timeoutSec float64) []byte {
	patchInput := podcontract.InputDir + "/" + podcontract.AgentPatchFile
	collect := fmt.Sprintf("if [ -f %[1]s ]; then cp %[1]s %[2]s; else git add -A && git diff --cached --binary %[3]s > %[2]s; fi",
		patchInput, podcontract.PatchPath, shellWord(inst.BaseCommit))
	var b strings.Builder
	fmt.Fprintf(&b, "# SWE-bench instance %s, written by sweep swebench import.\n", inst.InstanceID)
	fmt.Fprintf(&b, "schema_version = \"1.4\"\nname = %s\nartifacts = [%s]\n\n", strconv.Quote(task), strconv.Quote(podcontract.PatchPath))
	fmt.Fprintf(&b, "[metadata]\nn_subtasks = 1\n%s = %s\n\n", metadataInstanceID, strconv.Quote(inst.InstanceID))
	fmt.Fprintf(&b, "[environment]\nworkdir = %s\n\n", strconv.Quote(swebench.DefaultWorkdir))
	fmt.Fprintf(&b, "[verifier]\ntimeout_sec = %s\n\n", strconv.FormatFloat(timeoutSec+verifierMarginSec, 'f', -1, 64))
	fmt.Fprintf(&b, "[[verifier.collect]]\ncommand = %s\n", strconv.Quote(collect))
	return []byte(b.String())
}

// shellWord quotes s for sh unless it is a plain word (commit hashes are).
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// swebenchSweepRun is the campaign of the patch agent over the import's tasks, as YAML.
func swebenchSweepRun(name string) ([]byte, error) {
	run := &evalv1.SweepRun{
		TypeMeta:   metav1.TypeMeta{APIVersion: evalv1.GroupVersion.String(), Kind: "SweepRun"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{labelSWEBenchImport: name}},
		Spec: evalv1.SweepRunSpec{
			Tasks:       evalv1.TaskSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{labelSWEBenchImport: name}}},
			Agent:       evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: swebenchPatchesSecret}},
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

// writeGenerator writes files under out/folder and returns a ConfigMap generator reading them.
func writeGenerator(out, folder, name string, files map[string][]byte) (types.ConfigMapArgs, error) {
	gen := types.ConfigMapArgs{GeneratorArgs: types.GeneratorArgs{Name: name}}
	size := 0
	keys := make([]string, 0, len(files))
	for key, data := range files {
		size += len(data)
		keys = append(keys, key)
	}
	if size > catalogue.MaxConfigMapBytes {
		return gen, fmt.Errorf("configmap %s would hold %d bytes, more than the %d a ConfigMap can: the instance's files under %s are too large to import", name, size, catalogue.MaxConfigMapBytes, filepath.Join(out, folder))
	}
	sort.Strings(keys)
	for _, key := range keys {
		if err := writeFile(out, filepath.Join(folder, key), files[key]); err != nil {
			return gen, err
		}
		gen.FileSources = append(gen.FileSources, filepath.ToSlash(filepath.Join(folder, key)))
	}
	return gen, nil
}

func writeFile(out, rel string, data []byte) error {
	path := filepath.Join(out, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func newSwebenchParseCmd() *cobra.Command {
	var parser, grading string
	cmd := &cobra.Command{
		Use:   "parse --parser NAME LOG",
		Short: "Print the test → status map a SWE-bench log parser reads from a log, as JSON",
		Long: "parse reads LOG's test output (between the eval script's markers when it has them) with the\n" +
			"named parser (" + strings.Join(logparse.Names(), ", ") + ").\n" +
			"Without --grading it prints our full reading; with --grading 4.1 or 5 what that version's\n" +
			"official parser sees, which is what grading uses.",
		Example: "  sweep swebench parse --parser parse_log_pytest test-stdout.txt",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if parser == "" {
				return fmt.Errorf("flag --parser is required: one of %s", strings.Join(logparse.Names(), ", "))
			}
			p, err := logparse.Get(parser)
			if err != nil {
				return fmt.Errorf("flag --parser: %w", err)
			}
			log, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("reading the log: %w", err)
			}
			section := swebench.TestOutput(string(log))
			statuses := p.Parse(section)
			if grading != "" {
				version, err := swebench.ParseGradingVersion(grading)
				if err != nil {
					return fmt.Errorf("flag --grading: %w", err)
				}
				if statuses, err = swebench.ParseAsVersion(p, section, version); err != nil {
					return err
				}
			}
			return writeStructured(cmd.OutOrStdout(), outputJSON, statuses)
		},
	}
	cmd.Flags().StringVar(&parser, "parser", "", "log parser name, for example parse_log_pytest")
	cmd.Flags().StringVar(&grading, "grading", "", "read as this grading version's official parser does: 4.1 or 5")
	return cmd
}

func newSwebenchGradeCmd() *cobra.Command {
	var instanceFile, logFile, grading, id, parser string
	cmd := &cobra.Command{
		Use:   "grade --instance F --log LOG",
		Short: "Grade an eval log of a SWE-bench instance and print its report.json",
		Long: "grade reads the log of the patch application and eval script (stdout and stderr merged, as\n" +
			"test-stdout.txt holds it) and prints the instance's report.json in SWE-bench's schema. An error\n" +
			"instance (the patch did not apply, the tests timed out, an invalid run under 5) has no report:\n" +
			"grade then fails with the reason.",
		Example: "  sweep swebench grade --instance instance.json --log test-stdout.txt --grading 4.1",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if instanceFile == "" || logFile == "" {
				return fmt.Errorf("flags --instance and --log are required: sweep swebench grade --instance F --log LOG")
			}
			version, err := swebench.ParseGradingVersion(grading)
			if err != nil {
				return fmt.Errorf("flag --grading: %w", err)
			}
			inst, err := pickInstance(instanceFile, id)
			if err != nil {
				return err
			}
			log, err := os.ReadFile(logFile)
			if err != nil {
				return fmt.Errorf("reading the log: %w", err)
			}
			rep, err := swebench.Grade(inst, string(log), version, swebench.GradeOptions{Parser: parser})
			if err != nil {
				return err
			}
			if !rep.Completed() {
				return fmt.Errorf("instance %s is an error instance under grading %s, with no report.json: %s (log %s)", inst.InstanceID, version, rep.Error, logFile)
			}
			return writeStructured(cmd.OutOrStdout(), outputJSON, rep)
		},
	}
	cmd.Flags().StringVar(&instanceFile, "instance", "", "the instance (.json or .jsonl; a dataset file with --id)")
	cmd.Flags().StringVar(&id, "id", "", "instance id, when --instance holds more than one")
	cmd.Flags().StringVar(&logFile, "log", "", "the eval log")
	cmd.Flags().StringVar(&grading, "grading", string(swebench.V5), "SWE-bench grading rules: 4.1 or 5")
	cmd.Flags().StringVar(&parser, "parser", "", "log parser overriding the instance's and repository's")
	return cmd
}

// pickInstance reads the one instance of file, or the one named id.
func pickInstance(file, id string) (swebench.Instance, error) {
	insts, err := swebench.LoadInstances(file)
	if err != nil {
		return swebench.Instance{}, err
	}
	if id == "" {
		if len(insts) != 1 {
			return swebench.Instance{}, fmt.Errorf("%s holds %d instances: choose one with --id", file, len(insts))
		}
		return insts[0], nil
	}
	for _, inst := range insts {
		if inst.InstanceID == id {
			return inst, nil
		}
	}
	return swebench.Instance{}, fmt.Errorf("%s has no instance %q: check --id", file, id)
}

func newSwebenchReportCmd(kube *cluster) *cobra.Command {
	var attempt int32
	cmd := &cobra.Command{
		Use:   "report NAME",
		Short: "Print a SWE-bench campaign's run report (SWE-bench's schema) as JSON",
		Long: "report reads SweepRun NAME's trials of one attempt and the report.json each verifier stored in\n" +
			"its <trial>-results Secret: a trial with a report is completed (resolved or unresolved), any\n" +
			"other is an error instance, as in SWE-bench. When NAME was written by `sweep swebench import`,\n" +
			"the dataset's other instances count too: without a prediction as incomplete, with an empty\n" +
			"patch as empty_patch.",
		Example: "  sweep swebench report swebench -n evals > swebench.report.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, ns, err := kube.client()
			if err != nil {
				return err
			}
			rep, unfinished, err := swebenchRunReport(cmd.Context(), cl, ns, args[0], attempt)
			if err != nil {
				return err
			}
			if unfinished > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "sweeprun %s: %d submitted instances have no finished trial yet and count as errors; report again when `sweep watch %s` shows it done\n", args[0], unfinished, args[0])
			}
			return writeStructured(cmd.OutOrStdout(), outputJSON, rep)
		},
	}
	cmd.Flags().Int32Var(&attempt, "attempt", 1, "which attempt of each task to report (SWE-bench grades one prediction per instance)")
	return cmd
}

// swebenchRunReport builds the run report of a campaign from its trials' report.json and, for a
// campaign written by import, its import record. It also returns how many submitted instances
// have no finished trial yet (they count as errors, as an instance without a report does).
func swebenchRunReport(ctx context.Context, cl client.Client, ns, name string, attempt int32) (swebench.CampaignReport, int, error) {
	run, err := getSweepRun(ctx, cl, ns, name)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	trials, err := campaignTrials(ctx, cl, ns, run.Name)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	var (
		reports  []swebench.InstanceReport
		version  swebench.GradingVersion
		finished = map[string]bool{} // instance id → its trial finished
	)
	for i := range trials {
		tr := &trials[i]
		if tr.Spec.Attempt != attempt {
			continue
		}
		id, err := trialInstanceID(tr)
		if err != nil {
			return swebench.CampaignReport{}, 0, err
		}
		finished[id] = tr.Status.Phase.Finished()
		if !finished[id] {
			continue
		}
		secret := podbuild.ResultsSecretName(tr.Name)
		results, err := optionalSecret(ctx, cl, ns, secret)
		if err != nil {
			return swebench.CampaignReport{}, 0, err
		}
		var ev swebench.GraderEval
		if version == "" && json.Unmarshal(results[podcontract.RecordEval], &ev) == nil {
			version = ev.GradingVersion
		}
		data, ok := results[podcontract.RecordSWEBenchReport]
		if !ok {
			continue
		}
		var rep swebench.InstanceReport
		if err := json.Unmarshal(data, &rep); err != nil {
			return swebench.CampaignReport{}, 0, fmt.Errorf("secret %s/%s key %s of trial %s: not a SWE-bench report.json: %v; regrade the trial", ns, secret, podcontract.RecordSWEBenchReport, tr.Name, err)
		}
		reports = append(reports, rep)
	}
	record, imported, err := swebenchImportRecordOf(ctx, cl, run)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	if !imported {
		if len(finished) == 0 {
			return swebench.CampaignReport{}, 0, fmt.Errorf("sweeprun %s has no trials of attempt %d yet: wait for it to start, or choose another --attempt", name, attempt)
		}
		for id := range finished {
			record.InstanceIDs = append(record.InstanceIDs, id)
		}
		sort.Strings(record.InstanceIDs)
	} else {
		version = record.GradingVersion
	}
	var instances []swebench.Instance
	var preds []swebench.Prediction
	submitted, empty, unfinished := "submitted", "", 0
	for _, id := range record.InstanceIDs {
		instances = append(instances, swebench.Instance{InstanceID: id})
		switch {
		case slices.Contains(record.MissingIDs, id):
		case slices.Contains(record.EmptyPatchIDs, id):
			preds = append(preds, swebench.Prediction{InstanceID: id, ModelPatch: &empty})
		default:
			preds = append(preds, swebench.Prediction{InstanceID: id, ModelPatch: &submitted})
			if !finished[id] {
				unfinished++
			}
		}
	}
	return swebench.RunReport(instances, preds, reports, version), unfinished, nil
}

// trialInstanceID is the instance a trial graded, from its own task definition.
func trialInstanceID(tr *evalv1.TaskTrial) (string, error) {
	if tr.Spec.Grader != podcontract.GraderSWEBench {
		return "", fmt.Errorf("trial %s (task %s) is not graded by the SWE-bench grader (grader %q): sweep swebench report reads SWE-bench campaigns; use `sweep info %s`", tr.Name, tr.Spec.Task, tr.Spec.Grader, tr.Spec.SweepRun)
	}
	task, err := taskdef.Parse("trial "+tr.Name+" task.toml", []byte(tr.Spec.Definition))
	if err != nil {
		return "", err
	}
	id, ok := task.Metadata[metadataInstanceID].(string)
	if !ok || id == "" {
		return "", fmt.Errorf("trial %s: task %s's task.toml has no [metadata] %s: reimport the task with `sweep swebench import`", tr.Name, tr.Spec.Task, metadataInstanceID)
	}
	return id, nil
}

// swebenchImportRecordOf reads the import record of a campaign written by import, if any.
func swebenchImportRecordOf(ctx context.Context, cl client.Client, run *evalv1.SweepRun) (swebenchImportRecord, bool, error) {
	var record swebenchImportRecord
	importName, ok := run.Labels[labelSWEBenchImport]
	if !ok {
		return record, false, nil
	}
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: run.Namespace, Name: importName + "-import"}
	if err := cl.Get(ctx, key, cm); err != nil {
		return record, false, fmt.Errorf("sweeprun %s is labelled %s=%s but configmap %s cannot be read: %w; apply the whole import (kubectl apply -k)", run.Name, labelSWEBenchImport, importName, key, err)
	}
	if err := json.Unmarshal([]byte(cm.Data[swebenchImportKey]), &record); err != nil {
		return record, false, fmt.Errorf("configmap %s key %s: %v; rewrite it with `sweep swebench import`", key, swebenchImportKey, err)
	}
	return record, true, nil
}
