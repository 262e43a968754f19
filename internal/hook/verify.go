package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
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
	o, setupErr := runVerifier(ctx, spec, paths, opts, log)
	d.Timings["verifier"] = seconds(gradeStart, time.Now())
	d.ExitCode = o.ExitCode
	builtIn := spec.Verifier != nil && spec.Verifier.Grader != pc.GraderTestScript
	switch {
	case setupErr != nil:
		d.ExitCode = -1
		d.Reason, d.Message = pc.ReasonRewardMissing, setupErr.Error()
		if builtIn {
			d.Reason = pc.ReasonGraderFailed
		}
	case o.TimedOut || o.Canceled:
		d.Reason, d.Message = pc.ReasonVerifierTimeout, "verifier "+o.describe()
	default:
		// The exit code of test.sh does not matter (as in Harbor); the reward file does.
		result, err := reward.Read(paths.VerifierDir)
		switch {
		case err != nil && builtIn:
			// A built-in grader that left no valid reward crashed: not measured, never a 0.
			d.Reason, d.Message = pc.ReasonGraderFailed, fmt.Sprintf("grader %s: %s (%s)", spec.Verifier.Grader, err, o.describe())
			d.Rewards = reward.GraderFailed()
			if werr := writeGraderFailed(paths.rewardJSON()); werr != nil {
				log.Printf("cannot write %s: %v", reward.FileJSON, werr)
			}
		case err != nil:
			d.Reason, d.Message = pc.ReasonRewardMissing, err.Error()
		default:
			d.Rewards = result
			if !result.Measured() {
				d.Reason, d.Message = pc.ReasonGraderFailed, "the grader reported grader_failed"
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

// runVerifier runs test.sh or the built-in grader. The error is set when nothing could run.
func runVerifier(ctx context.Context, spec pc.StageSpec, paths Paths, opts VerifyOptions, log *cappedLog) (outcome, error) {
	r := newRunner(spec, log, stageEnv(spec.Env))
	v := spec.Verifier
	if v == nil || v.Grader == pc.GraderTestScript {
		script := filepath.Join(paths.Tests, "test.sh")
		if _, err := os.Stat(script); err != nil {
			return outcome{}, fmt.Errorf("no test script: %w", err)
		}
		sh, err := shell()
		if err != nil {
			return outcome{}, err
		}
		return r.run(ctx, step{}, sh, script), nil
	}
	if v.Grader != pc.GraderSWESweep && v.Grader != pc.GraderSWEBench {
		return outcome{}, fmt.Errorf("unknown built-in grader %q", v.Grader)
	}
	bundle := v.GraderDir
	if bundle == "" {
		bundle = paths.Tests
	}
	args := []string{"grade", v.Grader, bundle, "--patch", patchInput(spec, paths), "--out", paths.VerifierDir}
	if spec.Workdir != "" {
		args = append(args, "--workdir", spec.Workdir)
	}
	if len(v.Bugs) > 0 {
		args = append(args, "--bugs", strings.Join(v.Bugs, ","))
	}
	return r.run(ctx, step{}, opts.Self, args...), nil
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
// artifact the agent stage did not produce is absent from the input and is logged.
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
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
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
