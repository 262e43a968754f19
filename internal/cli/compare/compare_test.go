package compare

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// fixtureJob is sweep info's fixture job: agda (one graded trial of 45 bugs) and arrow (three
// attempts at 10 bugs, one regressed).
var fixtureJob = filepath.Join("..", "info", "testdata", "harbor-job")

// laterJob is the same campaign run again: arrow better, agda gone, astropy new.
func laterJob(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "later")
	sweeptest.WriteFiles(t, dir, map[string]string{
		"swe-sweep__arrow__1/config.json":            `{"task": {"path": "datasets/swe-sweep/swe-sweep__arrow"}}`,
		"swe-sweep__arrow__1/verifier/reward.json":   `{"reward": 0.7, "n_subtasks": 10, "n_resolved": 7, "visible_ok": 1, "grader_failed": 0}`,
		"swe-sweep__arrow__2/config.json":            `{"task": {"path": "datasets/swe-sweep/swe-sweep__arrow"}}`,
		"swe-sweep__arrow__2/verifier/reward.json":   `{"reward": 0.5, "n_subtasks": 10, "n_resolved": 5, "visible_ok": 1, "grader_failed": 0}`,
		"swe-sweep__astropy__1/config.json":          `{"task": {"path": "datasets/swe-sweep/swe-sweep__astropy"}}`,
		"swe-sweep__astropy__1/verifier/reward.json": `{"reward": 0.25, "n_subtasks": 4, "n_resolved": 1, "visible_ok": 1, "grader_failed": 0}`,
	})
	return dir
}

func TestCompareDirs(t *testing.T) {
	later := laterJob(t)
	for _, tc := range []struct {
		golden string
		format string
	}{
		{"compare-dirs.txt", clioptions.OutputTable},
		{"compare-dirs.json", clioptions.OutputJSON},
		{"compare-dirs.yaml", clioptions.OutputYAML},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, _, err := clitest.Execute(context.Background(), &Options{Format: tc.format}, fixtureJob, later)
			if err != nil {
				t.Fatal(err)
			}
			// The temporary folder's name is not part of the golden.
			clitest.Golden(t, tc.golden, strings.ReplaceAll(out, later, "LATER"))
		})
	}
}

func TestCompareErrors(t *testing.T) {
	empty := t.TempDir()
	later := laterJob(t)
	noCluster := clitest.Cluster("/nonexistent/kubeconfig", "")
	for _, tc := range []struct {
		name string
		o    Options
		args []string
		want []string
	}{
		{"output format", Options{Format: "xml"}, []string{fixtureJob, later}, []string{"flag -o/--output", `"xml"`}},
		{"one argument", Options{Format: clioptions.OutputTable}, []string{fixtureJob}, []string{"want two arguments, A and B", "got 1", "sweep compare run1 run2"}},
		{"the same twice", Options{Format: clioptions.OutputTable}, []string{later, later}, []string{`arguments A and B are both "` + later + `"`, "two different"}},
		{"A without results", Options{Format: clioptions.OutputTable}, []string{empty, later}, []string{"argument A: no SWE-sweep reward.json found under " + empty, "sweep export"}},
		{"B no such directory", Options{Format: clioptions.OutputTable}, []string{later, empty + "/missing"}, []string{"argument B: " + empty + "/missing: no such job directory", "a sweeprun name has no /"}},
		{"B a file", Options{Format: clioptions.OutputTable}, []string{later, filepath.Join(later, "swe-sweep__arrow__1", "config.json")}, []string{"argument B: ", "config.json is a file: give the Harbor job directory that holds it"}},
		{"B a sweeprun without a cluster", Options{Format: clioptions.OutputTable, Cluster: noCluster}, []string{later, "nightly"}, []string{"argument B: nightly is not a directory, so it names a sweeprun", "--kubeconfig"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := clitest.Execute(context.Background(), &tc.o, tc.args...)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
}
