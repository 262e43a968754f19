package swebench

import "time"

// DeadlineReserve is the time kept before GraderRun.Deadline for the grader's own work after
// the tests (reverting the test files, grading, writing its results).
const DeadlineReserve = 20 * time.Second

// testBudget is how long the test command may run. Without a deadline, or with one far enough,
// it is the instance's own timeout (what is left of it). When the deadline would cut the run
// short, the run gets half of the time left, so that the other half can show whether the
// unpatched tree finishes (hangAttribution).
func testBudget(instanceLeft, untilDeadline time.Duration, hasDeadline bool) (budget time.Duration, cutByDeadline bool) {
	if !hasDeadline {
		return instanceLeft, false
	}
	usable := untilDeadline - DeadlineReserve
	if instanceLeft <= usable {
		return instanceLeft, false
	}
	return usable / 2, true
}

// hangOutcome is what a timed-out test run means for the verdict.
type hangOutcome int

const (
	// hangOfficial: the instance's own timeout ended the run: an error instance, as in the
	// official harness (measured, not resolved).
	hangOfficial hangOutcome = iota
	// hangOnPatch: the deadline ended the run, and the unpatched tree finished within
	// steps.HangRerunLimit of the same budget: the patch made the tests hang (measured 0,
	// reasons.TestsHungOnPatch).
	hangOnPatch
	// hangNotMeasured: the deadline ended the run and nothing shows it is the patch's: the
	// unpatched tree could not be run or did not finish either (a grader error).
	hangNotMeasured
)

// hangAttribution decides a timed-out run. rerunFinished is whether the test command finished
// on the unpatched tree within steps.HangRerunLimit of the budget; nil when no rerun happened.
func hangAttribution(cutByDeadline bool, rerunFinished *bool) hangOutcome {
	switch {
	case !cutByDeadline:
		return hangOfficial
	case rerunFinished != nil && *rerunFinished:
		return hangOnPatch
	}
	return hangNotMeasured
}
