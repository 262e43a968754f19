package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

var sample = scoring.Report{
	GradedTasks: 2, GradedBugs: 10, ResolvedBugs: 3, Score: 0.3, ScoreIgnoringRegressions: 2.0 / 3, MeanReward: 0.25, EvaluationFailures: 1,
	Tasks: []scoring.Task{
		{Task: "a", Trials: 2, Subtasks: 4, Resolved: 3, ResolvedCounted: 0, Regressed: 2, Reward: 0},
		{Task: "b", Trials: 1, Subtasks: 6, Resolved: 3, ResolvedCounted: 3, Reward: 0.5},
	},
}

func TestNewDocument(t *testing.T) {
	cases := map[string]struct {
		perTask bool
		want    string
	}{
		"summary only": {want: `{"summary":{"graded_tasks":2,"graded_bugs":10,"resolved_bugs":3,"score":0.3,"score_ignoring_regressions":0.666667,"evaluation_failures":1}}`},
		"per task": {perTask: true, want: `{"summary":{"graded_tasks":2,"graded_bugs":10,"resolved_bugs":3,"score":0.3,"score_ignoring_regressions":0.666667,"evaluation_failures":1},` +
			`"tasks":[{"task":"a","trials":2,"n_subtasks":4,"n_resolved":3,"resolved_counted":0,"regressed":2,"reward":0},` +
			`{"task":"b","trials":1,"n_subtasks":6,"n_resolved":3,"resolved_counted":3,"regressed":0,"reward":0.5}]}`},
		"no graded task still lists an empty task array": {perTask: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rep := sample
			if tc.want == "" {
				rep = scoring.Report{}
				tc.want = `{"summary":{"graded_tasks":0,"graded_bugs":0,"resolved_bugs":0,"score":0,"score_ignoring_regressions":0,"evaluation_failures":0},"tasks":[]}`
			}
			got, err := json.Marshal(NewDocument(rep, tc.perTask))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
		})
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
evaluation failures:                     1

TASK  TRIALS  BUGS  RESOLVED  COUNTED  REWARD  REGRESSED
a     2       4     3.00      0.00     0.0000  2
b     1       6     3.00      3.00     0.5000  0
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}
