package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

var sample = scoring.Report{
	GradedTasks: 2, GradedBugs: 10, ResolvedBugs: 3, Score: 0.3, ScoreIgnoringRegressions: 2.0 / 3, MeanReward: 0.25, EvaluationFailures: []string{"c", "d"},
	Tasks: []scoring.Task{
		{Task: "a", Trials: 2, Subtasks: 4, Resolved: 3, ResolvedCounted: 0, Regressed: 2, Reward: 0},
		{Task: "b", Trials: 1, Subtasks: 6, Resolved: 3, ResolvedCounted: 3, Reward: 0.5},
	},
}

func TestNewDocument(t *testing.T) {
	cases := map[string]struct {
		rep  scoring.Report
		want string
	}{
		// Full precision, floats always with a point, tasks always, failures by name.
		"tasks always, floats as Python writes them": {rep: sample,
			want: `{"summary":{"graded_tasks":2,"graded_bugs":10,"resolved_bugs":3.0,"score":0.3,"score_ignoring_regressions":0.6666666666666666,"evaluation_failures":["c","d"]},` +
				`"tasks":[{"task":"a","trials":2,"n_subtasks":4,"n_resolved":3.0,"resolved_counted":0.0,"regressed":2,"reward":0.0},` +
				`{"task":"b","trials":1,"n_subtasks":6,"n_resolved":3.0,"resolved_counted":3.0,"regressed":0,"reward":0.5}]}`},
		// SWE-sweep's resolved_bugs is the integer 0 of an empty sum when no task is graded.
		"no graded task: an empty task array, resolved_bugs an integer": {
			want: `{"summary":{"graded_tasks":0,"graded_bugs":0,"resolved_bugs":0,"score":0.0,"score_ignoring_regressions":0.0,"evaluation_failures":[]},"tasks":[]}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := json.Marshal(NewDocument(tc.rep))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPythonRepr(t *testing.T) {
	cases := map[float64]string{
		0: "0.0", 1: "1.0", -2: "-2.0", 0.1: "0.1", 2.0 / 3: "0.6666666666666666", 1e-4: "0.0001", 1e-5: "1e-05",
		1.5e-7: "1.5e-07", 1e15: "1000000000000000.0", 1e16: "1e+16", 123456789.125: "123456789.125", 1.25e22: "1.25e+22",
	}
	for in, want := range cases {
		if got := pythonRepr(in); got != want {
			t.Errorf("pythonRepr(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteText(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, sample, true); err != nil {
		t.Fatal(err)
	}
	want := `graded tasks:                            2
graded bugs:                             10
bugs resolved in regression-free tasks:  3.00
score:                                   0.3000
score ignoring regressions:              0.6667
mean task reward:                        0.2500
evaluation failures:                     2 (c, d)

TASK  TRIALS  BUGS  RESOLVED  COUNTED  REWARD  REGRESSED
a     2       4     3.00      0.00     0.0000  2
b     1       6     3.00      3.00     0.5000  0
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}
