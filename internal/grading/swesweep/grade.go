package swesweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Options say what to grade.
type Options struct {
	BundleDir string
	// Workdir overrides the bundle's workdir.
	Workdir string
	// PatchPath is the agent's patch; a missing or empty file grades the unpatched tree.
	PatchPath string
	// OutDir receives reward.json, eval.json and verdict.json.
	OutDir string
	// Bugs restricts grading to these bug ids; empty means all.
	Bugs []string
	// Oracle grades each bug with its own oracle patch instead of the agent's patch.
	Oracle bool
	// TestUser is the identity the build and the tests run as; never root.
	TestUser sandbox.Identity
	// Deadline is when the result must be written; zero means none.
	Deadline time.Time
	// FlakeRechecks is R of the flake re-check (recheck.go): a visible regression is re-run up
	// to R times and cleared when it passes once. 0, the default, counts every regression, as
	// SWE-sweep does; at most MaxFlakeRechecks; agent grading only.
	FlakeRechecks int
	// Log receives progress and the output of every command.
	Log io.Writer
}

// Eval is eval.json: everything the grading saw.
type Eval struct {
	Schema      string       `json:"schema"`
	Mode        string       `json:"mode"` // "agent" or "oracle"
	BaseRef     string       `json:"base_ref,omitempty"`
	Patch       *PatchReport `json:"patch,omitempty"`
	Setup       *StepReport  `json:"setup,omitempty"`
	Build       []StepReport `json:"build,omitempty"`
	Visible     *SuiteReport `json:"visible,omitempty"`
	Regressions []string     `json:"regressions"`
	// FlakeRecheck is what the flake re-check ran and cleared; absent when it is off.
	FlakeRecheck *RecheckReport `json:"flake_recheck,omitempty"`
	// VisibleTests is every visible test's outcome, spelled as SWE-sweep's eval.json does
	// ("passed", "failed", "error", "skipped"), so that a trial can be re-scored offline.
	VisibleTests map[string]string `json:"visible_tests"`
	// BuildError says why the agent's build failed.
	BuildError string      `json:"build_error,omitempty"`
	Bugs       []BugReport `json:"bugs"`
	// Guard lists what was put back as at the base before a step because the code under test
	// (the build, an earlier suite) had changed test files or runner configuration.
	Guard   []GuardReport      `json:"guard,omitempty"`
	Reward  map[string]float64 `json:"reward"`
	Timings map[string]float64 `json:"timings"`
	// Verdict is the cause of a measured result that the trial shows (verdict.json).
	Verdict *reward.Verdict `json:"verdict,omitempty"`
	// Error is why the grader failed; the reward is then not a measurement.
	Error string `json:"error,omitempty"`
	SweepEval
	// targetFiles are the files the bugs' oracle patches change (patch_stats).
	targetFiles []string
}

// PatchReport describes the agent's patch and what grading did with it.
type PatchReport struct {
	Present    bool   `json:"present"`
	Bytes      int    `json:"bytes"`
	SHA256     string `json:"sha256,omitempty"`
	Applied    bool   `json:"applied"`
	ApplyError string `json:"apply_error,omitempty"`
	// Refused: git could apply the patch but the grader did not grade it (ApplyError says why).
	Refused bool `json:"refused,omitempty"`
	PatchStats
	FilesChanged int `json:"files_changed"`
	// GitPaths are the paths git reads in the patch, which the guard goes by.
	GitPaths []string `json:"git_paths,omitempty"`
	// Test files and runner configuration the patch touched: put back as they were at the
	// base, or removed when the base has none.
	RestoredTestFiles []string `json:"restored_test_files,omitempty"`
	RemovedTestFiles  []string `json:"removed_test_files,omitempty"`
}

// GuardReport is one putting back of protected paths before a step.
type GuardReport struct {
	Before   string   `json:"before"`
	Restored []string `json:"restored,omitempty"`
	Removed  []string `json:"removed,omitempty"`
}

// StepReport is one command's run.
type StepReport struct {
	Command  string  `json:"command"`
	ExitCode int     `json:"exit_code"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Canceled bool    `json:"canceled,omitempty"`
	Seconds  float64 `json:"seconds"`
	// LimitSec is the time the step was given.
	LimitSec float64 `json:"limit_sec,omitempty"`
	// StartError is why the command could not be started.
	StartError string `json:"start_error,omitempty"`
	// GitDirReplaced: the step put another .git in place of the repository's; the grader put
	// the original back before its own git ran.
	GitDirReplaced bool `json:"git_dir_replaced,omitempty"`
	// Rerun is the same step on the unpatched tree, run when it timed out on the agent's.
	Rerun *StepReport `json:"rerun,omitempty"`
}

// SuiteReport is a test command's run and what its results held.
type SuiteReport struct {
	StepReport
	NTests     int                        `json:"n_tests"`
	Counts     map[testresults.Status]int `json:"counts"`
	ParseError string                     `json:"parse_error,omitempty"`
}

// BugReport is one bug's grading.
type BugReport struct {
	ID       string `json:"id"`
	Resolved bool   `json:"resolved"`
	Partial  bool   `json:"partial"`
	// TestApplied: the bug's test patch applied.
	TestApplied bool `json:"test_applied"`
	// Targeted are the test functions the test patch adds or changes; Files the test files it
	// leaves in the tree ({names} and {files} of bug_tests).
	Targeted []string `json:"targeted"`
	Files    []string `json:"files,omitempty"`
	NPassed  int      `json:"n_passed"`
	NFailed  int      `json:"n_failed"`
	BugOutcome
	// Ignored are tests of the run that base_tests declares unreliable, left out of the
	// judgement (the bug's own fail-to-pass tests never are).
	Ignored []string `json:"ignored,omitempty"`
	// Reconfigure is the CMake reconfigure before the run (cmake_build_dir).
	Reconfigure *StepReport  `json:"reconfigure,omitempty"`
	Suite       *SuiteReport `json:"suite,omitempty"`
	Seconds     float64      `json:"seconds"`
	Error       string       `json:"error,omitempty"`
	// RestoreError: the test patch's paths could not be put back after the run; the guard puts
	// them back before the next step, so the grading goes on.
	RestoreError string `json:"restore_error,omitempty"`
}

// EvalSchema is the version of eval.json.
const EvalSchema = "sweep-eval/1"

// Run grades and writes OutDir/reward.json, OutDir/eval.json and, when the result has a
// cause the trial shows, OutDir/verdict.json. It returns an error when the grader failed;
// reward.json then holds reward.EvaluationFailed() (or, after a pristine-tree regression, the
// oracle's result marked grader_failed) and OutDir/grader_error.txt the error, as SWE-sweep's
// grader writes them.
func Run(ctx context.Context, o Options) (reward.Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	ev := &Eval{Schema: EvalSchema, Mode: "agent", Regressions: []string{}, VisibleTests: map[string]string{}, Bugs: []BugReport{}, Timings: map[string]float64{}}
	if o.Oracle {
		ev.Mode = "oracle"
	}
	var result reward.Result
	total, err := steps.Attempt(o.Log, func() (err error) {
		result, err = grade(ctx, o, ev)
		return err
	})
	if err != nil {
		if result == nil {
			result = reward.EvaluationFailed()
		}
		ev.Error = err.Error()
		ev.Verdict = nil
	}
	ev.Reward = result
	ev.Timings["total"] = total
	ev.SweepEval = sweepEval(ev, result, time.Now())
	if werr := writeOutputs(o.OutDir, result, ev, err); werr != nil && err == nil {
		err = werr
	}
	return result, err
}

// grade grades the agent's patch, or the bundle's oracle patches.
func grade(ctx context.Context, o Options, ev *Eval) (reward.Result, error) {
	g, err := newGrader(o, ev)
	if err != nil {
		return nil, err
	}
	defer g.cleanup()
	var r Reward
	if o.Oracle {
		r, err = g.gradeOracle(ctx)
	} else {
		r, err = g.gradeAgent(ctx)
	}
	var pristine *pristineRegression
	if errors.As(err, &pristine) {
		return r.Result(), err // graded, but not a measurement
	}
	if err != nil {
		return nil, err
	}
	return r.Result(), nil
}

// writeOutputs writes the result files; graderErr (the grader's failure, or nil) goes to
// grader_error.txt, which is removed when there is none.
func writeOutputs(dir string, result reward.Result, ev *Eval, graderErr error) error {
	rb, err := reward.Encode(result)
	if err != nil {
		return err
	}
	eb, err := steps.IndentedJSON(ev)
	if err != nil {
		return err
	}
	verdict := steps.File{Name: reward.FileVerdict} // none: remove a stale one
	if ev.Verdict != nil {
		if verdict.Data, err = reward.EncodeVerdict(*ev.Verdict); err != nil {
			return err
		}
	}
	failure := steps.File{Name: reward.FileGraderError}
	if graderErr != nil {
		failure.Data = []byte(graderErr.Error() + "\n")
	}
	return steps.WriteResults(dir, steps.File{Name: reward.FileJSON, Data: rb}, steps.File{Name: pc.RecordEval, Data: eb}, verdict, failure)
}

type grader struct {
	o         Options
	ev        *Eval
	bundle    *Bundle
	bugs      []Bug
	baseTests []string
	// ignored are the tests base_tests declares unreliable.
	ignored map[string]bool
	tests   testMatcher
	repo    steps.Repo
	guard   *guard
	// gitDir is the repository's .git, pinned before any code under test ran.
	gitDir *steps.PinnedGitDir
	// hidden are each bug's test patch paths, as git reads them.
	hidden map[string][]string
	// unreadableTests: in oracle grading, why git cannot read a bug's test patch against the
	// base; that bug is then recorded broken instead of failing the grading.
	unreadableTests map[string]string
	// scratch holds the grader's own files (suite output), private to root; pluginDir holds
	// the result channel's plugin, which the tests read but cannot write; snapshotDir, the test
	// identity's, the oracle's snapshot of oracle_pristine_paths.
	scratch, pluginDir, snapshotDir string
	// visibleMeasured: the visible suite produced results to read.
	visibleMeasured bool
	// reconfigurePending: the CMake build tree was last configured with a file a patch added,
	// which a reset or putting back a test patch may since have removed.
	reconfigurePending bool
}

func newGrader(o Options, ev *Eval) (*grader, error) {
	b, err := LoadBundle(o.BundleDir)
	if err != nil {
		return nil, err
	}
	bugs, err := b.selectBugs(o.Bugs)
	if err != nil {
		return nil, err
	}
	base, err := b.baseTests(o.BundleDir)
	if err != nil {
		return nil, err
	}
	tests, err := newTestMatcher(b.TestPaths)
	if err != nil {
		return nil, err
	}
	workdir := o.Workdir
	if workdir == "" {
		workdir = b.Workdir
	}
	if st, err := os.Stat(workdir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("workdir %q is not a directory", workdir)
	}
	// The work tree is given to the test identity: what the grader keeps must be elsewhere.
	for _, kept := range []struct{ name, dir string }{{"bundle", o.BundleDir}, {"result directory", o.OutDir}} {
		if within(kept.dir, workdir) {
			return nil, fmt.Errorf("the %s %s is inside the workdir %s, which the tests may write: keep it outside", kept.name, kept.dir, workdir)
		}
	}
	if err := checkFlakeRechecks(o); err != nil {
		return nil, err
	}
	if o.TestUser.UID == 0 || o.TestUser.GID == 0 {
		return nil, fmt.Errorf("the test identity is %d:%d: the build and the tests must run as an unprivileged uid and gid (--test-uid)", o.TestUser.UID, o.TestUser.GID)
	}
	if err := sandbox.Check(); err != nil {
		return nil, fmt.Errorf("cannot keep the code under test away from the grader, so nothing is measured: %w", err)
	}
	// The bundle holds the fixes and the hidden tests: the grader reads them, the tests never.
	if err := sandbox.Private(o.BundleDir); err != nil {
		return nil, fmt.Errorf("cannot make the bundle %s private: %w", o.BundleDir, err)
	}
	if err := reachable(workdir, o.TestUser); err != nil {
		return nil, err
	}
	if err := protectOutDir(o.OutDir, o.TestUser); err != nil {
		return nil, err
	}
	ev.BaseRef, ev.Version = b.BaseRef, b.Version
	ignored := map[string]bool{}
	for _, id := range base.Ignored {
		ignored[id] = true
	}
	g := &grader{o: o, ev: ev, bundle: b, bugs: bugs, baseTests: base.Passing, ignored: ignored, tests: tests,
		repo: steps.Repo{Dir: workdir, Base: b.BaseRef}, hidden: map[string][]string{}, unreadableTests: map[string]string{}}
	if g.scratch, err = os.MkdirTemp("", "sweep-grader-"); err != nil {
		return nil, err
	}
	if g.pluginDir, err = os.MkdirTemp("", "sweep-plugin-"); err != nil {
		g.cleanup()
		return nil, err
	}
	if err := sandbox.Private(g.scratch); err != nil {
		g.cleanup()
		return nil, err
	}
	if _, err := g.repo.Git("rev-parse", "-q", "--verify", b.BaseRef+"^{commit}"); err != nil {
		g.cleanup()
		return nil, fmt.Errorf("%s: base_ref %q is not a commit of the repository %s", BundleFile, b.BaseRef, workdir)
	}
	for _, bug := range bugs {
		paths, err := g.repo.PatchPaths(filepath.Join(o.BundleDir, bug.TestPatch))
		switch {
		case err != nil && o.Oracle:
			g.unreadableTests[bug.ID] = err.Error()
		case err != nil:
			// A broken task, never the model's 0 (SWE-sweep leaves the bug unresolved).
			g.cleanup()
			return nil, fmt.Errorf("bug %s: test patch %s: %w", bug.ID, bug.TestPatch, err)
		}
		g.hidden[bug.ID] = paths
		// patch_stats only: the oracle patch's own headers, which need no tree to read.
		if bug.OraclePatch != "" {
			if data, err := os.ReadFile(filepath.Join(o.BundleDir, bug.OraclePatch)); err == nil {
				ev.targetFiles = append(ev.targetFiles, ParsePatch(data).Paths()...)
			}
		}
	}
	return g, nil
}

// cleanup removes the grader's scratch directories; what they held is never read again, so
// a failure to remove them cannot change the grade.
func (g *grader) cleanup() {
	if g.gitDir != nil {
		_ = g.gitDir.Close() // a directory opened to read
	}
	for _, d := range []string{g.scratch, g.pluginDir, g.snapshotDir} {
		if d != "" {
			_ = os.RemoveAll(d)
		}
	}
}

// timed records the seconds fn takes under name.
func (g *grader) timed(name string, fn func() error) error {
	return steps.Timings(g.ev.Timings).Time(name, fn)
}

// reset puts the tree at the base; the first time, it pins .git, runs the setup step and
// records the base for the guard.
func (g *grader) reset(ctx context.Context) error {
	if err := g.repo.Reset(); err != nil {
		return err
	}
	if g.guard != nil {
		return nil
	}
	var err error
	if g.gitDir, err = g.repo.PinGitDir(); err != nil {
		return err
	}
	if err := g.setup(ctx); err != nil {
		return err
	}
	var hidden []string
	for _, paths := range g.hidden {
		hidden = append(hidden, paths...)
	}
	g.guard, err = newGuard(g.repo, g.tests, hidden)
	return err
}

// setup runs the bundle's setup command once, on the pristine tree, as the test identity, and
// resets the tree after it: what it leaves untracked (ignored build products) is part of the
// base the guard records. No patch is in place yet, so a failure is the grader's.
func (g *grader) setup(ctx context.Context) error {
	if g.bundle.Setup == nil {
		return nil
	}
	if err := sandbox.Prepare(g.repo.Dir, g.o.TestUser); err != nil {
		return err
	}
	limit := g.limit(g.bundle.Setup.TimeoutSec, defaultSetupTimeout)
	rep, err := g.shell(ctx, g.bundle.Setup.Command, limit, g.o.Log, nil, nil)
	if err != nil {
		return err
	}
	g.ev.Setup = &rep
	switch {
	case rep.Canceled:
		return errCanceled
	case rep.StartError != "":
		return notStarted(rep)
	case rep.TimedOut || rep.ExitCode != 0:
		return fmt.Errorf("the setup command %s on the pristine tree", describe(rep))
	}
	return g.repo.Reset()
}

func (g *grader) gradeAgent(ctx context.Context) (Reward, error) {
	if err := g.timed("reset", func() error { return g.reset(ctx) }); err != nil {
		return Reward{}, err
	}
	var applied bool
	if err := g.timed("apply", func() (err error) { applied, err = g.applyAgentPatch(); return err }); err != nil {
		return Reward{}, err
	}
	r, err := g.gradeSteps(ctx, applied)
	var h *hang
	if errors.As(err, &h) {
		r, err = g.attribute(ctx, h, applied)
	}
	if g.o.FlakeRechecks > 0 {
		r.Rechecked = true
		if g.ev.FlakeRecheck != nil {
			r.RegressionsCleared = len(g.ev.FlakeRecheck.Cleared)
		}
	}
	return r, err
}

// gradeSteps builds, runs the visible suite and grades each bug on the agent's tree.
func (g *grader) gradeSteps(ctx context.Context, applied bool) (Reward, error) {
	buildErr := g.timed("build", func() error {
		return g.build(ctx, true, g.ev.Patch.GitPaths, applied && addsSource(g.ev.Patch.PatchStats))
	})
	var h *hang
	var failed *buildFailed
	switch {
	case errors.As(buildErr, &h) || errors.Is(buildErr, errCanceled):
		return Reward{}, buildErr
	case buildErr != nil && !errors.As(buildErr, &failed):
		// The build never ran as it should (it could not be started as the test identity, the
		// guard could not put the tree back): the grader's failure, not the agent's 0.
		return Reward{}, fmt.Errorf("the build could not be run: %w", buildErr)
	case buildErr != nil:
		fmt.Fprintln(g.o.Log, "[grader] build failed: the trial scores 0 and no bug is graded")
		g.ev.BuildError = buildErr.Error()
		return Score(len(g.bugs), nil, Visible{}, applied, false), nil
	}
	if err := g.timed("visible", func() error { return g.visible(ctx, true) }); err != nil {
		return Reward{}, err
	}
	var outcomes []BugOutcome
	err := g.timed("bugs", func() error {
		for _, bug := range g.bugs {
			rep, err := g.gradeBug(ctx, bug)
			if err != nil {
				return err
			}
			outcomes = append(outcomes, rep.BugOutcome)
		}
		return nil
	})
	if err != nil {
		return Reward{}, err
	}
	if g.o.FlakeRechecks > 0 {
		if err := g.timed("recheck", func() error { return g.recheck(ctx) }); err != nil {
			return Reward{}, err
		}
	}
	return Score(len(g.bugs), outcomes, Visible{Measured: g.visibleMeasured, Regressions: len(g.ev.Regressions)}, applied, true), nil
}

// gradeOracle checks the bundle itself: the pristine tree must build and its visible run must
// have results (otherwise a grader error), and each bug is graded with its own oracle patch on
// a fresh tree (gradeOnGold), which records a broken bug on the bug.
func (g *grader) gradeOracle(ctx context.Context) (Reward, error) {
	if err := g.timed("reset", func() error { return g.reset(ctx) }); err != nil {
		return Reward{}, err
	}
	if err := g.timed("build", func() error { return g.build(ctx, false, nil, false) }); err != nil {
		return Reward{}, fmt.Errorf("the pristine tree does not build: %w", err)
	}
	if err := g.timed("visible", func() error { return g.visible(ctx, false) }); err != nil {
		return Reward{}, err
	}
	if !g.visibleMeasured {
		return Reward{}, fmt.Errorf("the pristine tree's visible suite produced no results to read: %s", g.ev.Visible.ParseError)
	}
	// A regression of the pristine tree is the environment's, not a patch's: the golds are
	// still graded, for diagnosis, and the result is then marked not measured (SWE-sweep).
	regressions := len(g.ev.Regressions)
	if err := g.snapshotPristine(ctx); err != nil {
		return Reward{}, err
	}
	var outcomes []BugOutcome
	err := g.timed("bugs", func() error {
		for _, bug := range g.bugs {
			rep, err := g.gradeOnGold(ctx, bug)
			if err != nil {
				return err
			}
			outcomes = append(outcomes, rep.BugOutcome)
		}
		return nil
	})
	if err != nil {
		return Reward{}, err
	}
	r := Score(len(g.bugs), outcomes, Visible{Measured: true, Regressions: regressions}, true, true)
	if regressions > 0 {
		r.GraderFailed = 1
		return r, &pristineRegression{regressions: g.ev.Regressions}
	}
	return r, nil
}

// gradeOnGold grades one bug on its own gold, in SWE-sweep's order: reset (and restore the
// oracle_pristine_paths), the hidden tests, then the fix, then the build (a build may compile
// the tests, and a fix that changes an API builds only with its tests), then the targeted run. As in SWE-sweep, what is wrong with this
// one bug (a test patch or gold that does not apply, no gold, a gold that does not build) is
// recorded on it and leaves it unresolved, so that the oracle scores below 1 and says which
// bug is broken; only a failure of the grading itself is an error.
func (g *grader) gradeOnGold(ctx context.Context, bug Bug) (BugReport, error) {
	broken := func(testApplied bool, why string) (BugReport, error) {
		rep := BugReport{ID: bug.ID, TestApplied: testApplied, Error: why, Targeted: []string{}, BugOutcome: OutcomeOf(bug.FailToPass, nil)}
		if data, err := os.ReadFile(filepath.Join(g.o.BundleDir, bug.TestPatch)); err == nil {
			rep.Targeted = orEmpty(testFuncNames(data))
		}
		fmt.Fprintf(g.o.Log, "[grader] bug %s: %s\n", bug.ID, why)
		g.ev.Bugs = append(g.ev.Bugs, rep)
		return rep, nil
	}
	if why, ok := g.unreadableTests[bug.ID]; ok {
		return broken(false, "test patch does not apply: "+why)
	}
	if err := g.reset(ctx); err != nil {
		return BugReport{ID: bug.ID}, err
	}
	if err := g.restorePristine(ctx); err != nil {
		return BugReport{ID: bug.ID}, err
	}
	if err := g.enforce("bug " + bug.ID + "'s oracle"); err != nil {
		return BugReport{ID: bug.ID}, err
	}
	testPatch := filepath.Join(g.o.BundleDir, bug.TestPatch)
	if msg, err := g.repo.Apply(testPatch, false); err != nil {
		return broken(false, "test patch does not apply: "+msg)
	}
	if bug.OraclePatch == "" {
		return broken(true, "the bug has no oracle_patch")
	}
	oracle := filepath.Join(g.o.BundleDir, bug.OraclePatch)
	if msg, err := g.repo.Apply(oracle, false); err != nil {
		return broken(true, "oracle patch does not apply onto its tests: "+msg)
	}
	data, err := os.ReadFile(oracle)
	if err != nil {
		return BugReport{ID: bug.ID}, err
	}
	test, err := os.ReadFile(testPatch)
	if err != nil {
		return BugReport{ID: bug.ID}, err
	}
	fix := ParsePatch(data)
	err = g.buildWithTests(ctx, append(slices.Clone(g.hidden[bug.ID]), fix.Paths()...), addsSource(fix, ParsePatch(test)))
	var failed *buildFailed
	if errors.As(err, &failed) {
		return broken(true, "the build fails with its tests and the oracle patch: "+failed.Error())
	}
	if err != nil {
		return BugReport{ID: bug.ID}, fmt.Errorf("bug %s: building with its tests and the oracle patch: %w", bug.ID, err)
	}
	return g.runBug(ctx, bug, true)
}

// pristineRegression: base tests do not pass on the pristine tree. The bundle or the
// environment is wrong, so the oracle's result, graded all the same, is not a measurement.
type pristineRegression struct{ regressions []string }

func (e *pristineRegression) Error() string {
	return fmt.Sprintf("pristine-tree regression: %d base tests do not pass at the base: %s",
		len(e.regressions), strings.Join(firstN(e.regressions, 5), ", "))
}

// applyAgentPatch applies the agent's patch and puts back the test files and runner
// configuration it touched. A patch that does not apply, or that the grader refuses, leaves
// the tree unpatched; that is a result, not an error.
func (g *grader) applyAgentPatch() (bool, error) {
	rep := &PatchReport{}
	g.ev.Patch = rep
	data, err := os.ReadFile(g.o.PatchPath)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0) {
		// Nothing to apply is applied, as SWE-sweep counts an empty patch; a missing one is
		// graded the same (docs/task-format.md: no patch is a measured result).
		fmt.Fprintln(g.o.Log, "[grader] no agent patch: grading the unpatched tree")
		rep.Applied = true
		return true, nil
	}
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(data)
	rep.Present, rep.Bytes, rep.SHA256 = true, len(data), hex.EncodeToString(sum[:])
	rep.PatchStats = ParsePatch(data)
	rep.FilesChanged = len(rep.Files)
	// git reads the very bytes parsed here, from the grader's own copy.
	patch := filepath.Join(g.scratch, "model.patch")
	if err := os.WriteFile(patch, data, 0o600); err != nil {
		return false, err
	}
	// git refuses such paths itself; the patch is refused before git reads it, with its reason.
	for _, p := range rep.Paths() {
		if insideGitDir(p) {
			return false, g.refuse(rep, fmt.Sprintf("%q is inside .git", p))
		}
	}
	gitPaths, err := g.repo.PatchPaths(patch)
	if err != nil {
		return false, g.notApplied(rep, err.Error())
	}
	rep.GitPaths = gitPaths
	if why := readDifferently(gitPaths, rep.Paths()); why != "" {
		return false, g.refuse(rep, why)
	}
	if msg, err := g.repo.Apply(patch, true); err != nil {
		return false, g.notApplied(rep, msg)
	}
	changed, _, err := g.guard.changed() // the patch alone, applied by git: nothing unreadable
	if err != nil {
		return false, err
	}
	why, err := g.guard.refusal(append(slices.Clone(gitPaths), changed...))
	if err != nil {
		return false, err
	}
	if why != "" {
		return false, g.refuse(rep, why)
	}
	rep.Applied = true
	rep.RestoredTestFiles, rep.RemovedTestFiles, err = g.guard.enforce(gitPaths...)
	if len(rep.RestoredTestFiles)+len(rep.RemovedTestFiles) > 0 {
		fmt.Fprintf(g.o.Log, "[grader] undid the patch's changes to test files and runner configuration: restored %v, removed %v\n",
			rep.RestoredTestFiles, rep.RemovedTestFiles)
	}
	return true, err
}

// readDifferently says how git's paths and the patch's own headers disagree, or "" when they
// name the same files.
func readDifferently(gitPaths, headerPaths []string) string {
	git, headers := slices.Sorted(slices.Values(gitPaths)), slices.Sorted(slices.Values(headerPaths))
	git, headers = slices.Compact(git), slices.Compact(headers)
	if slices.Equal(git, headers) {
		return ""
	}
	return fmt.Sprintf("git reads the patch as touching %q but its diff --git headers name %q: "+
		"the patch must be a git diff with a/ and b/ prefixes (git diff --no-prefix, mnemonic or custom prefixes and plain diffs are refused)", git, headers)
}

func (g *grader) notApplied(rep *PatchReport, msg string) error {
	rep.ApplyError = msg
	fmt.Fprintf(g.o.Log, "[grader] the agent's patch does not apply, grading the unpatched tree: %s\n", msg)
	return g.repo.Reset()
}

// refuse grades the unpatched tree and says why in eval.json and verdict.json.
func (g *grader) refuse(rep *PatchReport, why string) error {
	rep.ApplyError, rep.Refused = "refused: "+why, true
	g.ev.Verdict = &reward.Verdict{Reason: reasons.PatchRefused, Message: "the agent's patch was refused, so the unpatched tree was graded: " + why}
	fmt.Fprintf(g.o.Log, "[grader] the agent's patch is refused, grading the unpatched tree: %s\n", why)
	return g.repo.Reset()
}

// errCanceled: the grading itself was stopped; nothing after it is a measurement.
var errCanceled = errors.New("the grading was stopped before it finished")

// hang is an untrusted step that ran past its limit on the agent's tree.
type hang struct {
	step    string
	command string
	bug     *Bug
	limit   time.Duration
	report  *StepReport
}

func (h *hang) Error() string { return fmt.Sprintf("%s ran past its limit of %s", h.step, h.limit) }

// prepare puts the protected paths back (enforce) and gives the tree to the test identity.
func (g *grader) prepare(step string) error {
	if err := g.enforce(step); err != nil {
		return err
	}
	return sandbox.Prepare(g.repo.Dir, g.o.TestUser)
}

// enforce puts back the test files and runner configuration the code under test changed,
// recording what it did before step.
func (g *grader) enforce(step string) error {
	restored, removed, err := g.guard.enforce()
	if err != nil {
		return err
	}
	if len(restored)+len(removed) > 0 {
		g.ev.Guard = append(g.ev.Guard, GuardReport{Before: step, Restored: restored, Removed: removed})
		fmt.Fprintf(g.o.Log, "[grader] before %s: put back test files and runner configuration the code under test changed: restored %v, removed %v\n",
			step, restored, removed)
	}
	return nil
}

// stepBuild names the build step in messages and in the attribution of a hang.
const stepBuild = "the build"

// build runs the bundle's build command, if any, after the guard; an error means it failed.
// On the agent's tree (agent) a timeout is a hang, to be attributed. edited are the paths the
// patch changed, dated ahead so that an incremental build rebuilds them; added says the patch
// added a C or C++ file, which a CMake tree must be reconfigured to build.
func (g *grader) build(ctx context.Context, agent bool, edited []string, added bool) error {
	if g.bundle.Build == nil {
		return nil
	}
	if err := g.prepare(stepBuild); err != nil {
		return err
	}
	return g.runBuild(ctx, agent, edited, added)
}

// buildWithTests builds the oracle's tree, which holds a bug's hidden tests: the guard would
// take them away, so the tree is only given to the test identity.
func (g *grader) buildWithTests(ctx context.Context, edited []string, added bool) error {
	if g.bundle.Build == nil {
		return nil
	}
	if err := sandbox.Prepare(g.repo.Dir, g.o.TestUser); err != nil {
		return err
	}
	return g.runBuild(ctx, false, edited, added)
}

// runBuild runs the CMake reconfigure when one is due, then the build command. The
// reconfigure runs the tree's own CMake files, so on the agent's tree it is judged as the
// build is: its failure is a failed build, its timeout a hang.
func (g *grader) runBuild(ctx context.Context, agent bool, edited []string, added bool) error {
	freshenMtimes(g.repo.Dir, edited)
	commands := []string{g.bundle.Build.Command}
	if cmd := g.reconfigureCommand(added); cmd != "" {
		commands = []string{cmd, g.bundle.Build.Command}
	}
	for i, command := range commands {
		// Each gets the build's limit, bounded by the time then left (stepLimit).
		limit := g.limit(g.bundle.Build.TimeoutSec, defaultBuildTimeout)
		rep, err := g.shell(ctx, command, limit, g.o.Log, nil, nil)
		g.ev.Build = append(g.ev.Build, rep)
		if err != nil {
			return err
		}
		last := &g.ev.Build[len(g.ev.Build)-1]
		what := "build"
		if i < len(commands)-1 {
			what = "CMake reconfigure (" + command + ")"
		}
		switch {
		case rep.Canceled:
			return errCanceled
		case rep.StartError != "":
			return notStarted(rep)
		case rep.TimedOut && agent:
			return &hang{step: stepBuild, command: rep.Command, limit: limit, report: last}
		case (rep.TimedOut || rep.ExitCode != 0) && (agent || i == len(commands)-1):
			// On the agent's tree the reconfigure runs the agent's CMake files: its failure is
			// the build's.
			return &buildFailed{msg: what + " " + describe(rep)}
		case rep.TimedOut || rep.ExitCode != 0:
			return fmt.Errorf("%s %s", what, describe(rep))
		}
		if i < len(commands)-1 {
			g.reconfigurePending = added
		}
	}
	return nil
}

// buildFailed: the build command ran and failed (a non-zero exit, or a timeout where that is
// no hang to attribute), as opposed to a build the grader could not run.
type buildFailed struct{ msg string }

func (e *buildFailed) Error() string { return e.msg }

// reconfigureCommand is the CMake reconfigure due before a build or targeted run, or "" when
// none is: the bundle has a cmake_build_dir and the patches in place add a C or C++ file
// (added), or the tree was last configured with such a file (reconfigurePending).
func (g *grader) reconfigureCommand(added bool) string {
	if g.bundle.CMakeBuildDir == "" || (!added && !g.reconfigurePending) {
		return ""
	}
	return "cmake " + steps.ShellQuote(g.bundle.CMakeBuildDir)
}

// visible runs the visible suite once and records the regressions.
func (g *grader) visible(ctx context.Context, agent bool) error {
	if err := g.prepare("the visible suite"); err != nil {
		return err
	}
	if err := dropBytecodeCaches(g.repo.Dir); err != nil {
		return err
	}
	rep, res, err := g.suite(ctx, g.bundle.Visible, g.bundle.Visible.Command.Command, defaultVisibleTimeout)
	if err != nil {
		return err
	}
	g.ev.Visible = rep
	if rep.TimedOut && agent {
		return &hang{step: "the visible suite", command: rep.Command, limit: secs(rep.LimitSec), report: &rep.StepReport}
	}
	g.ev.VisibleTests = visibleTests(res)
	// A run with nothing to read is not visible_ok and lists no regression, as in SWE-sweep.
	g.visibleMeasured = rep.ParseError == "" && !rep.TimedOut
	g.ev.Regressions = []string{}
	if g.visibleMeasured {
		g.ev.Regressions = append(g.ev.Regressions, Regressions(g.baseTests, res)...)
	}
	fmt.Fprintf(g.o.Log, "[grader] visible suite: %d tests, %d regressions\n", rep.NTests, len(g.ev.Regressions))
	return nil
}

// gradeBug applies the bug's hidden test patch on the agent's tree and runs its targeted
// tests. A test patch that does not apply leaves the bug unresolved.
func (g *grader) gradeBug(ctx context.Context, bug Bug) (BugReport, error) {
	if err := g.enforce("bug " + bug.ID + "'s tests"); err != nil {
		return BugReport{ID: bug.ID}, err
	}
	testPatch := filepath.Join(g.o.BundleDir, bug.TestPatch)
	if msg, err := g.repo.Apply(testPatch, false); err != nil {
		data, err := os.ReadFile(testPatch)
		if err != nil {
			return BugReport{ID: bug.ID}, err
		}
		rep := BugReport{ID: bug.ID, Error: "test patch does not apply: " + msg, Targeted: orEmpty(testFuncNames(data)), BugOutcome: OutcomeOf(bug.FailToPass, nil)}
		g.ev.Bugs = append(g.ev.Bugs, rep)
		return rep, nil
	}
	return g.runBug(ctx, bug, false)
}

// runBug runs a bug's targeted tests on a tree that holds its test patch, judges the run and
// puts the test patch's paths back as they are at the base, which is how they were before
// (they are protected), whatever the tests did to them. Putting them back cannot fail the
// trial: the guard puts them back again before the next step.
func (g *grader) runBug(ctx context.Context, bug Bug, oracle bool) (BugReport, error) {
	start := time.Now()
	rep := BugReport{ID: bug.ID, TestApplied: true}
	defer func() {
		rep.Seconds = time.Since(start).Seconds()
		g.ev.Bugs = append(g.ev.Bugs, rep)
	}()
	step := "bug " + bug.ID + "'s tests"
	testPatch, err := os.ReadFile(filepath.Join(g.o.BundleDir, bug.TestPatch))
	if err != nil {
		return rep, err
	}
	rep.Targeted = orEmpty(testFuncNames(testPatch))
	rep.Files = targetFiles(g.repo.Dir, g.hidden[bug.ID], g.bundle.BugTests.Format)
	rep.BugOutcome = OutcomeOf(bug.FailToPass, nil)
	template := g.bundle.BugTests.Command.Command
	if strings.Contains(template, "{files}") && len(rep.Files) == 0 {
		rep.Error = "the test patch leaves no test file to run"
		g.putBack(&rep, bug)
		return rep, nil
	}
	// The test patch is in place: the tree is only given to the test identity, since the guard
	// would take the hidden tests away.
	if err := sandbox.Prepare(g.repo.Dir, g.o.TestUser); err != nil {
		return rep, err
	}
	if !oracle && g.bundle.Build != nil {
		// As before a build: the targeted run may build what the test patch changed.
		freshenMtimes(g.repo.Dir, g.hidden[bug.ID])
		if done, err := g.reconfigureForBug(ctx, &rep, bug, addsSource(ParsePatch(testPatch))); done || err != nil {
			return rep, err
		}
	}
	if err := dropBytecodeCaches(g.repo.Dir); err != nil {
		return rep, err
	}
	command := bugCommand(template, bug.FailToPass, rep.Files, rep.Targeted)
	suite, res, err := g.suite(ctx, g.bundle.BugTests, command, defaultBugTimeout)
	if err != nil {
		return rep, err
	}
	rep.Suite = suite
	if suite.TimedOut && !oracle {
		return rep, &hang{step: step, command: command, bug: &bug, limit: secs(suite.LimitSec), report: &rep.Suite.StepReport}
	}
	if suite.ParseError != "" || suite.TimedOut {
		rep.Error = "the targeted tests produced no results to read"
	}
	res, ignored := withoutIgnored(res, g.ignored, bug.FailToPass)
	rep.Ignored = ignored
	rep.BugOutcome = OutcomeOf(bug.FailToPass, res)
	rep.NPassed, rep.NFailed = len(rep.Passed), len(rep.Failed)
	rep.Resolved, rep.Partial = rep.BugOutcome.Resolved(), rep.BugOutcome.Partial()
	fmt.Fprintf(g.o.Log, "[grader] bug %s: %d passed, %d failed, resolved=%v\n", bug.ID, len(rep.Passed), len(rep.Failed), rep.Resolved)
	g.putBack(&rep, bug)
	return rep, nil
}

// reconfigureForBug runs the CMake reconfigure due before a bug's targeted run on the agent's
// tree (added: its test patch adds a C or C++ file). The agent's CMake files take part, so a
// reconfigure that fails leaves the bug unresolved (done) and one that times out is a hang of
// the bug's step; neither can make the trial a grader failure.
func (g *grader) reconfigureForBug(ctx context.Context, rep *BugReport, bug Bug, added bool) (done bool, err error) {
	command := g.reconfigureCommand(added)
	if command == "" {
		return false, nil
	}
	limit := g.limit(g.bundle.Build.TimeoutSec, defaultBuildTimeout)
	step, err := g.shell(ctx, command, limit, g.o.Log, nil, nil)
	if err != nil {
		return true, err
	}
	rep.Reconfigure = &step
	switch {
	case step.Canceled:
		return true, errCanceled
	case step.StartError != "":
		return true, notStarted(step)
	case step.TimedOut:
		return true, &hang{step: "bug " + bug.ID + "'s CMake reconfigure", command: command, bug: &bug, limit: limit, report: rep.Reconfigure}
	case step.ExitCode != 0:
		rep.Error = "the CMake reconfigure " + describe(step)
		g.reconfigurePending = true // the next step configures the tree afresh
		g.putBack(rep, bug)
		return true, nil
	}
	g.reconfigurePending = added
	return false, nil
}

// putBack puts a bug's test patch paths back as at the base; a failure is recorded, not
// fatal (runBug).
func (g *grader) putBack(rep *BugReport, bug Bug) {
	if _, _, err := g.repo.Restore(g.hidden[bug.ID]); err != nil {
		rep.RestoreError = err.Error()
		fmt.Fprintf(g.o.Log, "[grader] bug %s: cannot put its test files back now (the guard does before the next step): %v\n", bug.ID, err)
	}
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }

// visibleTests spells a suite's results as SWE-sweep's visible-test map does (its JUnit
// reading: XFAIL is a skip).
func visibleTests(res testresults.Results) map[string]string {
	out := make(map[string]string, len(res))
	for id, st := range res {
		switch st {
		case testresults.Passed:
			out[id] = "passed"
		case testresults.Failed:
			out[id] = "failed"
		case testresults.Error:
			out[id] = "error"
		default:
			out[id] = "skipped"
		}
	}
	return out
}

// orEmpty is s, or an empty list for nil (eval.json writes a list, never null).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
