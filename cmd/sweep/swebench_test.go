package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/swebenchcli"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

const swebenchData = "testdata/swebench"

// swebenchGolden compares got with testdata/swebench/golden/NAME (golden's -update rewrites it).
func swebenchGolden(t *testing.T, name, got string) {
	t.Helper()
	golden(t, filepath.Join("..", "swebench", "golden", name), got)
}

// importSwebench runs import on the test dataset into a new folder and returns it and stdout.
func importSwebench(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "swebench")
	args := append([]string{"swebench", "import", "--instances", swebenchData + "/instances.jsonl",
		"--predictions", swebenchData + "/predictions.jsonl", "-o", out}, extra...)
	stdout, stderr, err := runSweepSplit(t, args...)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	return out, strings.ReplaceAll(stdout, out, "OUT")
}

func TestSwebenchImport(t *testing.T) {
	out, stdout := importSwebench(t, "--namespace-less", "--grading", "4.1", "--image-template", "mirror.example/sweb.eval.x86_64.{id}:v1")
	swebenchGolden(t, "import.txt", stdout)
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	swebenchGolden(t, "import.yaml", string(rendered))

	// Each task definition is one the operator reads as intended.
	data, err := os.ReadFile(filepath.Join(out, "tasks", "calc--calc-1", "task.toml"))
	if err != nil {
		t.Fatal(err)
	}
	task, err := taskdef.Parse("task.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{task.Name, task.Environment.Workdir, task.Artifacts[0].Source, task.Bugs, task.Verifier.TimeoutSec, task.Metadata[swebenchcli.MetadataInstanceID], len(task.Collect)}
	want := []any{"calc__calc-1", "/testbed", "/logs/artifacts/model.patch", 1, float64(swebench.DefaultTimeoutSec + swebenchcli.VerifierMarginSec), "calc__calc-1", 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task.toml read back (-want +got):\n%s", diff)
	}
	// The grader directory is one the grader accepts.
	in, err := swebench.ReadGraderDir(filepath.Join(out, "graders", "calc--calc-2"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Version != swebench.V41 || in.Instance.Patch != "" || in.Timeout().Seconds() != swebench.DefaultTimeoutSec {
		t.Errorf("grader dir: version %s, gold patch %q, timeout %s", in.Version, in.Instance.Patch, in.Timeout())
	}

	// The API server takes every object, the SweepRun included.
	cl, _ := apiServer(t)
	ns := testNamespace(t, cl)
	applyRendered(t, cl, ns, rendered)
	cms := &corev1.ConfigMapList{}
	if err := cl.List(context.Background(), cms, client.InNamespace(ns), client.MatchingLabels{swebenchcli.ImportLabel: "swebench"}, client.HasLabels{evalv1.LabelTask}); err != nil || len(cms.Items) != 2 {
		t.Errorf("the SweepRun's selector finds %d task ConfigMaps (%v), want 2", len(cms.Items), err)
	}
	run, err := campaigns.GetSweepRun(context.Background(), cl, ns, "swebench")
	if err != nil {
		t.Fatal(err)
	}
	if p := run.Spec.RetryPolicy; p.InfrastructureRetries != 3 || p.BackoffSeconds != 10 {
		t.Errorf("the SweepRun does not get the CRD's retry defaults: %+v", p)
	}
}

func TestSwebenchImportNamespace(t *testing.T) {
	out, _ := importSwebench(t, "-n", "evals")
	data, err := os.ReadFile(filepath.Join(out, catalogue.KustomizationFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "namespace: evals\n") {
		t.Errorf("kustomization.yaml lacks the namespace of -n:\n%s", data)
	}
}

func TestSwebenchImportErrors(t *testing.T) {
	insts, preds := swebenchData+"/instances.jsonl", swebenchData+"/predictions.jsonl"
	for name, tc := range map[string]struct {
		args []string
		want []string
	}{
		"no instances":      {[]string{"--predictions", preds, "-o", "OUT"}, []string{"flag --instances is required"}},
		"no predictions":    {[]string{"--instances", insts, "-o", "OUT"}, []string{"flag --predictions is required"}},
		"no output":         {[]string{"--instances", insts, "--predictions", preds}, []string{"flag -o/--output-dir is required"}},
		"bad grading":       {[]string{"--instances", insts, "--predictions", preds, "-o", "OUT", "--grading", "4"}, []string{"flag --grading", `"4"`, "use 4.1 or 5"}},
		"one image for all": {[]string{"--instances", insts, "--predictions", preds, "-o", "OUT", "--image-template", "reg.example/swebench:latest"}, []string{`flag --image-template "reg.example/swebench:latest"`, "{id}"}},
		"bad timeout":       {[]string{"--instances", insts, "--predictions", preds, "-o", "OUT", "--timeout", "0"}, []string{"flag --timeout is 0"}},
		"bad name":          {[]string{"--instances", insts, "--predictions", preds, "-o", "OUT", "--name", "My_Run"}, []string{`flag --name "My_Run"`, "lower-case DNS name"}},
		"duplicates":        {[]string{"--instances", insts, "--predictions", swebenchData + "/predictions-dup.jsonl", "-o", "OUT"}, []string{"predictions-dup.jsonl", "calc__calc-1"}},
		"unknown ids":       {[]string{"--instances", insts, "--predictions", swebenchData + "/predictions-unknown.json", "-o", "OUT"}, []string{"predictions-unknown.json", "calc__calc-99"}},
		"only empty":        {[]string{"--instances", insts, "--predictions", swebenchData + "/predictions-empty.jsonl", "-o", "OUT"}, []string{"predictions-empty.jsonl", "no prediction with a patch", "1 empty"}},
		"no test patch": {[]string{"--instances", swebenchData + "/instances-no-test-patch.jsonl", "--predictions", swebenchData + "/predictions-1.jsonl", "-o", "OUT"},
			[]string{"instance calc__calc-1 of " + swebenchData + "/instances-no-test-patch.jsonl cannot be graded", "has neither test_patch nor eval_script"}},
		"no parser": {[]string{"--instances", swebenchData + "/instances-no-parser.jsonl", "--predictions", swebenchData + "/predictions-1.jsonl", "-o", "OUT"},
			[]string{"instance calc__calc-1 of " + swebenchData + "/instances-no-parser.jsonl cannot be graded", `no log parser for repository "me/mine"`}},
		"missing file": {[]string{"--instances", swebenchData + "/nope.jsonl", "--predictions", preds, "-o", "OUT"}, []string{"nope.jsonl", "no such file"}},
	} {
		t.Run(name, func(t *testing.T) {
			for i, a := range tc.args {
				if a == "OUT" {
					tc.args[i] = filepath.Join(t.TempDir(), "out")
				}
			}
			_, _, err := runSweepSplit(t, append([]string{"swebench", "import", "--namespace-less"}, tc.args...)...)
			errorContains(t, err, tc.want...)
		})
	}
}

func TestSwebenchParse(t *testing.T) {
	for _, tc := range []struct{ golden, grading string }{{"parse-full.json", ""}, {"parse-4.1.json", "4.1"}} {
		args := []string{"swebench", "parse", "--parser", "parse_log_pytest", swebenchData + "/test-stdout-unresolved.txt"}
		if tc.grading != "" {
			args = append(args, "--grading", tc.grading)
		}
		stdout, _, err := runSweepSplit(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		swebenchGolden(t, tc.golden, stdout)
	}
	for name, tc := range map[string]struct {
		args []string
		want []string
	}{
		"no parser":      {[]string{swebenchData + "/test-stdout-resolved.txt"}, []string{"flag --parser is required", "parse_log_pytest"}},
		"unknown parser": {[]string{"--parser", "pytest", swebenchData + "/test-stdout-resolved.txt"}, []string{"flag --parser", `"pytest"`, "parse_log_pytest"}},
		"bad grading":    {[]string{"--parser", "parse_log_pytest", "--grading", "6", swebenchData + "/test-stdout-resolved.txt"}, []string{"flag --grading", `"6"`}},
		"no log":         {[]string{"--parser", "parse_log_pytest", swebenchData + "/nope.txt"}, []string{"reading the log", "nope.txt"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := runSweepSplit(t, append([]string{"swebench", "parse"}, tc.args...)...)
			errorContains(t, err, tc.want...)
		})
	}
}

func TestSwebenchGrade(t *testing.T) {
	for _, tc := range []struct{ golden, log, grading string }{
		{"grade-resolved.json", "test-stdout-resolved.txt", "5"},
		{"grade-unresolved.json", "test-stdout-unresolved.txt", "4.1"},
	} {
		stdout, _, err := runSweepSplit(t, "swebench", "grade", "--instance", swebenchData+"/instance-1.json", "--log", swebenchData+"/"+tc.log, "--grading", tc.grading)
		if err != nil {
			t.Fatal(err)
		}
		swebenchGolden(t, tc.golden, stdout)
		var rep swebench.InstanceReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.InstanceID != "calc__calc-1" {
			t.Errorf("the output does not read back as a report.json: %v %+v", err, rep)
		}
	}
	// A dataset file works with --id.
	if _, _, err := runSweepSplit(t, "swebench", "grade", "--instance", swebenchData+"/instances.jsonl", "--id", "calc__calc-1", "--log", swebenchData+"/test-stdout-resolved.txt"); err != nil {
		t.Error(err)
	}
	for name, tc := range map[string]struct {
		args []string
		want []string
	}{
		"no log":           {[]string{"--instance", swebenchData + "/instance-1.json"}, []string{"flags --instance and --log are required"}},
		"missing log":      {[]string{"--instance", swebenchData + "/instance-1.json", "--log", swebenchData + "/nope.txt"}, []string{"reading the log", "nope.txt"}},
		"missing instance": {[]string{"--instance", swebenchData + "/nope.json", "--log", swebenchData + "/test-stdout-resolved.txt"}, []string{"nope.json", "no such file"}},
		"error instance":   {[]string{"--instance", swebenchData + "/instance-1.json", "--log", swebenchData + "/test-stdout-patch-failed.txt"}, []string{"calc__calc-1 is an error instance", "the model patch did not apply", "test-stdout-patch-failed.txt"}},
		"several":          {[]string{"--instance", swebenchData + "/instances.jsonl", "--log", swebenchData + "/test-stdout-resolved.txt"}, []string{"instances.jsonl holds 4 instances", "--id"}},
		"unknown id":       {[]string{"--instance", swebenchData + "/instances.jsonl", "--id", "x", "--log", swebenchData + "/test-stdout-resolved.txt"}, []string{"instances.jsonl has no instance \"x\"", "--id"}},
		"bad grading":      {[]string{"--instance", swebenchData + "/instance-1.json", "--log", swebenchData + "/test-stdout-resolved.txt", "--grading", "x"}, []string{"flag --grading", `"x"`}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := runSweepSplit(t, append([]string{"swebench", "grade"}, tc.args...)...)
			errorContains(t, err, tc.want...)
		})
	}
}

// swebenchTrial creates the trial the campaign controller would for task attempt 1, in phase,
// with a results Secret holding results (none when nil).
func swebenchTrial(t *testing.T, cl client.Client, run *evalv1.SweepRun, task string, phase evalv1.TrialPhase, results map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	cms := &corev1.ConfigMapList{}
	if err := cl.List(ctx, cms, client.InNamespace(run.Namespace), client.MatchingLabels{evalv1.LabelTask: task}); err != nil || len(cms.Items) != 1 {
		t.Fatalf("task %s: %d ConfigMaps, %v", task, len(cms.Items), err)
	}
	tr := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: campaign.TrialName(run.Name, task, 1),
			Labels: map[string]string{evalv1.LabelSweepRun: run.Name, evalv1.LabelTask: task}},
		Spec: campaign.TrialSpec(run, campaign.Task{Name: task, ConfigMap: &cms.Items[0]}, 1),
	}
	if err := cl.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.Phase = phase
	if err := cl.Status().Update(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if results != nil {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: podbuild.ResultsSecretName(tr.Name)}, Data: results}
		if err := cl.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSwebenchReport(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	out, _ := importSwebench(t, "--namespace-less")
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	applyRendered(t, cl, ns, rendered)
	run, err := campaigns.GetSweepRun(context.Background(), cl, ns, "swebench")
	if err != nil {
		t.Fatal(err)
	}

	// Before any trial, every submitted instance is pending.
	_, stderr, err := runIn(t, kubeconfig, ns, "swebench", "report", "swebench")
	if want := "sweeprun swebench: 2 submitted instances have no finished trial yet and count as errors"; err != nil || !strings.Contains(stderr, want) {
		t.Errorf("%v; stderr %q lacks %q", err, stderr, want)
	}

	resolved := `{"calc__calc-1": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true, "infra_failure": false}}`
	swebenchTrial(t, cl, run, "calc__calc-1", evalv1.TrialSucceeded, map[string][]byte{
		podcontract.RecordSWEBenchReport: []byte(resolved),
		podcontract.RecordEval:           []byte(`{"schema": "sweep-swebench-eval/1", "instance_id": "calc__calc-1", "grading_version": "5", "resolved": true}`),
	})
	swebenchTrial(t, cl, run, "calc__calc-2", evalv1.TrialAgentRunning, nil)
	stdout, stderr, err := runIn(t, kubeconfig, ns, "swebench", "report", "swebench")
	if err != nil {
		t.Fatal(err)
	}
	swebenchGolden(t, "report-running.json", stdout)
	if want := "sweeprun swebench: 1 submitted instances have no finished trial yet"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}

	// The second instance ends as an error instance: its verifier wrote no report.json.
	tr := &evalv1.TaskTrial{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: campaign.TrialName("swebench", "calc__calc-2", 1)}, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.Phase = evalv1.TrialSucceeded
	if err := cl.Status().Update(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = runIn(t, kubeconfig, ns, "swebench", "report", "swebench")
	if err != nil || stderr != "" {
		t.Fatalf("%v %s", err, stderr)
	}
	swebenchGolden(t, "report-done.json", stdout)

	// A broken report.json names its Secret.
	broken := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podbuild.ResultsSecretName(tr.Name)},
		Data: map[string][]byte{podcontract.RecordSWEBenchReport: []byte("[]")}}
	if err := cl.Create(context.Background(), broken); err != nil {
		t.Fatal(err)
	}
	_, _, err = runIn(t, kubeconfig, ns, "swebench", "report", "swebench")
	errorContains(t, err, "secret "+ns+"/"+broken.Name, "key report.json of trial "+tr.Name, "not a SWE-bench report.json")
}

func TestSwebenchReportErrors(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	ctx := context.Background()
	_, _, err := runIn(t, kubeconfig, ns, "swebench", "report", "nope")
	errorContains(t, err, `sweeprun "nope" not found in namespace "`+ns+`"`)

	run := createRun(t, cl, ns, "sweep-tasks", "calc")
	createTrial(t, cl, run, trialOutcome{task: "calc", attempt: 1, phase: evalv1.TrialSucceeded})
	_, _, err = runIn(t, kubeconfig, ns, "swebench", "report", "sweep-tasks")
	errorContains(t, err, "trial sweep-tasks-calc-1 (task calc) is not graded by the SWE-bench grader", "sweep info sweep-tasks")

	// A SweepRun of its own over SWE-bench tasks: the instance comes from each trial's task.toml.
	trialOf := func(run *evalv1.SweepRun, task, definition string) {
		t.Helper()
		tr := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: campaign.TrialName(run.Name, task, 1), Labels: map[string]string{evalv1.LabelSweepRun: run.Name}},
			Spec: evalv1.TaskTrialSpec{SweepRun: run.Name, Task: task, Attempt: 1, Grader: "swebench", Definition: definition, Agent: run.Spec.Agent,
				Images: evalv1.TrialImages{Agent: "img", Verifier: "img"}}}
		if err := cl.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	bare := createRun(t, cl, ns, "bare", "x")
	trialOf(bare, "x", "name = \"x\"\n")
	_, _, err = runIn(t, kubeconfig, ns, "swebench", "report", "bare")
	errorContains(t, err, "trial bare-x-1: task x's task.toml has no [metadata] swebench_instance_id", "sweep swebench import")

	own := createRun(t, cl, ns, "own", "y")
	trialOf(own, "y", "name = \"y\"\n[metadata]\nswebench_instance_id = \"y__y-1\"\n")
	stdout, _, err := runIn(t, kubeconfig, ns, "swebench", "report", "own", "--attempt", "1")
	if err != nil || !strings.Contains(stdout, `"error_ids": [
    "y__y-1"
  ]`) {
		t.Errorf("report of a SweepRun not written by import: %v\n%s", err, stdout)
	}
	_, _, err = runIn(t, kubeconfig, ns, "swebench", "report", "own", "--attempt", "2")
	errorContains(t, err, "sweeprun own has no trials of attempt 2 yet")

	// A SweepRun labelled by an import whose record is missing, then broken.
	own.Labels = map[string]string{swebenchcli.ImportLabel: "lost"}
	if err := cl.Update(ctx, own); err != nil {
		t.Fatal(err)
	}
	_, _, err = runIn(t, kubeconfig, ns, "swebench", "report", "own")
	errorContains(t, err, "sweeprun own is labelled eval.sweep.dev/swebench-import=lost but configmap "+ns+"/lost-import cannot be read", "kubectl apply -k")
	record := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lost-import"}, Data: map[string]string{swebenchcli.ImportRecordKey: "{"}}
	if err := cl.Create(ctx, record); err != nil {
		t.Fatal(err)
	}
	_, _, err = runIn(t, kubeconfig, ns, "swebench", "report", "own")
	errorContains(t, err, "configmap "+ns+"/lost-import key import.json", "sweep swebench import")
}

// Objects larger than the API server keeps are refused before anything is applied.
func TestSwebenchImportTooLarge(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, records ...any) string {
		var b strings.Builder
		for _, r := range records {
			data, _ := json.Marshal(r)
			b.Write(append(data, '\n'))
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	inst := func(id, statement string) map[string]any {
		return map[string]any{"instance_id": id, "repo": "pytest-dev/pytest", "base_commit": "abc", "test_patch": "diff --git a/t.py b/t.py\n",
			"FAIL_TO_PASS": []string{"t.py::t"}, "problem_statement": statement}
	}
	pred := func(id string, size int) map[string]any {
		return map[string]any{"instance_id": id, "model_name_or_path": "m", "model_patch": strings.Repeat("+", size)}
	}
	for name, tc := range map[string]struct {
		instances, predictions string
		want                   []string
	}{
		"patches over a Secret": {write("big-patches.jsonl", inst("a__a-1", ""), inst("a__a-2", "")), write("big-preds.jsonl", pred("a__a-1", 600<<10), pred("a__a-2", 600<<10)),
			[]string{"big-preds.jsonl", "the 2 model patches hold 1228800 bytes", "Secret (swebench-patches)", "import the instances in parts"}},
		"a problem statement over a ConfigMap": {write("big-statement.jsonl", inst("a__a-1", strings.Repeat("x", 1100<<10))), write("preds.jsonl", pred("a__a-1", 10)),
			[]string{"configmap a--a-1 would hold", "more than the 1048576 a ConfigMap can"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := runSweepSplit(t, "swebench", "import", "--namespace-less", "--instances", tc.instances, "--predictions", tc.predictions, "-o", filepath.Join(t.TempDir(), "out"))
			errorContains(t, err, tc.want...)
		})
	}
}
