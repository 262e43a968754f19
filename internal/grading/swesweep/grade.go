package swesweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Options say what to grade.
type Options struct {
	BundleDir string
	// Workdir overrides the bundle's workdir.
	Workdir string
	// PatchPath is the agent's patch; a missing or empty file grades the unpatched tree.
	PatchPath string
	// OutDir receives reward.json and eval.json.
	OutDir string
	// Bugs restricts grading to these bug ids; empty means all.
	Bugs []string
	// Oracle grades each bug with its own oracle patch instead of the agent's patch.
	Oracle bool
	// Log receives progress and the output of every command.
	Log io.Writer
}

// Eval is eval.json: everything the grading saw.
type Eval struct {
	Schema      string             `json:"schema"`
	Mode        string             `json:"mode"` // "agent" or "oracle"
	BaseRef     string             `json:"base_ref,omitempty"`
	Patch       *PatchReport       `json:"patch,omitempty"`
	Build       []StepReport       `json:"build,omitempty"`
	Visible     *SuiteReport       `json:"visible,omitempty"`
	Regressions []string           `json:"regressions"`
	Bugs        []BugReport        `json:"bugs"`
	Reward      map[string]float64 `json:"reward"`
	Timings     map[string]float64 `json:"timings"`
	// Error is why the grader failed; the reward is then not a measurement.
	Error string `json:"error,omitempty"`
}

// PatchReport describes the agent's patch and what grading did with it.
type PatchReport struct {
	Present    bool   `json:"present"`
	Bytes      int    `json:"bytes"`
	SHA256     string `json:"sha256,omitempty"`
	Applied    bool   `json:"applied"`
	ApplyError string `json:"apply_error,omitempty"`
	PatchStats
	FilesChanged int `json:"files_changed"`
	// Test files the patch touched: put back as they were at the base, or removed when the
	// patch added them.
	RestoredTestFiles []string `json:"restored_test_files,omitempty"`
	RemovedTestFiles  []string `json:"removed_test_files,omitempty"`
}

// StepReport is one command's run.
type StepReport struct {
	Command  string  `json:"command"`
	ExitCode int     `json:"exit_code"`
	TimedOut bool    `json:"timed_out,omitempty"`
	Seconds  float64 `json:"seconds"`
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
	BugOutcome
	Suite   *SuiteReport `json:"suite,omitempty"`
	Seconds float64      `json:"seconds"`
	Error   string       `json:"error,omitempty"`
}

// EvalSchema is the version of eval.json.
const EvalSchema = "sweep-eval/1"

// Run grades and writes OutDir/reward.json and OutDir/eval.json. It returns an error when the
// grader failed; reward.json then holds reward.GraderFailed().
func Run(ctx context.Context, o Options) (reward.Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	ev := &Eval{Schema: EvalSchema, Mode: "agent", Regressions: []string{}, Bugs: []BugReport{}, Timings: map[string]float64{}}
	if o.Oracle {
		ev.Mode = "oracle"
	}
	var result reward.Result
	total, err := steps.Attempt(o.Log, func() (err error) {
		result, err = grade(ctx, o, ev)
		return err
	})
	if err != nil {
		result = reward.GraderFailed()
		ev.Error = err.Error()
	}
	ev.Reward = result
	ev.Timings["total"] = total
	if werr := writeOutputs(o.OutDir, result, ev); werr != nil && err == nil {
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
	var r Reward
	if o.Oracle {
		r, err = g.gradeOracle(ctx)
	} else {
		r, err = g.gradeAgent(ctx)
	}
	if err != nil {
		return nil, err
	}
	return r.Result(), nil
}

func writeOutputs(dir string, result reward.Result, ev *Eval) error {
	rb, err := reward.Encode(result)
	if err != nil {
		return err
	}
	eb, err := steps.IndentedJSON(ev)
	if err != nil {
		return err
	}
	return steps.WriteResults(dir, steps.File{Name: reward.FileJSON, Data: rb}, steps.File{Name: pc.RecordEval, Data: eb})
}

type grader struct {
	o         Options
	ev        *Eval
	bundle    *Bundle
	bugs      []Bug
	baseTests []string
	tests     testMatcher
	repo      steps.Repo
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
	ev.BaseRef = b.BaseRef
	return &grader{o: o, ev: ev, bundle: b, bugs: bugs, baseTests: base, tests: tests,
		repo: steps.Repo{Dir: workdir, Base: b.BaseRef}}, nil
}

// timed records the seconds fn takes under name.
func (g *grader) timed(name string, fn func() error) error {
	return steps.Timings(g.ev.Timings).Time(name, fn)
}

func (g *grader) gradeAgent(ctx context.Context) (Reward, error) {
	if err := g.timed("reset", g.repo.Reset); err != nil {
		return Reward{}, err
	}
	var applied bool
	if err := g.timed("apply", func() (err error) { applied, err = g.applyAgentPatch(); return err }); err != nil {
		return Reward{}, err
	}
	buildOK := g.timed("build", func() error { return g.build(ctx) }) == nil
	if !buildOK {
		fmt.Fprintln(g.o.Log, "[grader] build failed: the trial scores 0")
		return Score(len(g.bugs), nil, 0, applied, false), nil
	}
	if err := g.timed("visible", func() error { return g.visible(ctx) }); err != nil {
		return Reward{}, err
	}
	var outcomes []BugOutcome
	err := g.timed("bugs", func() error {
		for _, bug := range g.bugs {
			rep, err := g.gradeBug(ctx, bug, false)
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
	return Score(len(g.bugs), outcomes, len(g.ev.Regressions), applied, true), nil
}

// gradeOracle checks the bundle itself: the pristine tree must build and pass its base tests
// (anything else is the bundle's fault, a grader error), and each bug is graded with its own
// oracle patch on a fresh tree.
func (g *grader) gradeOracle(ctx context.Context) (Reward, error) {
	if err := g.timed("reset", g.repo.Reset); err != nil {
		return Reward{}, err
	}
	if err := g.timed("build", func() error { return g.build(ctx) }); err != nil {
		return Reward{}, fmt.Errorf("the pristine tree does not build: %w", err)
	}
	if err := g.timed("visible", func() error { return g.visible(ctx) }); err != nil {
		return Reward{}, err
	}
	if len(g.ev.Regressions) > 0 {
		return Reward{}, fmt.Errorf("pristine-tree regression: %d base tests do not pass at the base: %s",
			len(g.ev.Regressions), strings.Join(firstN(g.ev.Regressions, 5), ", "))
	}
	var outcomes []BugOutcome
	err := g.timed("bugs", func() error {
		for _, bug := range g.bugs {
			if bug.OraclePatch == "" {
				return fmt.Errorf("bug %s has no oracle_patch", bug.ID)
			}
			if err := g.repo.Reset(); err != nil {
				return err
			}
			if msg, err := g.repo.Apply(filepath.Join(g.o.BundleDir, bug.OraclePatch), false); err != nil {
				return fmt.Errorf("bug %s: oracle patch does not apply: %s", bug.ID, msg)
			}
			if err := g.build(ctx); err != nil {
				return fmt.Errorf("bug %s: build fails with the oracle patch: %w", bug.ID, err)
			}
			rep, err := g.gradeBug(ctx, bug, true)
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
	return Score(len(g.bugs), outcomes, 0, true, true), nil
}

// applyAgentPatch applies the agent's patch and undoes its changes to test files. A patch
// that does not apply leaves the tree unpatched; that is a result, not an error.
func (g *grader) applyAgentPatch() (bool, error) {
	rep := &PatchReport{}
	g.ev.Patch = rep
	data, err := os.ReadFile(g.o.PatchPath)
	if errors.Is(err, os.ErrNotExist) || (err == nil && len(bytes.TrimSpace(data)) == 0) {
		fmt.Fprintln(g.o.Log, "[grader] no agent patch: grading the unpatched tree")
		return false, nil
	}
	if err != nil {
		return false, err
	}
	sum := sha256.Sum256(data)
	rep.Present, rep.Bytes, rep.SHA256 = true, len(data), hex.EncodeToString(sum[:])
	rep.PatchStats = ParsePatch(data)
	rep.FilesChanged = len(rep.Files)
	if msg, err := g.repo.Apply(g.o.PatchPath, true); err != nil {
		rep.ApplyError = msg
		fmt.Fprintf(g.o.Log, "[grader] the agent's patch does not apply, grading the unpatched tree: %s\n", msg)
		return false, g.repo.Reset()
	}
	rep.Applied = true
	var touched []string
	for _, p := range rep.Paths() {
		if g.tests.isTest(p) {
			touched = append(touched, p)
		}
	}
	rep.RestoredTestFiles, rep.RemovedTestFiles, err = g.repo.Restore(touched)
	if len(touched) > 0 {
		fmt.Fprintf(g.o.Log, "[grader] undid the patch's changes to test files: restored %v, removed %v\n",
			rep.RestoredTestFiles, rep.RemovedTestFiles)
	}
	return true, err
}

// build runs the bundle's build command, if any; an error means it failed.
func (g *grader) build(ctx context.Context) error {
	if g.bundle.Build == nil {
		return nil
	}
	rep := g.shell(ctx, g.bundle.Build.Command, g.bundle.Build.TimeoutSec, defaultBuildTimeout, g.o.Log)
	g.ev.Build = append(g.ev.Build, rep)
	if rep.TimedOut || rep.ExitCode != 0 {
		return fmt.Errorf("build %s", describe(rep))
	}
	return nil
}

// visible runs the visible suite once and records the regressions.
func (g *grader) visible(ctx context.Context) error {
	rep, res, err := g.suite(ctx, g.bundle.Visible, g.bundle.Visible.Command.Command)
	if err != nil {
		return err
	}
	g.ev.Visible = rep
	g.ev.Regressions = Regressions(g.baseTests, res)
	if g.ev.Regressions == nil {
		g.ev.Regressions = []string{}
	}
	fmt.Fprintf(g.o.Log, "[grader] visible suite: %d tests, %d regressions\n", rep.NTests, len(g.ev.Regressions))
	return nil
}

// gradeBug applies the bug's hidden test patch, runs its fail-to-pass tests and reverts the
// test patch. A test patch that does not apply leaves the bug unresolved, except in oracle
// grading, where it is the bundle's fault.
func (g *grader) gradeBug(ctx context.Context, bug Bug, oracle bool) (BugReport, error) {
	start := time.Now()
	rep := BugReport{ID: bug.ID}
	defer func() {
		rep.Seconds = time.Since(start).Seconds()
		g.ev.Bugs = append(g.ev.Bugs, rep)
	}()
	testPatch := filepath.Join(g.o.BundleDir, bug.TestPatch)
	if msg, err := g.repo.Apply(testPatch, false); err != nil {
		if oracle {
			return rep, fmt.Errorf("bug %s: test patch does not apply: %s", bug.ID, msg)
		}
		rep.Error = "test patch does not apply: " + msg
		rep.BugOutcome = OutcomeOf(bug.FailToPass, nil)
		return rep, nil
	}
	command := strings.ReplaceAll(g.bundle.BugTests.Command.Command, "{tests}", shellQuoteAll(bug.FailToPass))
	suite, res, err := g.suite(ctx, g.bundle.BugTests, command)
	if err != nil {
		return rep, err
	}
	rep.Suite = suite
	rep.BugOutcome = OutcomeOf(bug.FailToPass, res)
	rep.Resolved, rep.Partial = rep.BugOutcome.Resolved(), rep.BugOutcome.Partial()
	fmt.Fprintf(g.o.Log, "[grader] bug %s: %d passed, %d failed, resolved=%v\n", bug.ID, len(rep.Passed), len(rep.Failed), rep.Resolved)
	if msg, err := g.repo.Revert(testPatch); err != nil {
		return rep, fmt.Errorf("bug %s: cannot revert its test patch: %s", bug.ID, msg)
	}
	return rep, nil
}

// suite runs a test command and reads its results. Results that cannot be read count as no
// results (every expected test missing), not as a grader failure: the agent's change may be
// what broke the report.
func (g *grader) suite(ctx context.Context, s Suite, command string) (*SuiteReport, testresults.Results, error) {
	out, err := os.CreateTemp("", "sweep-suite-*.log")
	if err != nil {
		return nil, nil, err
	}
	// A scratch copy of the output, read back below and then thrown away: neither its close
	// nor its removal can change the grade.
	defer func() { _ = os.Remove(out.Name()) }()
	defer func() { _ = out.Close() }()
	// Never read a stale report: one that cannot be removed counts as unreadable.
	var stale error
	if s.Report != "" {
		if err := os.Remove(filepath.Join(g.repo.Dir, s.Report)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			stale = fmt.Errorf("cannot remove the previous report: %w", err)
		}
	}
	rep := &SuiteReport{StepReport: g.shell(ctx, command, s.TimeoutSec, defaultSuiteTimeout, io.MultiWriter(g.o.Log, out)),
		Counts: map[testresults.Status]int{}}
	if stale != nil {
		rep.ParseError = stale.Error()
		return rep, testresults.Results{}, nil
	}
	var src io.Reader = out
	if s.Report != "" {
		f, err := os.Open(filepath.Join(g.repo.Dir, s.Report))
		if err != nil {
			rep.ParseError = err.Error()
			return rep, testresults.Results{}, nil
		}
		defer func() { _ = f.Close() }() // read-only: its close has nothing to report
		src = f
	} else if _, err := out.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	res, err := testresults.Read(s.Format, src)
	if err != nil {
		rep.ParseError = err.Error()
		res = testresults.Results{}
	}
	rep.NTests = len(res)
	for _, st := range res {
		rep.Counts[st]++
	}
	return rep, res, nil
}

// shell runs command with sh in the workdir as a process tree under its timeout.
func (g *grader) shell(ctx context.Context, command string, timeoutSec, defaultSec float64, out io.Writer) StepReport {
	if timeoutSec <= 0 {
		timeoutSec = defaultSec
	}
	fmt.Fprintf(g.o.Log, "[grader] $ %s\n", command)
	res := steps.RunUnderTimeout(ctx, steps.Command{Path: "sh", Args: []string{"-c", command}, Dir: g.repo.Dir,
		Output: out, Timeout: time.Duration(timeoutSec * float64(time.Second)), Grace: 5 * time.Second})
	rep := StepReport{Command: command, ExitCode: res.ExitCode, TimedOut: res.TimedOut || res.Canceled,
		Seconds: steps.Seconds(res)}
	if res.StartErr != nil {
		fmt.Fprintf(g.o.Log, "[grader] cannot run sh: %v\n", res.StartErr)
	}
	return rep
}

func describe(r StepReport) string {
	if r.TimedOut {
		return "timed out"
	}
	return fmt.Sprintf("exited with %d", r.ExitCode)
}

func shellQuoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }
