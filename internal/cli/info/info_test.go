package info

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func execute(o *Options, args ...string) (string, error) {
	out, _, err := clitest.Execute(context.Background(), o, args...)
	return out, err
}

// The fixture job exercises every branch of the score: several attempts with a regression
// (arrow), a grader failure next to a graded trial (agda), a task whose only trial failed
// grading (astropy), reward-only tasks read from reward.json and reward.txt with the task named
// by result.json (hello-world, skipped by the score), and a trial without a reward (fix-the-bug).
func TestInfoDir(t *testing.T) {
	for _, tc := range []struct {
		golden string
		o      Options
	}{
		{"info-dir.txt", Options{Format: clioptions.OutputTable}},
		{"info-dir-per-task.txt", Options{PerTask: true, Format: clioptions.OutputTable}},
		{"info-dir-per-task.json", Options{PerTask: true, JSON: true, Format: clioptions.OutputTable}},
		{"info-dir.json", Options{Format: clioptions.OutputJSON}},
		{"info-dir.yaml", Options{Format: clioptions.OutputYAML}},
		// pass@k: arrow's trials list their bugs in eval.json, agda's does not (per task).
		{"info-dir-pass-at.txt", Options{PassAt: []int{3, 1, 2, 5}, Format: clioptions.OutputTable}},
		{"info-dir-pass-at-per-task.txt", Options{PassAt: []int{1, 3}, PerTask: true, Format: clioptions.OutputTable}},
		{"info-dir-pass-at.json", Options{PassAt: []int{1, 3}, JSON: true}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, err := execute(&tc.o, "testdata/harbor-job")
			if err != nil {
				t.Fatal(err)
			}
			clitest.Golden(t, tc.golden, out)
		})
	}
}

func TestInfoErrors(t *testing.T) {
	_, err := execute(&Options{Format: "xml"}, "testdata/harbor-job")
	sweeptest.ErrorContains(t, err, "flag -o/--output", `"xml"`, "table, json or yaml")
	_, err = execute(&Options{Format: clioptions.OutputTable, PassAt: []int{1, 0}}, "testdata/harbor-job")
	sweeptest.ErrorContains(t, err, "flag --pass-at: want attempts to draw of 1 or more, got 0", "--pass-at 1,5")
	_, err = execute(&Options{Format: clioptions.OutputTable}, "testdata/harbor-job/config.json")
	sweeptest.ErrorContains(t, err, "testdata/harbor-job/config.json is a file: give the Harbor job directory that holds it, or a sweeprun name")
	_, err = execute(&Options{Format: clioptions.OutputTable}, "testdata/no-such-job")
	sweeptest.ErrorContains(t, err, "testdata/no-such-job: no such job directory (no such file or directory); a sweeprun name has no /")
	empty := t.TempDir()
	_, err = execute(&Options{Format: clioptions.OutputTable}, empty)
	sweeptest.ErrorContains(t, err, "no SWE-sweep reward.json found under "+empty, "sweep export")
}

// A build failure first (n_subtasks 0) makes its task count 0 bugs, SWE-sweep's rule: the
// report reproduces it and says so; a malformed file is skipped with its reason and the
// report still succeeds.
func TestInfoDirWarnings(t *testing.T) {
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{
		"job/a__1/config.json":          `{"task": {"path": "tasks/a"}}`,
		"job/a__2/config.json":          `{"task": {"name": "a"}}`,
		"job/a__1/verifier/reward.json": `{"reward": 0, "n_subtasks": 0, "n_resolved": 0, "visible_ok": 0, "agent_build_ok": 0}`,
		"job/a__2/verifier/reward.json": `{"reward": 1, "n_subtasks": 2, "n_resolved": 2, "visible_ok": 1}`,
		"job/b__1/verifier/reward.json": `{"reward": NaN, "n_subtasks": 2, "n_resolved": 2, "visible_ok": 1}`,
	})
	out, stderr, err := clitest.Execute(context.Background(), &Options{JSON: true, Format: clioptions.OutputTable}, dir+"/job")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"warning: task a: its trials disagree on n_subtasks; it counts 0 bugs",
		"warning: skipped " + dir + "/job/b__1/verifier/reward.json: not a JSON object (invalid character 'N'",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(out, `"graded_bugs": 0,`) || !strings.Contains(out, `"resolved_bugs": 1.0,`) {
		t.Errorf("report:\n%s", out)
	}
}

// The JSON with --pass-at is SWE-sweep's report and one key more: summary and tasks stay as
// they are without it.
func TestInfoPassAtKeepsSWESweepReport(t *testing.T) {
	plain, err := execute(&Options{Format: clioptions.OutputJSON}, "testdata/harbor-job")
	if err != nil {
		t.Fatal(err)
	}
	with, err := execute(&Options{Format: clioptions.OutputJSON, PassAt: []int{1}}, "testdata/harbor-job")
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]json.RawMessage
	if err := json.Unmarshal([]byte(plain), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(with), &b); err != nil {
		t.Fatal(err)
	}
	if _, ok := b["pass_at_k"]; !ok || len(b) != 3 {
		t.Fatalf("keys with --pass-at: %v", slices.Sorted(maps.Keys(b)))
	}
	delete(b, "pass_at_k")
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("--pass-at changed SWE-sweep's keys (-without +with):\n%s", diff)
	}
}

// The notes on stderr say which task is scored per task and why; an eval.json that is not
// SWE-sweep's, or a link in its place, costs its task the per-bug results, never the report.
func TestInfoPassAtNotes(t *testing.T) {
	dir := t.TempDir()
	result := `{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1, "visible_ok": 1, "grader_failed": 0}`
	sweeptest.WriteFiles(t, dir, map[string]string{
		"job/a__1/verifier/reward.json": result,
		"job/a__1/verifier/eval.json":   `{"subtasks": [{"subtask_id": "x", "resolved": true}, {"subtask_id": "y", "resolved": false}]}`,
		"job/b__1/verifier/reward.json": result,
		"job/b__1/verifier/eval.json":   `{"gradingVersion": "v1"}`,
		"job/c__1/verifier/reward.json": result,
		"elsewhere.json":                `{"subtasks": [{"subtask_id": "x", "resolved": true}, {"subtask_id": "y", "resolved": false}]}`,
	})
	if err := os.Symlink(filepath.Join(dir, "elsewhere.json"), filepath.Join(dir, "job/c__1/verifier/eval.json")); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := clitest.Execute(context.Background(), &Options{PassAt: []int{1}, PerTask: true, Format: clioptions.OutputTable}, dir+"/job")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"pass@k: task b__1 is scored per task, not per bug: " + dir + "/job/b__1/verifier/reward.json: eval.json has no subtasks list",
		"pass@k: task c__1 is scored per task, not per bug: " + dir + "/job/c__1/verifier/reward.json: cannot read eval.json: ",
		"refused: not a regular file",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "task a__1 ") {
		t.Errorf("task a has per-bug results:\n%s", stderr)
	}
	if !strings.Contains(out, "a__1  bug   2") {
		t.Errorf("report:\n%s", out)
	}
}
