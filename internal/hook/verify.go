package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/regularfile"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// VerifyOptions are what the verifier stage needs besides its spec and paths.
type VerifyOptions struct {
	// Self is the sweep-hook binary, which runs built-in graders as a process of their own.
	Self string
}

// RunVerify runs the verifier stage: the artifacts put back at their paths, an empty
// verifier directory, then /tests/test.sh or a built-in grader under the stage timeout, and
// the reward file read. It writes the done file and returns the done document.
func RunVerify(ctx context.Context, spec pc.StageSpec, paths Paths, opts VerifyOptions) (Done, error) {
	d := Done{Stage: pc.StageVerifier, StartedAt: time.Now(), Timings: map[string]float64{}}
	limits := spec.Limits.WithDefaults()
	if err := emptyDir(paths.VerifierDir); err != nil {
		return d, err
	}
	log, err := newCappedLog(paths.testStdout(), limits.MaxLogBytes)
	if err != nil {
		return d, err
	}
	restoreArtifacts(spec.Artifacts, paths.Input, log)
	d.Timings["restore"] = seconds(d.StartedAt, time.Now())

	gradeStart := time.Now()
	grader, setupErr := verifierGrader(spec)
	var o outcome
	if setupErr == nil {
		o, setupErr = runVerifier(ctx, grader, spec, paths, opts, log)
	}
	d.Timings["verifier"] = seconds(gradeStart, time.Now())
	d.ExitCode = o.ExitCode
	// A grader the verifier was told to run and does not know is a grader failure.
	builtIn := grader == nil || grader.BuiltIn()
	switch {
	case setupErr != nil:
		d.ExitCode = -1
		d.Reason, d.Message = reasons.RewardMissing, setupErr.Error()
		if builtIn {
			d.Reason = reasons.GraderFailed
		}
	case o.TimedOut || o.Canceled:
		d.Reason, d.Message = reasons.VerifierTimeout, "verifier "+o.describe()
	default:
		// The exit code of test.sh does not matter (as in Harbor); the reward file does.
		// reward.Read refuses a symlinked or non-regular reward file: for test.sh that is
		// RewardMissing, for a built-in grader (which writes a regular file) GraderFailed.
		result, _, err := reward.Read(paths.VerifierDir)
		switch {
		case err != nil && builtIn:
			// A built-in grader that left no valid reward crashed: not measured, never a 0.
			d.Reason, d.Message = reasons.GraderFailed, fmt.Sprintf("grader %s: %s (%s)", spec.Verifier.Grader, err, o.describe())
			d.Rewards = reward.GraderFailed()
			if werr := writeGraderFailed(paths.rewardJSON()); werr != nil {
				log.Printf("cannot write %s: %v", reward.FileJSON, werr)
			}
		case err != nil:
			d.Reason, d.Message = reasons.RewardMissing, err.Error()
		default:
			d.Rewards = result
			if !result.Measured() {
				d.Reason, d.Message = reasons.GraderFailed, "the grader reported grader_failed"
			}
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
	stage := grading.StageInput{Self: opts.Self, TestsDir: paths.Tests, PatchPath: patchInput(spec, paths),
		OutDir: paths.VerifierDir, Workdir: spec.Workdir}
	if v := spec.Verifier; v != nil {
		stage.InputDir, stage.Bugs = v.GraderDir, v.Bugs
	}
	inv, err := grader.Command(stage)
	if err != nil {
		return outcome{}, err
	}
	return newRunner(spec, log, stageEnv(spec.Env)).run(ctx, step{}, inv.Path, inv.Args...), nil
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

// restoreArtifacts copies each artifact from the input directory back to its path. An
// artifact the agent stage did not produce is absent from the input and is logged. The input
// directory is the controller's Secret volume, whose keys are symlinks into it by design; the
// artifact path is in the task's image, and a symlink there is replaced, never written through.
func restoreArtifacts(artifacts []pc.Artifact, inputDir string, log *cappedLog) {
	for _, a := range artifacts {
		if err := copyFile(filepath.Join(inputDir, a.Key), a.Path); err != nil {
			log.Printf("artifact %s not restored: %v", a.Key, err)
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer func() { _ = in.Close() }() // read-only: its close has nothing to report
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := regularfile.Create(to, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
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
