package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

// VerifyOptions are what the verifier stage needs besides its spec and paths.
type VerifyOptions struct {
	// Self is the sweep-hook binary, which runs built-in graders as a process of their own.
	Self string
	// TestUser is the identity a built-in grader runs the build and the tests as, and whose
	// every process the stage kills when the grader has ended; the zero Identity means
	// sandbox.Test. Its gid is its uid, as `sweep-hook grade --test-uid` takes it.
	TestUser sandbox.Identity
}

func (o VerifyOptions) testUser() sandbox.Identity {
	if o.TestUser.UID == 0 {
		return sandbox.Test
	}
	return o.TestUser
}

// RunVerify runs the verifier stage: the artifacts put back at their paths, an empty
// verifier directory, then /tests/test.sh or a built-in grader under the stage timeout, and
// the reward file read. It writes the done file and returns the done document.
//
// For a built-in grader the stage first gives the verifier directory and the run directory
// to root and the hook containers' group (stageDirMode): the build and the tests run as the
// test identity, which then can neither forge the reward nor the done file the collector
// reports, nor read them (docs/security.md). When the grader has ended, every process of
// the test identity is killed, so that nothing the tests started outlives the stage. For
// test.sh, only the run directory is given to them: test.sh may write its reward as another
// user.
func RunVerify(ctx context.Context, spec pc.StageSpec, paths Paths, opts VerifyOptions) (Done, error) {
	d := Done{Stage: pc.StageVerifier, StartedAt: time.Now(), Timings: map[string]float64{}}
	limits := spec.Limits.WithDefaults()
	if err := emptyDir(paths.VerifierDir); err != nil {
		return d, err
	}
	log, err := newCappedLog(paths.testStdout(), limits.MaxLogBytes, paths.LogEcho)
	if err != nil {
		return d, err
	}
	restoreErr := restoreArtifacts(spec.Artifacts, paths.Input, log)
	d.Timings["restore"] = seconds(d.StartedAt, time.Now())

	gradeStart := time.Now()
	grader, setupErr := verifierGrader(spec)
	if restoreErr != nil {
		// Grading a patch that is not the agent's would score the wrong change.
		setupErr = restoreErr
	}
	// A grader the verifier was told to run and does not know is a grader failure.
	v := verifierResult{builtIn: grader == nil || grader.BuiltIn(), setupErr: setupErr}
	if spec.Verifier != nil {
		v.grader = spec.Verifier.Grader
	}
	switch {
	case v.setupErr != nil:
	case v.builtIn:
		v.setupErr = isolateGrader(sandbox.Check(), opts.testUser(), paths)
	default:
		// test.sh is root by Harbor's contract and writes the reward itself; what it runs as
		// another user still cannot forge the done file.
		if err := protectRunDir(sandbox.Check(), paths); err != nil {
			log.Printf("the run directory stays writable to the tests: %v", err)
		}
		if sv := spec.Verifier; sv != nil && len(sv.Bugs) > 0 {
			v.setupErr = selectSubtasks(paths.Tests, sv.Bugs)
			if v.setupErr == nil {
				log.Printf("bug subset: %s lists only the subtasks %s", filepath.Join(paths.Tests, sweepbundle.File), strings.Join(sweepbundle.Unique(sv.Bugs), ", "))
			}
		}
	}
	if v.setupErr == nil {
		v.run, v.setupErr = runVerifier(ctx, grader, spec, paths, opts, log)
	}
	if v.builtIn && v.setupErr == nil {
		// Before the results are read: a process the tests left must not change them.
		if err := sandbox.Reap(opts.testUser()); err != nil {
			log.Printf("killing the test identity's processes: %v", err)
		}
	}
	d.Timings["verifier"] = seconds(gradeStart, time.Now())
	if v.setupErr == nil && !v.run.TimedOut && !v.run.Canceled {
		v.rewards, _, v.rewardErr = reward.Read(paths.VerifierDir)
		if v.builtIn {
			v.verdict, v.verdictErr = reward.ReadVerdict(paths.VerifierDir)
		}
	}
	var writeFailed bool
	d.ExitCode = v.run.ExitCode
	if v.setupErr != nil {
		d.ExitCode = -1
	}
	d.Reason, d.Message, d.Rewards, writeFailed = v.decide()
	if writeFailed {
		if werr := writeGraderFailed(paths.rewardJSON()); werr != nil {
			log.Printf("cannot write %s: %v", reward.FileJSON, werr)
		}
	}
	if d.Message != "" {
		log.Printf("%s: %s", d.Reason, d.Message)
	}
	info, err := log.Close()
	d.Logs = map[string]LogInfo{pc.RecordTestStdout: info}
	d.FinishedAt = time.Now()
	if werr := writeDone(paths.Done, d); werr != nil {
		return d, werr
	}
	return d, err
}

// verifierResult is what the verifier stage observed of its grader.
type verifierResult struct {
	grader  string
	builtIn bool
	// setupErr says the grader could not be run at all.
	setupErr error
	run      outcome
	// The reward file and, for a built-in grader, verdict.json, read when the grader ended
	// within the timeout.
	rewards    reward.Result
	rewardErr  error
	verdict    reward.Verdict
	verdictErr error
}

// decide is the done document's reason, message and rewards. writeFailed says that a
// built-in grader left no valid result: the stage then writes grader_failed into reward.json.
func (v verifierResult) decide() (reason, message string, rewards reward.Result, writeFailed bool) {
	var subset *subsetError
	var lost *artifactsLostError
	switch {
	case errors.As(v.setupErr, &lost):
		return reasons.ArtifactsLost, lost.Error(), nil, false
	case errors.As(v.setupErr, &subset):
		return subset.reason, subset.message, nil, false
	case v.setupErr != nil && v.builtIn:
		return reasons.GraderFailed, v.setupErr.Error(), nil, false
	case v.setupErr != nil:
		return reasons.RewardMissing, v.setupErr.Error(), nil, false
	case v.run.TimedOut || v.run.Canceled:
		return reasons.VerifierTimeout, "verifier " + v.run.describe(), nil, false
	// The exit code of test.sh does not matter (as in Harbor); the reward file does.
	// reward.Read refuses a symlinked or non-regular reward file: for test.sh that is
	// RewardMissing, for a built-in grader (which writes a regular file) GraderFailed.
	case v.rewardErr != nil && v.builtIn:
		// A built-in grader that left no valid reward crashed: not measured, never a 0.
		return reasons.GraderFailed, fmt.Sprintf("grader %s: %s (%s)", v.grader, v.rewardErr, v.run.describe()), reward.GraderFailed(), true
	case v.rewardErr != nil:
		return reasons.RewardMissing, v.rewardErr.Error(), nil, false
	case !v.rewards.Measured():
		return reasons.GraderFailed, "the grader reported grader_failed", v.rewards, false
	case v.verdictErr != nil:
		// Only the grader writes the verifier directory: a verdict it cannot read is its bug.
		return reasons.GraderFailed, fmt.Sprintf("grader %s: %s", v.grader, v.verdictErr), reward.GraderFailed(), true
	}
	// A measured result with a cause the trial must show (PatchRefused, TestsHungOnPatch).
	return v.verdict.Reason, v.verdict.Message, v.rewards, false
}

// stageDirMode is the mode of the verifier directory and the run directory while a built-in
// grader runs (owner root, group podcontract.HookUID): the collector reads them through its
// group, and the test identity, in neither, cannot enter them.
const stageDirMode os.FileMode = 0o750

// isolateGrader prepares the stage for a built-in grader: it needs root (check is
// sandbox.Check's answer) to run the tests as the test identity, and the directories the
// collector reports from must be out of that identity's reach.
func isolateGrader(check error, id sandbox.Identity, paths Paths) error {
	if check != nil {
		return fmt.Errorf("the built-in grader runs the build and the tests as uid %d: %w", id.UID, check)
	}
	var errs []error
	for _, dir := range []string{paths.VerifierDir, filepath.Dir(paths.Done)} {
		errs = append(errs, restrictDir(dir))
	}
	return errors.Join(errs...)
}

// protectRunDir gives the run directory, which only the stage writes, to root and the hook
// group (check is sandbox.Check's answer: only root can).
func protectRunDir(check error, paths Paths) error {
	if check != nil {
		return check
	}
	return restrictDir(filepath.Dir(paths.Done))
}

// restrictDir makes dir root's and the hook group's, with stageDirMode; the setgid bit the
// kubelet sets on an fsGroup volume is kept (new files stay in the group).
func restrictDir(dir string) error {
	if err := os.MkdirAll(dir, stageDirMode); err != nil {
		return err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := os.Lchown(dir, 0, pc.HookUID); err != nil {
		return fmt.Errorf("stage directory %s: %w", dir, err)
	}
	return os.Chmod(dir, stageDirMode|info.Mode()&os.ModeSetgid)
}

// graderDeadline is when a built-in grader must have written its result: the stage deadline
// less a reserve of 5% of the timeout, at least 5 s, at most half of it, so that the grader
// reports before the stage stops it. A zero deadline (no timeout) stays zero.
func graderDeadline(deadline time.Time, timeout time.Duration) time.Time {
	if deadline.IsZero() {
		return deadline
	}
	reserve := min(max(5*time.Second, timeout/20), timeout/2)
	return deadline.Add(-reserve)
}

func writeGraderFailed(path string) error {
	b, err := reward.Encode(reward.GraderFailed())
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b, 0o644)
}

// verifierGrader is the grader the stage spec names; no verifier section means test.sh.
func verifierGrader(spec pc.StageSpec) (grading.Grader, error) {
	if spec.Verifier == nil {
		return grading.Lookup(pc.GraderTestScript)
	}
	return grading.Lookup(spec.Verifier.Grader)
}

// runVerifier runs the grader as the registry says. The error is set when nothing could run.
func runVerifier(ctx context.Context, grader grading.Grader, spec pc.StageSpec, paths Paths, opts VerifyOptions, log *cappedLog) (outcome, error) {
	r := newRunner(spec, log, stageEnv(spec.Env))
	stage := grading.StageInput{Self: opts.Self, TestsDir: paths.Tests, PatchPath: patchInput(spec, paths),
		OutDir: paths.VerifierDir, Workdir: spec.Workdir}
	if grader.BuiltIn() {
		stage.TestUser = opts.testUser()
		stage.Deadline = graderDeadline(r.deadline, durationOf(spec.TimeoutSeconds))
	}
	if v := spec.Verifier; v != nil {
		stage.InputDir, stage.Bugs, stage.FlakeRechecks = v.GraderDir, v.Bugs, v.FlakeRechecks
	}
	inv, err := grader.Command(stage)
	if err != nil {
		return outcome{}, err
	}
	return r.run(ctx, step{}, inv.Path, inv.Args...), nil
}

// patchInput is where the agent's patch is after the artifacts were put back.
func patchInput(spec pc.StageSpec, paths Paths) string {
	for _, a := range spec.Artifacts {
		if a.Key == pc.PatchKey {
			return a.Path
		}
	}
	return paths.Patch
}

// emptyDir creates dir or removes everything in it (the directory itself may be a mount).
func emptyDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
	}
	return errors.Join(errs...)
}
