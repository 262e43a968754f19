package swebench

import (
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

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/grading/pytestreport"
	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/proctree"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

// Run kinds of eval.json.
const (
	// RunCaptured: the grader did the git steps itself and captured the test command's output.
	RunCaptured = "grader"
	// RunOpaque: a 5.x instance carries its own eval_script, run whole as the test user; its
	// markers and exit code are the script's own.
	RunOpaque = "opaque"
)

// OpaqueRisk is eval.json's statement of what an opaque run does not guarantee.
const OpaqueRisk = "the dataset's eval_script ran as the test user with the grader's guard, test-file reset and test patch around it, " +
	"but the script prints its own markers and exit code: code from the patch can forge them, so the verdict is the official one on the script's log"

// graded is one graded instance: the hardened verdict (scored), the official one beside it,
// and the cause a trial must show.
type graded struct {
	hardened, official InstanceReport
	verdict            *reward.Verdict
}

// gradeInstance grades the patch: the grader (root) applies it, guards the runner's files,
// resets and applies the test files with git; the install step and the tests run as the test
// user; the grader captures the test command's output and exit status itself.
func gradeInstance(ctx context.Context, in GraderInput, r GraderRun, ev *GraderEval) (graded, error) {
	if err := sandbox.Check(); err != nil {
		return graded{}, fmt.Errorf("the SWE-bench grader runs the model's code as the test user (uid %d) and cannot: %w", r.TestUser.UID, err)
	}
	if r.TestUser.UID == 0 {
		return graded{}, errors.New("the test user is root: pass the unprivileged identity the tests run as (--test-uid)")
	}
	patch, err := os.ReadFile(r.PatchPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return graded{}, fmt.Errorf("read the model patch: %w", err)
	}
	ev.Patch = &GraderPatch{Bytes: len(patch)}
	if len(patch) == 0 {
		// SWE-bench does not run an empty patch; here the agent stage produced none.
		fmt.Fprintf(r.Log, "[grader] the model patch %s is missing or empty\n", r.PatchPath)
		rep := errorReport(in, "the model patch is empty: the agent changed nothing")
		return graded{hardened: rep, official: rep}, nil
	}
	sum := sha256.Sum256(patch)
	ev.Patch.SHA256 = hex.EncodeToString(sum[:])

	scratch, err := os.MkdirTemp("", "swebench-")
	if err != nil {
		return graded{}, err
	}
	// Best-effort cleanup of files already used; a leftover private dir cannot change the grade.
	defer func() { _ = os.RemoveAll(scratch) }()
	if err := sandbox.Private(scratch); err != nil {
		return graded{}, err
	}
	base := in.Instance.BaseCommit
	if base == "" {
		base = "HEAD" // an opaque instance may leave it out: its image is checked out at it
	}
	repo := steps.Repo{Dir: r.Workdir, Base: base}
	// The test user owns the tree's top and could put a repository of its own at .git.
	gitDir, err := repo.PinGitDir()
	if errors.Is(err, fs.ErrNotExist) {
		return graded{}, fmt.Errorf("the workdir %s has no .git: the verifier image must hold the repository at the instance's base commit there", r.Workdir)
	}
	if err != nil {
		return graded{}, err
	}
	defer func() { _ = gitDir.Close() }() // a directory opened to read
	f := &flow{in: in, r: r, ev: ev, scratch: scratch, start: time.Now(), repo: graderRepo{repo}, gitDir: gitDir}
	f.pre = newBoundedCapture(r.Log, stepOutputBytes, stepOutputBytes)
	return f.run(ctx, patch)
}

// flow is one instance's grading in progress.
type flow struct {
	in   GraderInput
	r    GraderRun
	ev   *GraderEval
	repo graderRepo
	// gitDir is the repository's .git, pinned before any code under test ran.
	gitDir  *steps.PinnedGitDir
	scratch string
	start   time.Time
	// pre is the output before the tests (patch application, the grader's git, the install):
	// the head of the official-style log.
	pre   *boundedCapture
	files runnerFiles
	// pristine is the tree before the patch, to take it back for a rerun.
	pristine treeSnapshot
	testEnv  []string
	// pytest: the test command starts pytest, whose results come from pytestreport's channel.
	pytest bool
	// plan is the eval script the steps below carry out (EvalScript renders it).
	plan evalPlan
	// keepAutoload: pytest's plugin autoload stays on (pluginEnv could not name the plugins).
	keepAutoload bool
}

func (f *flow) instanceDeadline() time.Time { return f.start.Add(f.in.Timeout()) }

func (f *flow) run(ctx context.Context, patch []byte) (graded, error) {
	inst := f.in.Instance
	f.files = runnerFiles{allowConftest: f.in.Config.AllowPatchConftest}
	f.plan = newEvalPlan(inst, f.in.ScriptOptions(f.r.Workdir), f.in.Version)
	env, plugins, autoload := f.pluginEnv(ctx)
	f.testEnv, f.ev.PluginAutoload = env, autoload
	fmt.Fprintf(f.pre, "[grader] pytest plugin autoload: %s\n", autoload)
	f.pytest = pytestRunner(f.testCommand()) != ""
	f.files.modules = plugins

	var err error
	if f.pristine, err = snapshotTree(f.r.Workdir); err != nil {
		return graded{}, err
	}
	patchPath := filepath.Join(f.scratch, "model.patch")
	if err := os.WriteFile(patchPath, patch, 0o600); err != nil {
		return graded{}, err
	}
	applyStart := time.Now()
	applyBudget, _ := testBudget(time.Until(f.instanceDeadline()), time.Until(f.r.Deadline), !f.r.Deadline.IsZero())
	applied, err := f.grader(ctx, "apply_patch.sh", PatchApplyScript(patchPath, f.in.Version), f.pre, applyBudget)
	f.ev.Timings["apply_patch"] = time.Since(applyStart).Seconds()
	if err != nil {
		return graded{}, err
	}
	if applied.ExitCode != 0 {
		rep := errorReport(f.in, "the model patch did not apply")
		if applied.TimedOut {
			rep.Error = "the tests timed out"
		}
		return graded{hardened: rep, official: rep}, nil
	}
	f.ev.Patch.Method = applyMethod(f.pre.Text())

	// The patch's runner files, as git and the file system see them after the apply.
	f.ev.Guard = &GuardRecord{}
	afterPatch, err := snapshotTree(f.r.Workdir)
	if err != nil {
		return graded{}, err
	}
	if err := guardStep(f.repo, f.files, f.pristine, afterPatch, f.ev.Guard); err != nil {
		return graded{}, err
	}
	if f.ev.Guard.Refused != "" {
		fmt.Fprintf(f.pre, "[grader] the model patch is refused: %s\n", f.ev.Guard.Refused)
		rep := errorReport(f.in, "the model patch was refused: "+f.ev.Guard.Refused)
		return graded{hardened: rep, official: rep,
			verdict: &reward.Verdict{Reason: reasons.PatchRefused, Message: f.ev.Guard.Refused}}, nil
	}
	f.logGuard("the model patch")
	if inst.EvalScript != "" {
		return f.opaque(ctx)
	}
	if f.plan.family == ScriptPython {
		for _, args := range f.plan.informationalGit() {
			out, _ := f.repo.Git(args...) // informational, as in the official script
			fmt.Fprintf(f.pre, "+ git %s\n%s", strings.Join(args, " "), out)
		}
	}
	if f.plan.install != "" {
		if o, stop, err := f.userStep(ctx, "install", f.plan.install); err != nil || stop {
			return o, err
		}
	}
	tr, err := f.runTests(ctx, time.Until(f.instanceDeadline()))
	if err != nil {
		return graded{}, err
	}
	if tr.decided != nil {
		return *tr.decided, nil
	}
	o, err := f.verdicts(tr)
	if err != nil || !tr.res.TimedOut {
		return o, err
	}
	return f.attributeHang(ctx, o, tr)
}

// testRun is what the grader observed of one run of the test command.
type testRun struct {
	res           proctree.Result
	window        *boundedCapture
	cutByDeadline bool
	budget        time.Duration
	// channel is what pytestreport's plugin reported, when the runner is pytest.
	channel *channelResults
	// decided is the instance's outcome when the build step decided it (it hung, or it wrote
	// a runner file that cannot be put back): the tests did not run.
	decided *graded
}

// runTests resets the test files, applies the test patch, runs the build commands and then the
// test command as the test user with the test command's output captured by the grader, and
// resets the test files again.
func (f *flow) runTests(ctx context.Context, instanceLeft time.Duration) (testRun, error) {
	inst := f.in.Instance
	testFiles := append(append([]string{}, f.plan.modified...), f.plan.added...)
	if _, _, err := f.repo.resetToBase(testFiles); err != nil {
		return testRun{}, fmt.Errorf("reset the test files: %w", err)
	}
	testPatch := filepath.Join(f.scratch, "test.patch")
	if err := os.WriteFile(testPatch, []byte(inst.TestPatch), 0o600); err != nil {
		return testRun{}, err
	}
	fmt.Fprintf(f.pre, "+ git %s - <<'%s'\n", strings.Join(f.plan.applyTestPatch, " "), heredocDelimiter(inst.TestPatch))
	out, err := f.repo.Git(append(append([]string{}, f.plan.applyTestPatch...), testPatch)...)
	// A test patch that does not apply is in the log, and the tests run anyway, as officially.
	fmt.Fprintln(f.pre, strings.TrimRight(out, "\n"))
	if err != nil {
		fmt.Fprintf(f.pre, "[grader] %v\n", err)
	}
	if err := sandbox.Prepare(f.r.Workdir, f.r.TestUser); err != nil {
		return testRun{}, fmt.Errorf("give the work tree to the test user: %w", err)
	}
	if len(f.plan.build) > 0 {
		o, stop, err := f.userStep(ctx, "build", strings.Join(f.plan.build, "\n"))
		if err != nil {
			return testRun{}, err
		}
		if stop {
			return testRun{decided: &o}, nil
		}
	}

	tr := testRun{window: newBoundedCapture(f.r.Log, TestOutputHeadBytes, TestOutputTailBytes)}
	tr.budget, tr.cutByDeadline = testBudget(instanceLeft, time.Until(f.r.Deadline), !f.r.Deadline.IsZero())
	env, extra := f.testEnv, []*os.File(nil)
	var ch *pytestreport.Channel
	if f.pytest {
		// The plugin's directory is outside the tree and the grader's alone; the tests read it.
		dir, err := os.MkdirTemp("", "swebench-report-")
		if err != nil {
			return tr, err
		}
		defer func() { _ = os.RemoveAll(dir) }() // best effort: the plugin's name was this run's
		if ch, err = pytestreport.Open(dir); err != nil {
			return tr, fmt.Errorf("open the pytest result channel: %w", err)
		}
		// Autoload stays on when the image's plugins could not be named (pluginEnv); the guard
		// has put back any entry point the patch added.
		if f.keepAutoload {
			env = ch.EnvKeepingAutoload(env)
		} else {
			env = ch.Env(env)
		}
		extra = ch.ExtraFiles()
	}
	fmt.Fprintf(f.r.Log, "+ : '%s'\n", MarkerStartTestOutput)
	testStart := time.Now()
	tr.res = f.asTestUser(ctx, "eval.sh", f.testScript(), tr.window, tr.budget, env, extra)
	f.ev.Timings["eval"] += time.Since(testStart).Seconds()
	fmt.Fprintf(f.r.Log, "+ : '%s'\n", MarkerEndTestOutput)
	if ch != nil {
		var err error
		tr.channel = &channelResults{}
		if tr.channel.results, tr.channel.complete, err = ch.Results(); err != nil {
			return tr, fmt.Errorf("read the pytest result channel: %w", err)
		}
	}
	if tr.res.StartErr != nil {
		return tr, fmt.Errorf("run the test command: %w", tr.res.StartErr)
	}
	if tr.res.Canceled {
		return tr, errors.New("the test command: the grader was stopped")
	}
	if _, _, err := f.repo.resetToBase(testFiles); err != nil {
		return tr, fmt.Errorf("reset the test files after the tests: %w", err)
	}
	return tr, nil
}

// verdicts grades one test run: the hardened verdict from what the grader captured, the
// official one from the official-style log of the same run.
func (f *flow) verdicts(tr testRun) (graded, error) {
	inst, version := f.in.Instance, f.in.Version
	var o graded
	var err error
	if o.official, err = Grade(inst, f.officialLog(tr), version, GradeOptions{Parser: f.in.Config.LogParser}); err != nil {
		return o, err
	}
	f.ev.TestExitCode = &tr.res.ExitCode
	f.ev.TestOutput = &OutputRecord{Bytes: tr.window.Total(), DroppedBytes: tr.window.Dropped()}
	run := capturedRun{output: tr.window.Text(), exitCode: tr.res.ExitCode, timedOut: tr.res.TimedOut, channel: tr.channel}
	o.hardened, err = hardenedGrade(inst, version, f.in.Config.LogParser, run)
	f.ev.VerdictSource = run.source()
	return o, err
}

// officialLog is the log the official harness would grade for this run: the output before the
// tests, the test command's output between the xtrace markers, its exit code.
func (f *flow) officialLog(tr testRun) string {
	var b strings.Builder
	b.WriteString(f.pre.Text())
	fmt.Fprintf(&b, "+ : '%s'\n", MarkerStartTestOutput)
	b.WriteString(tr.window.Text())
	fmt.Fprintf(&b, "\n+ : '%s'\n%s%d\n", MarkerEndTestOutput, MarkerTestExitCode, tr.res.ExitCode)
	if tr.res.TimedOut {
		fmt.Fprintf(&b, "%s\n", MarkerTestsTimedOut)
	}
	return b.String()
}

// attributeHang decides a run the timeout ended (hangAttribution): when the deadline cut it,
// the tests run again on the unpatched tree within the same budget.
func (f *flow) attributeHang(ctx context.Context, o graded, tr testRun) (graded, error) {
	f.ev.TimedOut = true
	var finished *bool
	if tr.cutByDeadline {
		f.ev.DeadlineCut = true
		left := time.Until(f.r.Deadline) - DeadlineReserve
		if left > 0 && steps.HangRerunLimit(tr.budget) > 0 {
			ok, err := f.rerunUnpatched(ctx, min(steps.HangRerunLimit(tr.budget), left))
			if err != nil {
				return o, err
			}
			finished = &ok
		}
	}
	switch hangAttribution(tr.cutByDeadline, finished) {
	case hangOnPatch:
		msg := fmt.Sprintf("the tests ran past %s on the patched tree and finished within %s on the unpatched tree",
			tr.budget.Round(time.Second), steps.HangRerunLimit(tr.budget).Round(time.Second))
		rep := errorReport(f.in, "the tests timed out")
		return graded{hardened: rep, official: o.official, verdict: &reward.Verdict{Reason: reasons.TestsHungOnPatch, Message: msg}}, nil
	case hangNotMeasured:
		if steps.HangRerunLimit(tr.budget) == 0 {
			return o, fmt.Errorf("the verifier's deadline ended the tests after %s, before the instance's timeout of %s, too soon to tell a hang from a slow start (a rerun on the unpatched tree would have to end %s before it): not measured (raise the verifier's timeout)",
				tr.budget.Round(time.Second), f.in.Timeout(), steps.HangRerunMargin)
		}
		return o, fmt.Errorf("the verifier's deadline ended the tests after %s, before the instance's timeout of %s, and the unpatched tree did not show the hang is the patch's by finishing within %s: not measured (raise the verifier's timeout)",
			tr.budget.Round(time.Second), f.in.Timeout(), steps.HangRerunLimit(tr.budget).Round(time.Second))
	}
	return o, nil
}

// rerunUnpatched takes the tree back to the base (the patch's files, ignored ones included,
// removed by git), and runs the tests again; it reports whether they finished in budget.
func (f *flow) rerunUnpatched(ctx context.Context, budget time.Duration) (bool, error) {
	fmt.Fprintf(f.r.Log, "[grader] the deadline ended the tests: running them on the unpatched tree within %s\n", budget.Round(time.Second))
	if _, err := f.repo.Git("reset", "-q", "--hard", f.repo.Base); err != nil {
		return false, err
	}
	now, err := snapshotTree(f.r.Workdir)
	if err != nil {
		return false, err
	}
	var added []string
	for _, c := range changesBetween(f.pristine, now) {
		if !c.Existed {
			added = append(added, c.Path)
		}
	}
	if _, _, err := f.repo.resetToBase(added); err != nil {
		return false, err
	}
	rerun, err := f.runTests(ctx, budget)
	if err != nil {
		return false, err
	}
	if rerun.decided != nil {
		return false, nil // the build did not let the tests run on the unpatched tree either
	}
	f.ev.Rerun = &RerunRecord{Finished: !rerun.res.TimedOut, ExitCode: rerun.res.ExitCode, Seconds: steps.Seconds(rerun.res)}
	return !rerun.res.TimedOut, nil
}

// userStep runs the dataset's install or build step (name) on the patched tree as the test
// user, then puts back the runner files it wrote (a build must not write a conftest.py after
// the guard ran). stop says the instance is graded already: the step hung, or it changed a
// runner file that cannot be put back (the patch is refused, as for its own changes).
func (f *flow) userStep(ctx context.Context, name, command string) (o graded, stop bool, err error) {
	if err := sandbox.Prepare(f.r.Workdir, f.r.TestUser); err != nil {
		return o, false, fmt.Errorf("give the work tree to the test user: %w", err)
	}
	before, err := snapshotTree(f.r.Workdir)
	if err != nil {
		return o, false, err
	}
	budget, cut := testBudget(time.Until(f.instanceDeadline()), time.Until(f.r.Deadline), !f.r.Deadline.IsZero())
	start := time.Now()
	res := f.asTestUser(ctx, name+".sh", f.plan.userScript(f.r.Workdir, command), f.pre, budget, f.testEnv, nil)
	f.ev.Timings[name] += time.Since(start).Seconds()
	switch {
	case res.StartErr != nil:
		return o, false, fmt.Errorf("run the %s step: %w", name, res.StartErr)
	case res.Canceled:
		return o, false, fmt.Errorf("the %s step: the grader was stopped", name)
	case res.TimedOut:
		// The step is part of the official eval script, whose timeout makes an error instance.
		f.ev.TimedOut = true
		if hangAttribution(cut, nil) != hangOfficial {
			f.ev.DeadlineCut = true
			return o, false, fmt.Errorf("the verifier's deadline ended the %s step after %s, before the instance's timeout of %s: not measured (raise the verifier's timeout)",
				name, budget.Round(time.Second), f.in.Timeout())
		}
		rep := errorReport(f.in, "the tests timed out")
		return graded{hardened: rep, official: rep}, true, nil
	}
	// As officially, a failed step is in the log and the tests run anyway.
	if name == "install" && res.ExitCode != 0 && f.in.Config.ReinstallNetwork {
		f.ev.InstallProblem = fmt.Sprintf("the install step exited %d; the specs' install builds with pip's build isolation, "+
			"which downloads the build requirements, and the official harness runs it with the network: without it, "+
			"compiled code the patch changes is not rebuilt (import with --verifier-network public)", res.ExitCode)
	}
	after, err := snapshotTree(f.r.Workdir)
	if err != nil {
		return o, false, err
	}
	built := runnerFiles{allowConftest: f.files.allowConftest, modules: f.files.modules, build: true}
	if f.ev.BuildGuard == nil {
		f.ev.BuildGuard = &GuardRecord{}
	}
	if err := guardStep(f.repo, built, before, after, f.ev.BuildGuard); err != nil {
		return o, false, err
	}
	if why := f.ev.BuildGuard.Refused; why != "" {
		msg := "the " + name + " step on the patched tree: " + why
		fmt.Fprintf(f.pre, "[grader] the model patch is refused: %s\n", msg)
		rep := errorReport(f.in, "the model patch was refused: "+msg)
		return graded{hardened: rep, official: rep, verdict: &reward.Verdict{Reason: reasons.PatchRefused, Message: msg}}, true, nil
	}
	return o, false, nil
}

// opaque runs a 5.x instance's own eval_script as the test user, with what the grader can do
// around it: the guard (done), the test files reset and the test patch applied by git, and the
// test files reset again afterwards.
func (f *flow) opaque(ctx context.Context) (graded, error) {
	inst := f.in.Instance
	f.ev.Run, f.ev.OpaqueRisk = RunOpaque, OpaqueRisk
	modified, added := patchFiles(inst.TestPatch)
	testFiles := append(append([]string{}, modified...), added...)
	if inst.TestPatch != "" {
		if _, _, err := f.repo.resetToBase(testFiles); err != nil {
			return graded{}, err
		}
		testPatch := filepath.Join(f.scratch, "test.patch")
		if err := os.WriteFile(testPatch, []byte(inst.TestPatch), 0o600); err != nil {
			return graded{}, err
		}
		out, _ := f.repo.Git("apply", "-v", testPatch)
		fmt.Fprintln(f.pre, strings.TrimRight(out, "\n"))
	}
	if err := sandbox.Prepare(f.r.Workdir, f.r.TestUser); err != nil {
		return graded{}, fmt.Errorf("give the work tree to the test user: %w", err)
	}
	budget, _ := testBudget(time.Until(f.instanceDeadline()), time.Until(f.r.Deadline), !f.r.Deadline.IsZero())
	log := newBoundedCapture(f.r.Log, TestOutputHeadBytes, TestOutputTailBytes)
	start := time.Now()
	res := f.asTestUser(ctx, "eval.sh", f.in.opaqueScript(), log, budget, f.testEnv, nil)
	f.ev.Timings["eval"] = time.Since(start).Seconds()
	switch {
	case res.StartErr != nil:
		return graded{}, fmt.Errorf("run the eval script: %w", res.StartErr)
	case res.Canceled:
		return graded{}, errors.New("the eval script: the grader was stopped")
	}
	if _, _, err := f.repo.resetToBase(testFiles); err != nil {
		return graded{}, fmt.Errorf("reset the test files after the tests: %w", err)
	}
	text := f.pre.Text() + log.Text()
	if res.TimedOut {
		f.ev.TimedOut = true
		text += "\n" + MarkerTestsTimedOut + "\n"
	}
	rep, err := Grade(inst, text, f.in.Version, GradeOptions{Parser: f.in.Config.LogParser})
	f.ev.VerdictSource = VerdictOpaqueLog
	return graded{hardened: rep, official: rep}, err
}

// testScript runs the test command as the test user: the environment setup and the dataset's
// eval commands first, the test command last, so that the script's exit status is the test
// command's (bash returns its last command's status).
func (f *flow) testScript() string {
	return f.plan.userScript(f.r.Workdir, f.plan.testCommand)
}

// userScript is a script of the test user: setup, cd dir, eval commands, then last.
func (f *flow) userScript(dir, last string) string {
	return f.plan.userScript(dir, last)
}

// grader runs one of the grader's own scripts as root, in the work tree.
func (f *flow) grader(ctx context.Context, name, script string, out io.Writer, timeout time.Duration) (proctree.Result, error) {
	path := filepath.Join(f.scratch, name)
	if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
		return proctree.Result{}, err
	}
	res := steps.RunUnderTimeout(ctx, steps.Command{Path: "bash", Args: []string{path}, Dir: f.r.Workdir, Env: f.r.Env, Output: out, Timeout: timeout})
	switch {
	case res.StartErr != nil:
		return res, fmt.Errorf("run %s: %w: the verifier image needs bash (the official images have it)", name, res.StartErr)
	case res.Canceled:
		return res, fmt.Errorf("%s: the grader was stopped", name)
	}
	return res, nil
}

// asTestUser runs a script as the test user. The script is handed over on bash's command
// line: the grader's scratch directory is private.
func (f *flow) asTestUser(ctx context.Context, name, script string, out io.Writer, timeout time.Duration, env []string, extra []*os.File) proctree.Result {
	fmt.Fprintf(f.r.Log, "[grader] %s as uid %d\n", name, f.r.TestUser.UID)
	id := f.r.TestUser
	res := steps.RunUnderTimeout(ctx, steps.Command{Path: "bash", Args: []string{"-c", script, name}, Dir: f.r.Workdir, Env: env,
		Output: out, Timeout: timeout, As: &id, ExtraFiles: extra})
	// Before the grader's git reads the repository again. A .git that cannot be put back
	// stops the grader, as a step that could not run does.
	replaced, err := f.gitDir.Check()
	switch {
	case err != nil && res.StartErr == nil:
		res.StartErr = fmt.Errorf("after %s: %w", name, err)
	case replaced:
		fmt.Fprintf(f.r.Log, "[grader] %s replaced the repository's .git: the original is back\n", name)
	}
	return res
}

func (f *flow) logGuard(step string) {
	g := f.ev.Guard
	if len(g.Restored)+len(g.Removed) > 0 {
		fmt.Fprintf(f.pre, "[grader] runner files %s changed, put back from the base: restored %v, removed %v\n", step, g.Restored, g.Removed)
	}
}

func errorReport(in GraderInput, why string) InstanceReport {
	return InstanceReport{InstanceID: in.Instance.InstanceID, Version: in.Version, Resolution: ResolvedNo, Error: why}
}
