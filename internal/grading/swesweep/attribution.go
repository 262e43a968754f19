package swesweep

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

const (
	// stepGrace is how long a step's processes get between SIGTERM and SIGKILL.
	stepGrace = 5 * time.Second
	// deadlineReserve is kept back from the time left for what the grader does after its
	// steps (its own git, the graces, writing the result).
	deadlineReserve = 20 * time.Second
)

// stepLimit is how long an untrusted step may run when left is the time until the deadline:
// its own limit, but at most half of what is left after the reserve, so that the same step
// can still be rerun on the unpatched tree (steps.HangRerunLimit) and the result be written in
// time. Zero or less means there is no time to start it.
func stepLimit(own, left time.Duration) time.Duration {
	return min(own, (left-deadlineReserve)/2)
}

// rerunLimit is the limit of the rerun of a step that had limit on the agent's tree:
// steps.HangRerunLimit of it, or what is left before the reserve when that is less. Zero or
// less means no time is left.
func rerunLimit(limit, left time.Duration) time.Duration {
	return min(steps.HangRerunLimit(limit), left-deadlineReserve)
}

// limit is a step's limit in this grading: its own (or the default) timeout bounded by the
// deadline.
func (g *grader) limit(ownSec, defaultSec float64) time.Duration {
	if ownSec <= 0 {
		ownSec = defaultSec
	}
	if g.o.Deadline.IsZero() {
		return secs(ownSec)
	}
	return stepLimit(secs(ownSec), time.Until(g.o.Deadline))
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// hangCause is whom a step that ran past its limit on the agent's tree is charged to.
type hangCause int

const (
	// hangOnPatch: the same step ended on the unpatched tree within steps.HangRerunLimit, so
	// the agent's patch made it hang; the trial scores 0.
	hangOnPatch hangCause = iota + 1
	// hangNotMeasured: it did not end within that on the unpatched tree, could not be started
	// there, or there was no time left to try; the infrastructure's (or the task's) problem.
	hangNotMeasured
)

// attributeHang decides from the step's rerun on the unpatched tree (nil: no time was left
// to run it). How the rerun exited does not matter, only that it ended by itself in time: the
// unpatched tree fails the hidden tests, and must.
func attributeHang(rerun *StepReport) hangCause {
	if rerun == nil || rerun.TimedOut || rerun.Canceled || rerun.StartError != "" {
		return hangNotMeasured
	}
	return hangOnPatch
}

// attribute decides a hang: the step is rerun on the unpatched tree (the base, plus the bug's
// test patch for a bug's tests) within steps.HangRerunLimit of its limit.
func (g *grader) attribute(ctx context.Context, h *hang, applied bool) (Reward, error) {
	fmt.Fprintf(g.o.Log, "[grader] %s ran past its limit of %s on the agent's tree: running it on the unpatched tree\n", h.step, h.limit)
	rerun, err := g.rerunUnpatched(ctx, h)
	if err != nil {
		return Reward{}, err
	}
	h.report.Rerun = rerun
	if attributeHang(rerun) == hangOnPatch {
		msg := fmt.Sprintf("%s ran past its limit of %s on the agent's tree but ended in %.1fs on the unpatched tree", h.step, h.limit, rerun.Seconds)
		fmt.Fprintf(g.o.Log, "[grader] %s: the trial scores 0\n", msg)
		g.ev.Verdict = &reward.Verdict{Reason: reasons.TestsHungOnPatch, Message: msg}
		if h.step == stepBuild { // a build that does not finish failed: no bug is graded, as in SWE-sweep
			return Score(len(g.bugs), nil, Visible{}, applied, false), nil
		}
		return Reward{NSubtasks: len(g.bugs), AgentPatchApplied: b2i(applied), AgentBuildOK: 1}, nil
	}
	why := "no time was left to run it on the unpatched tree"
	if steps.HangRerunLimit(h.limit) == 0 {
		why = fmt.Sprintf("its limit is too short to tell a hang from a slow start: a rerun on the unpatched tree would have to end %s before the limit (steps.HangRerunMargin)",
			steps.HangRerunMargin)
	}
	if rerun != nil {
		why = fmt.Sprintf("it did not end within %s on the unpatched tree either (%s): a step that needs more than %.0f%% of its limit on the unpatched tree shows a node too slow for the limit, not a hang",
			secs(rerun.LimitSec).Round(time.Second), describe(*rerun), 100*steps.HangRerunShare)
		if rerun.StartError != "" {
			why = "it could not be started on the unpatched tree: " + rerun.StartError
		}
	}
	return Reward{}, fmt.Errorf("%s ran past its limit of %s on the agent's tree, and %s: not measured", h.step, h.limit, why)
}

// rerunUnpatched runs the hung step's command again on the unpatched tree; nil when there is
// no time left for it.
func (g *grader) rerunUnpatched(ctx context.Context, h *hang) (*StepReport, error) {
	limit := steps.HangRerunLimit(h.limit)
	if !g.o.Deadline.IsZero() {
		limit = rerunLimit(h.limit, time.Until(g.o.Deadline))
	}
	if limit <= 0 {
		return nil, nil
	}
	// The guard first: it clears what git clean cannot read.
	if _, _, err := g.guard.enforce(); err != nil {
		return nil, err
	}
	if err := g.repo.Reset(); err != nil {
		return nil, err
	}
	if h.bug != nil {
		if msg, err := g.repo.Apply(filepath.Join(g.o.BundleDir, h.bug.TestPatch), false); err != nil {
			return nil, fmt.Errorf("bug %s: test patch does not apply to the unpatched tree: %s", h.bug.ID, msg)
		}
	}
	if err := sandbox.Prepare(g.repo.Dir, g.o.TestUser); err != nil {
		return nil, err
	}
	rep, err := g.shell(ctx, h.command, limit, g.o.Log, nil, nil)
	if err != nil {
		return nil, err
	}
	if rep.Canceled {
		return nil, errCanceled
	}
	return &rep, nil
}
