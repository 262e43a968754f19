package sweepbundle

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadOutcome(t *testing.T) {
	for name, tc := range map[string]struct {
		data string
		want Outcome
	}{
		"other fields of any type are not read": {
			data: `{"oracle": false, "reward": {"x": "y"}, "regressions": ["t::a"], "subtasks": [{"subtask_id": "b1", "resolved": true, "detail": "any"}, {"subtask_id": "b2", "resolved": false, "partial": true}]}`,
			want: Outcome{Subtasks: []SubtaskOutcome{{ID: "b1", Resolved: true}, {ID: "b2", Partial: true}}, Regressions: []string{"t::a"}}},
		"a failed build lists no bug": {data: `{"subtasks": []}`, want: Outcome{Subtasks: []SubtaskOutcome{}}},
		"per-test outcomes; lists of another type are left out": {
			data: `{"visible_tests": {"t::v": "passed", "t::w": "error"}, "subtasks": [{"subtask_id": "b1", "resolved": false, "f2p_passed": ["t::a"], "p2p_passed": ["t::b"], "f2p_failed": ["t::c"], "p2p_failed": 3}]}`,
			want: Outcome{VisibleTests: map[string]string{"t::v": "passed", "t::w": "error"},
				Subtasks: []SubtaskOutcome{{ID: "b1", Tests: map[string]string{"t::a": TestPassed, "t::b": TestPassed, "t::c": TestFailed}}}}},
		"a visible_tests that is not a map of strings is left out": {data: `{"visible_tests": {"t::v": 1}, "subtasks": []}`, want: Outcome{Subtasks: []SubtaskOutcome{}}},
	} {
		got, err := ReadOutcome([]byte(tc.data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for data, want := range map[string]string{
		`{"gradingVersion": "x"}`:                                 "no subtasks list",
		`not json`:                                                "not SWE-sweep's",
		`{"subtasks": {"subtask_id": "b1"}}`:                      "not SWE-sweep's",
		`{"subtasks": [{"subtask_id": "b1"}]}`:                    "subtasks[0] lacks a string subtask_id or a boolean resolved",
		`{"subtasks": [{"resolved": true}]}`:                      "subtasks[0] lacks",
		`{"subtasks": [{"subtask_id": "", "resolved": true}]}`:    "subtasks[0] lacks",
		`{"subtasks": [{"subtask_id": 3, "resolved": true}]}`:     "not SWE-sweep's",
		`{"subtasks": [{"subtask_id": "b1", "resolved": "yes"}]}`: "not SWE-sweep's",
		`{"subtasks": [], "regressions": "t::a"}`:                 "not SWE-sweep's",
	} {
		if _, err := ReadOutcome([]byte(data)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadOutcome(%s) = %v, want an error with %q", data, err, want)
		}
	}
}
