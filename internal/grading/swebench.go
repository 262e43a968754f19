package grading

import (
	"context"
	"flag"
	"fmt"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// sweBenchGrader is the SWE-bench grader (internal/swebench): its input, instance.json and
// grading.json, comes from the task's grader ConfigMap.
type sweBenchGrader struct{}

func (sweBenchGrader) Name() string     { return pc.GraderSWEBench }
func (sweBenchGrader) BuiltIn() bool    { return true }
func (sweBenchGrader) InputDir() string { return pc.TestsDir }
func (sweBenchGrader) Version() string  { return swebench.GraderVersion }
func (sweBenchGrader) Parser() string {
	return versioned("logparse", logparse.Version) + " " + versioned("testresults", testresults.Version)
}

// ValidateTrial refuses bug subsets (an instance is one bug, graded whole) and the flake
// re-check (the official harness's PASS_TO_PASS rule is kept as it is).
func (g sweBenchGrader) ValidateTrial(o TrialOptions) error {
	if len(o.Bugs) > 0 {
		return fmt.Errorf("spec.bugs: a SWE-bench instance is one bug and cannot be graded in part; remove task %q from spec.tasks.bugs of the SweepRun", o.Task)
	}
	return noFlakeRechecks(g.Name(), o)
}

// Outputs: the official per-instance report.json, written for completed instances only.
func (sweBenchGrader) Outputs() []string { return []string{pc.RecordSWEBenchReport} }

func (g sweBenchGrader) Command(s StageInput) (Invocation, error) {
	return builtInCommand(g.Name(), s), nil
}

func (sweBenchGrader) Flags(fs *flag.FlagSet, r *Request) {
	commonFlags(fs, r, "the model patch", "directory for report.json, reward.json and eval.json")
	fs.StringVar(&r.Workdir, "workdir", swebench.DefaultWorkdir, "the repository at the instance's base commit")
}

// Grade grades one instance. An error instance (patch did not apply, timeout, invalid run) is a
// verdict, not an error; only a grader failure is.
func (sweBenchGrader) Grade(ctx context.Context, r Request) error {
	_, err := swebench.RunGrader(ctx, swebench.GraderRun{ConfigDir: r.Dir, PatchPath: r.PatchPath, Workdir: r.Workdir,
		OutDir: r.OutDir, Log: r.Log, TestUser: r.TestUser, Deadline: r.Deadline})
	return err
}
