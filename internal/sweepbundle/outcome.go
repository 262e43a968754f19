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
	// VisibleTests is each visible test's outcome ("passed", "failed", "error", "skipped") in
	// the patched tree; nil when eval.json has no visible_tests map.
	VisibleTests map[string]string
}

// SubtaskOutcome is one entry of eval.json's subtasks list.
type SubtaskOutcome struct {
	ID       string
	Resolved bool
	Partial  bool
	// Tests is the outcome ("passed" or "failed") of each test of the bug's targeted run, from
	// its f2p_passed, p2p_passed, f2p_failed and p2p_failed lists; nil when it has none.
	Tests map[string]string
}

// Test outcomes as Outcome spells them for a bug's targeted run.
const (
	TestPassed = "passed"
	TestFailed = "failed"
)

// evalOutcome holds only the fields Outcome reads, so that a grader's other fields, whatever
// their types, never cost a trial its per-bug results.
type evalOutcome struct {
	Subtasks *[]struct {
		ID        *string         `json:"subtask_id"`
		Resolved  *bool           `json:"resolved"`
		Partial   bool            `json:"partial"`
		F2PPassed json.RawMessage `json:"f2p_passed"`
		P2PPassed json.RawMessage `json:"p2p_passed"`
		F2PFailed json.RawMessage `json:"f2p_failed"`
		P2PFailed json.RawMessage `json:"p2p_failed"`
	} `json:"subtasks"`
	Regressions  []string        `json:"regressions"`
	VisibleTests json.RawMessage `json:"visible_tests"`
}

// testLists are a bug's tests by outcome; a list that is not one of strings is left out, as a
// grader's field Outcome does not need.
func testLists(byOutcome map[string][]json.RawMessage) map[string]string {
	var tests map[string]string
	for _, outcome := range []string{TestPassed, TestFailed} {
		for _, raw := range byOutcome[outcome] {
			var ids []string
			if json.Unmarshal(raw, &ids) != nil {
				continue
			}
			for _, id := range ids {
				if tests == nil {
					tests = map[string]string{}
				}
				tests[id] = outcome
			}
		}
	}
	return tests
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
	if json.Unmarshal(ev.VisibleTests, &out.VisibleTests) != nil {
		out.VisibleTests = nil
	}
	for i, s := range *ev.Subtasks {
		if s.ID == nil || *s.ID == "" || s.Resolved == nil {
			return Outcome{}, fmt.Errorf("eval.json subtasks[%d] lacks a string subtask_id or a boolean resolved", i)
		}
		tests := testLists(map[string][]json.RawMessage{TestPassed: {s.F2PPassed, s.P2PPassed}, TestFailed: {s.F2PFailed, s.P2PFailed}})
		out.Subtasks = append(out.Subtasks, SubtaskOutcome{ID: *s.ID, Resolved: *s.Resolved, Partial: s.Partial, Tests: tests})
	}
	return out, nil
}
