package info

import (
	"context"
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
