package grading

import (
	"context"
	"flag"
	"fmt"

	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// bundleGrader is SWE-sweep's bundle grader (internal/grading/swesweep): the bundle is the
// task's tests directory.
type bundleGrader struct{}

func (bundleGrader) Name() string      { return pc.GraderSWESweep }
func (bundleGrader) BuiltIn() bool     { return true }
func (bundleGrader) InputDir() string  { return pc.TestsDir }
func (bundleGrader) Version() string   { return swesweep.GraderVersion }
func (bundleGrader) Parser() string    { return versioned("testresults", testresults.Version) }
func (bundleGrader) Outputs() []string { return nil }

// ValidateTrial accepts any bug subset and a flake re-check up to swesweep.MaxFlakeRechecks.
func (bundleGrader) ValidateTrial(o TrialOptions) error {
	if o.FlakeRechecks < 0 || o.FlakeRechecks > swesweep.MaxFlakeRechecks {
		return fmt.Errorf("spec.grading.flakeRechecks is %d: give 0 (off) to %d re-runs of a visible regression", o.FlakeRechecks, swesweep.MaxFlakeRechecks)
	}
	return nil
}

func (g bundleGrader) Command(s StageInput) (Invocation, error) {
	return builtInCommand(g.Name(), s), nil
}

func (bundleGrader) Flags(fs *flag.FlagSet, r *Request) {
	commonFlags(fs, r, "the agent's patch", "directory for reward.json and eval.json")
	fs.StringVar(&r.Workdir, "workdir", "", "repository (default: the bundle's workdir)")
	fs.Var(bugList{&r.Bugs}, "bugs", "comma-separated bug ids to grade (default: all)")
	fs.BoolVar(&r.Oracle, "oracle", false, "grade each bug with its own oracle patch")
	fs.IntVar(&r.FlakeRechecks, FlakeRechecksFlag, 0, fmt.Sprintf("re-run a visible test that passed at the base and fails now up to N times (at most %d); it is no regression when it passes once (default 0: off, as SWE-sweep counts it)", swesweep.MaxFlakeRechecks))
}

func (bundleGrader) Grade(ctx context.Context, r Request) error {
	_, err := swesweep.Run(ctx, swesweep.Options{BundleDir: r.Dir, Workdir: r.Workdir, PatchPath: r.PatchPath,
		OutDir: r.OutDir, Bugs: r.Bugs, Oracle: r.Oracle, TestUser: r.TestUser, Deadline: r.Deadline,
		FlakeRechecks: r.FlakeRechecks, Log: r.Log})
	return err
}
