package swebenchcli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
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
		"one image for all": {func(o *ImportOptions) { o.ImageTemplate = "reg.example/swebench:latest" }, []string{`flag --image-template "reg.example/swebench:latest"`, "{id}"}},
		"bad timeout":       {func(o *ImportOptions) { o.TimeoutSec = 0 }, []string{"flag --timeout is 0"}},
		"bad name":          {func(o *ImportOptions) { o.Name = "My_Run" }, []string{`flag --name "My_Run"`, "lower-case DNS name"}},
		"duplicates":        {func(o *ImportOptions) { o.Predictions = data + "/predictions-dup.jsonl" }, []string{"predictions-dup.jsonl", "calc__calc-1"}},
		"unknown ids":       {func(o *ImportOptions) { o.Predictions = data + "/predictions-unknown.json" }, []string{"predictions-unknown.json", "calc__calc-99"}},
		"only empty":        {func(o *ImportOptions) { o.Predictions = data + "/predictions-empty.jsonl" }, []string{"predictions-empty.jsonl", "no prediction with a patch", "1 empty"}},
		"no test patch": {func(o *ImportOptions) {
			o.Instances, o.Predictions = data+"/instances-no-test-patch.jsonl", data+"/predictions-1.jsonl"
		}, []string{"instance calc__calc-1 of " + data + "/instances-no-test-patch.jsonl cannot be graded", "has neither test_patch nor eval_script"}},
		"no parser": {func(o *ImportOptions) {
			o.Instances, o.Predictions = data+"/instances-no-parser.jsonl", data+"/predictions-1.jsonl"
		}, []string{"instance calc__calc-1 of " + data + "/instances-no-parser.jsonl cannot be graded", `no log parser for repository "me/mine"`}},
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

// Objects larger than the API server keeps are refused before anything is applied.
func TestImportTooLarge(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, records ...any) string {
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
			[]string{"configmap a--a-1 would hold", "more than the 1048576 a ConfigMap can", "shrink the problem statement of instance a__a-1 in " + dir + "/big-statement.jsonl"}},
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
	_, err := importTasks(matches)
	sweeptest.ErrorContains(t, err, "instances A__b-1 and a__b-1 both become ConfigMap a--b-1", "import them separately")
	tasks, err := importTasks(matches[1:])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a__b-1", "a--b-1"}, []string{tasks[0].name, tasks[0].configMap}); diff != "" {
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
