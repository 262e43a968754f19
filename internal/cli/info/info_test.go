package info

import (
	"context"
	"strings"
	"testing"

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
