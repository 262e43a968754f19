package swebenchcli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

const data = "testdata"

// execute runs a verb as the CLI does and returns its stdout.
func execute(t *testing.T, v clioptions.Verb, args ...string) (string, error) {
	t.Helper()
	out, _, err := clitest.Execute(context.Background(), v, args...)
	return out, err
}

// importOptions are the flags' defaults with the test dataset and a fresh output folder.
func importOptions(t *testing.T) *ImportOptions {
	return &ImportOptions{Instances: data + "/instances.jsonl", Predictions: data + "/predictions.jsonl",
		OutDir: filepath.Join(t.TempDir(), "out"), Grading: string(swebench.V5), TimeoutSec: swebench.DefaultTimeoutSec,
		Name: "swebench", NamespaceLess: true}
}

func TestImportErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(o *ImportOptions)
		want   []string
	}{
		"no instances":      {func(o *ImportOptions) { o.Instances = "" }, []string{"flag --instances is required"}},
		"no predictions":    {func(o *ImportOptions) { o.Predictions = "" }, []string{"flag --predictions is required"}},
		"no output":         {func(o *ImportOptions) { o.OutDir = "" }, []string{"flag -o/--output-dir is required"}},
		"bad grading":       {func(o *ImportOptions) { o.Grading = "4" }, []string{"flag --grading", `"4"`, "use 4.1 or 5"}},
		"bad score":         {func(o *ImportOptions) { o.Score = "strict" }, []string{"flag --score", `"strict"`, `"hardened"`, `"official"`}},
		"one image for all": {func(o *ImportOptions) { o.ImageTemplate = "reg.example/swebench:latest" }, []string{`flag --image-template "reg.example/swebench:latest"`, "{id}"}},
		"bad timeout":       {func(o *ImportOptions) { o.TimeoutSec = 0 }, []string{"flag --timeout is 0"}},
		"bad name":          {func(o *ImportOptions) { o.Name = "My_Run" }, []string{`flag --name "My_Run"`, "lower-case DNS name"}},
		"bad network":       {func(o *ImportOptions) { o.VerifierNetwork = "allowlist" }, []string{`flag --verifier-network "allowlist"`, "want no-network", "or public"}},
		"duplicates":        {func(o *ImportOptions) { o.Predictions = data + "/predictions-dup.jsonl" }, []string{"predictions-dup.jsonl", "calc__calc-1"}},
		"unknown ids":       {func(o *ImportOptions) { o.Predictions = data + "/predictions-unknown.json" }, []string{"predictions-unknown.json", "calc__calc-99"}},
		"only empty":        {func(o *ImportOptions) { o.Predictions = data + "/predictions-empty.jsonl" }, []string{"predictions-empty.jsonl", "no prediction with a patch", "1 empty"}},
		"no test patch": {func(o *ImportOptions) {
			o.Instances, o.Predictions = data+"/instances-no-test-patch.jsonl", data+"/predictions-1.jsonl"
		}, []string{"instance calc__calc-1 of " + data + "/instances-no-test-patch.jsonl cannot be graded", "has neither test_patch nor eval_script"}},
		"no parser": {func(o *ImportOptions) {
			o.Instances, o.Predictions = data+"/instances-no-parser.jsonl", data+"/predictions-1.jsonl"
		}, []string{data + "/instances-no-parser.jsonl: instance calc__calc-1: field repo: unknown repository \"me/mine\": known: alibaba-fusion/next, apache/druid, ", "astropy/astropy", "django/django", "tokio-rs/tokio", "name the parser in the instance's log_parser"}},
		"missing file": {func(o *ImportOptions) { o.Instances = data + "/nope.jsonl" }, []string{"nope.jsonl", "no such file"}},
	} {
		t.Run(name, func(t *testing.T) {
			o := importOptions(t)
			tc.change(o)
			_, err := execute(t, o)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
}

// writeRecords writes records as a .jsonl file in dir.
func writeRecords(t *testing.T, dir, name string, records ...any) string {
	t.Helper()
	var b strings.Builder
	for _, r := range records {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(data, '\n'))
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testInstance is an instance the grader accepts.
func testInstance(id, statement string) map[string]any {
	return map[string]any{"instance_id": id, "repo": "pytest-dev/pytest", "base_commit": "abc", "test_patch": "diff --git a/t.py b/t.py\n",
		"FAIL_TO_PASS": []string{"t.py::t"}, "problem_statement": statement}
}

func testPrediction(id string, size int) map[string]any {
	return map[string]any{"instance_id": id, "model_name_or_path": "m", "model_patch": strings.Repeat("+", size)}
}

// Objects larger than the API server keeps are refused before anything is applied.
func TestImportTooLarge(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, records ...any) string { return writeRecords(t, dir, name, records...) }
	inst, pred := testInstance, testPrediction
	for name, tc := range map[string]struct {
		instances, predictions string
		want                   []string
	}{
		"a patch over a Secret": {write("big-patches.jsonl", inst("a__a-1", ""), inst("a__a-2", "")), write("big-preds.jsonl", pred("a__a-1", 600<<10), pred("a__a-2", 1<<20)),
			[]string{"big-preds.jsonl: the model_patch of instance a__a-2 has 1048576 bytes, more than the 1048570 a Secret (swebench-a--a-2-patch) holds", "leave build products"}},
		"a problem statement over a ConfigMap": {write("big-statement.jsonl", inst("a__a-1", strings.Repeat("x", 1100<<10))), write("preds.jsonl", pred("a__a-1", 10)),
			[]string{"configmap swebench-a--a-1 would hold", "more than the 1048576 a ConfigMap can", "shrink the problem statement of instance a__a-1 in " + dir + "/big-statement.jsonl"}},
	} {
		t.Run(name, func(t *testing.T) {
			o := importOptions(t)
			o.Instances, o.Predictions = tc.instances, tc.predictions
			_, err := execute(t, o)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
}

func TestTaskName(t *testing.T) {
	long := strings.Repeat("a", 70)
	for id, want := range map[string]string{
		"django__django-11099": "django__django-11099",
		"me/repo#1":            "me-repo-1-" + hashOf("me/repo#1"),
		long:                   strings.Repeat("a", 54) + "-" + hashOf(long),
	} {
		if got := taskName(id); got != want {
			t.Errorf("taskName(%q) = %q, want %q", id, got, want)
		}
	}
}

func hashOf(id string) string {
	name := taskName(id)
	return name[len(name)-8:]
}

// Two instances whose ConfigMap names collide are refused, naming both.
func TestImportTasksCollide(t *testing.T) {
	matches := []swebench.Match{{Instance: swebench.Instance{InstanceID: "A__b-1"}}, {Instance: swebench.Instance{InstanceID: "a__b-1"}}}
	_, err := importTasks("imp", matches)
	sweeptest.ErrorContains(t, err, "instances A__b-1 and a__b-1 both become ConfigMap imp-a--b-1", "import them separately")
	tasks, err := importTasks("imp", matches[1:])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a__b-1", "imp-a--b-1", "a--b-1"}, []string{tasks[0].name, tasks[0].configMap, tasks[0].folder}); diff != "" {
		t.Errorf("task and ConfigMap name (-want +got):\n%s", diff)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ golden, grading string }{{"parse-full.json", ""}, {"parse-4.1.json", "4.1"}} {
		stdout, err := execute(t, &ParseOptions{Parser: "parse_log_pytest", Grading: tc.grading}, data+"/test-stdout-unresolved.txt")
		if err != nil {
			t.Fatal(err)
		}
		clitest.Golden(t, tc.golden, stdout)
	}
	for name, tc := range map[string]struct {
		o    ParseOptions
		log  string
		want []string
	}{
		"no parser":      {ParseOptions{}, "test-stdout-resolved.txt", []string{"flag --parser is required", "parse_log_pytest"}},
		"unknown parser": {ParseOptions{Parser: "pytest"}, "test-stdout-resolved.txt", []string{"flag --parser", `"pytest"`, "parse_log_pytest"}},
		"bad grading":    {ParseOptions{Parser: "parse_log_pytest", Grading: "6"}, "test-stdout-resolved.txt", []string{"flag --grading", `"6"`}},
		"no log":         {ParseOptions{Parser: "parse_log_pytest"}, "nope.txt", []string{"reading the log", "nope.txt"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := execute(t, &tc.o, data+"/"+tc.log)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
}

func TestGrade(t *testing.T) {
	for _, tc := range []struct{ golden, log, grading string }{
		{"grade-resolved.json", "test-stdout-resolved.txt", "5"},
		{"grade-unresolved.json", "test-stdout-unresolved.txt", "4.1"},
	} {
		stdout, err := execute(t, &GradeOptions{InstanceFile: data + "/instance-1.json", LogFile: data + "/" + tc.log, Grading: tc.grading})
		if err != nil {
			t.Fatal(err)
		}
		clitest.Golden(t, tc.golden, stdout)
		var rep swebench.InstanceReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.InstanceID != "calc__calc-1" {
			t.Errorf("the output does not read back as a report.json: %v %+v", err, rep)
		}
	}
	// A dataset file works with an id.
	if _, err := execute(t, &GradeOptions{InstanceFile: data + "/instances.jsonl", ID: "calc__calc-1", LogFile: data + "/test-stdout-resolved.txt", Grading: "5"}); err != nil {
		t.Error(err)
	}
	for name, tc := range map[string]struct {
		o    GradeOptions
		want []string
	}{
		"no log":           {GradeOptions{InstanceFile: data + "/instance-1.json"}, []string{"flags --instance and --log are required"}},
		"missing log":      {GradeOptions{InstanceFile: data + "/instance-1.json", LogFile: data + "/nope.txt"}, []string{"reading the log", "nope.txt"}},
		"missing instance": {GradeOptions{InstanceFile: data + "/nope.json", LogFile: data + "/test-stdout-resolved.txt"}, []string{"nope.json", "no such file"}},
		"error instance":   {GradeOptions{InstanceFile: data + "/instance-1.json", LogFile: data + "/test-stdout-patch-failed.txt"}, []string{"calc__calc-1 is an error instance", "the model patch did not apply", "test-stdout-patch-failed.txt"}},
		"several":          {GradeOptions{InstanceFile: data + "/instances.jsonl", LogFile: data + "/test-stdout-resolved.txt"}, []string{"instances.jsonl holds 4 instances", "--id"}},
		"unknown id":       {GradeOptions{InstanceFile: data + "/instances.jsonl", ID: "x", LogFile: data + "/test-stdout-resolved.txt"}, []string{"instances.jsonl has no instance \"x\"", "--id"}},
		"bad grading":      {GradeOptions{InstanceFile: data + "/instance-1.json", LogFile: data + "/test-stdout-resolved.txt", Grading: "x"}, []string{"flag --grading", `"x"`}},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.o.Grading == "" {
				tc.o.Grading = string(swebench.V5)
			}
			_, err := execute(t, &tc.o)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
}

// The run report counts the whole dataset: no prediction is incomplete, an empty patch is
// empty_patch, and a submitted instance without a finished trial is pending.
func TestReportInput(t *testing.T) {
	record := importRecord{InstanceIDs: []string{"a", "b", "c", "d"}, MissingIDs: []string{"b"}, EmptyPatchIDs: []string{"c"}}
	instances, preds, unfinished := reportInput(record, map[string]bool{"a": true})
	var ids []string
	for _, in := range instances {
		ids = append(ids, in.InstanceID)
	}
	patches := map[string]string{}
	for _, p := range preds {
		patches[p.InstanceID] = *p.ModelPatch
	}
	if diff := cmp.Diff([]any{[]string{"a", "b", "c", "d"}, map[string]string{"a": "submitted", "c": "", "d": "submitted"}, 1},
		[]any{ids, patches, unfinished}); diff != "" {
		t.Errorf("instances, predictions, unfinished (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"x", "y"}, recordOfTrials(map[string]bool{"y": false, "x": true}).InstanceIDs); diff != "" {
		t.Errorf("record of trials (-want +got):\n%s", diff)
	}
}

// An id from the dataset either is refused, naming the file, the line and the fix, before
// anything is written, or comes back from task.toml exactly as written.
func TestImportInstanceIDs(t *testing.T) {
	for name, tc := range map[string]struct {
		id   string
		want []string // the error; none when the id is imported
	}{
		"newline injecting TOML": {id: "calc__calc-1\"\n[verifier]\nnetwork_mode = \"public\"\n#", want: []string{"instances.jsonl:2", "contains U+000A", "fix the id in the file"}},
		"carriage return":        {id: "a__b-1\r", want: []string{"instances.jsonl:2", "contains U+000D"}},
		"tab":                    {id: "a__b\t1", want: []string{"instances.jsonl:2", "contains U+0009"}},
		"space":                  {id: "a__b 1", want: []string{"instances.jsonl:2", "contains U+0020"}},
		"no letter or digit":     {id: "--__--", want: []string{"instances.jsonl:2", "no ASCII letter or digit"}},
		"overlong":               {id: strings.Repeat("a", swebench.MaxInstanceIDBytes+1), want: []string{"instances.jsonl:2", "is 129 bytes, more than 128"}},
		"quotes":                 {id: `say"hi"__x-'1'`},
		"brackets":               {id: "a]]__[[b-1"},
		"equals and hash":        {id: "a=b__c#d-1"},
		"backslash":              {id: `a\b__c\u0041-1`},
		"unicode":                {id: "ünïcödé__pröjekt-1"},
		"longer than a label":    {id: strings.Repeat("a", 70) + "__b-1"},
		"longest":                {id: strings.Repeat("b", swebench.MaxInstanceIDBytes)},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			o := importOptions(t)
			o.Instances = writeRecords(t, dir, "instances.jsonl", testInstance("ok__ok-1", ""), testInstance(tc.id, ""))
			o.Predictions = writeRecords(t, dir, "predictions.jsonl", testPrediction("ok__ok-1", 10), testPrediction(tc.id, 10))
			_, err := execute(t, o)
			if len(tc.want) > 0 {
				sweeptest.ErrorContains(t, err, tc.want...)
				if _, statErr := os.Stat(o.OutDir); !os.IsNotExist(statErr) {
					t.Errorf("a refused import wrote %s (%v)", o.OutDir, statErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			name := taskName(tc.id)
			data, err := os.ReadFile(filepath.Join(o.OutDir, "tasks", catalogue.ResourceName(name), evalv1.TaskTOMLKey))
			if err != nil {
				t.Fatal(err)
			}
			task, err := taskdef.Parse("task.toml", data)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{task.Name, task.Metadata, task.Agent.NetworkMode, task.Verifier.NetworkMode, len(task.Collect)}
			want := []any{name, map[string]any{taskdef.MetadataBugsKey: int64(1), MetadataInstanceID: tc.id}, taskdef.NetworkNone, taskdef.NetworkNone, 1}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("task.toml of %q read back (-want +got):\n%s", tc.id, diff)
			}
			if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
				t.Errorf("task name %q is not a label value: %v", name, errs)
			}
		})
	}
}

// The encoder keeps whatever a dataset value holds inside its own string, even what the loader
// refuses: no value adds a key or a table.
func TestTaskTOMLQuotesValues(t *testing.T) {
	evil := "x\"\n[verifier]\nnetwork_mode = \"public\"\n[[verifier.collect]]\ncommand = \"curl evil\"\n#\x00\x7f"
	data, err := taskTOML("t", swebench.Instance{InstanceID: evil, BaseCommit: evil}, 100.5, taskdef.NetworkNone)
	if err != nil {
		t.Fatal(err)
	}
	task, err := taskdef.Parse("task.toml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	got := []any{task.Metadata[MetadataInstanceID], task.Verifier.NetworkMode, task.Verifier.TimeoutSec, len(task.Collect), strings.Contains(task.Collect[0].Command, catalogue.ShellQuote(evil))}
	if diff := cmp.Diff([]any{evil, taskdef.NetworkNone, 400.5, 1, true}, got); diff != "" {
		t.Errorf("task.toml read back (-want +got):\n%s\n%s", diff, data)
	}
}

// --verifier-network public widens the verifier only; the agent keeps no network.
func TestImportVerifierNetwork(t *testing.T) {
	out, _ := importSwebench(t, func(o *ImportOptions) { o.VerifierNetwork = taskdef.NetworkPublic })
	data, err := os.ReadFile(filepath.Join(out, "tasks", "calc--calc-1", evalv1.TaskTOMLKey))
	if err != nil {
		t.Fatal(err)
	}
	task, err := taskdef.Parse("task.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{taskdef.NetworkNone, taskdef.NetworkPublic}, []string{task.Agent.NetworkMode, task.Verifier.NetworkMode}); diff != "" {
		t.Errorf("agent and verifier network (-want +got):\n%s", diff)
	}
}

func TestImportScoredVerdict(t *testing.T) {
	for score, want := range map[string]string{"": "", swebench.ScoreHardened: "", swebench.ScoreOfficial: swebench.ScoreOfficial} {
		t.Run("score "+score, func(t *testing.T) {
			out, _ := importSwebench(t, func(o *ImportOptions) { o.Score = score })
			in, err := swebench.ReadGraderDir(filepath.Join(out, "graders", "calc--calc-1"))
			if err != nil {
				t.Fatal(err)
			}
			if in.Config.ScoredVerdict != want {
				t.Errorf("grading.json scored_verdict %q, want %q", in.Config.ScoredVerdict, want)
			}
		})
	}
}
