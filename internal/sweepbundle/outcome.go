package sweepbundle

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Outcome is what a SWE-sweep grader's eval.json says of each bug and of the visible suite:
// the fields `sweep eval`, `sweep tasks check` and pass@k read. SWE-sweep's own grader (a
// task's tests/test.sh) and the built-in bundle grader both write them.
type Outcome struct {
	Subtasks    []SubtaskOutcome
	Regressions []string
}

// SubtaskOutcome is one entry of eval.json's subtasks list.
type SubtaskOutcome struct {
	ID       string
	Resolved bool
	Partial  bool
}

// evalOutcome holds only the fields Outcome reads, so that a grader's other fields, whatever
// their types, never cost a trial its per-bug results.
type evalOutcome struct {
	Subtasks *[]struct {
		ID       *string `json:"subtask_id"`
		Resolved *bool   `json:"resolved"`
		Partial  bool    `json:"partial"`
	} `json:"subtasks"`
	Regressions []string `json:"regressions"`
}

// ReadOutcome reads an eval.json in SWE-sweep's schema. The error says why it lists no bug to
// read: not JSON, no subtasks list, an entry without a string subtask_id or a boolean
// resolved, a regressions value that is not a list of strings. An empty list is a build that
// failed: no bug graded.
func ReadOutcome(data []byte) (Outcome, error) {
	var ev evalOutcome
	if err := json.Unmarshal(data, &ev); err != nil {
		return Outcome{}, fmt.Errorf("eval.json is not SWE-sweep's (%v)", err)
	}
	if ev.Subtasks == nil {
		return Outcome{}, errors.New("eval.json has no subtasks list (not a SWE-sweep grader's)")
	}
	out := Outcome{Subtasks: make([]SubtaskOutcome, 0, len(*ev.Subtasks)), Regressions: ev.Regressions}
	for i, s := range *ev.Subtasks {
		if s.ID == nil || *s.ID == "" || s.Resolved == nil {
			return Outcome{}, fmt.Errorf("eval.json subtasks[%d] lacks a string subtask_id or a boolean resolved", i)
		}
		out.Subtasks = append(out.Subtasks, SubtaskOutcome{ID: *s.ID, Resolved: *s.Resolved, Partial: s.Partial})
	}
	return out, nil
}
