package grading

import (
	"context"
	"flag"

	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// bundleGrader is SWE-sweep's bundle grader (internal/grading/swesweep): the bundle is the
// task's tests directory.
type bundleGrader struct{}

func (bundleGrader) Name() string                     { return pc.GraderSWESweep }
func (bundleGrader) BuiltIn() bool                    { return true }
func (bundleGrader) InputDir() string                 { return pc.TestsDir }
func (bundleGrader) Version() string                  { return swesweep.GraderVersion }
func (bundleGrader) Parser() string                   { return versioned("testresults", testresults.Version) }
func (bundleGrader) ValidateTrial(TrialOptions) error { return nil }
func (bundleGrader) Outputs() []string                { return nil }

func (g bundleGrader) Command(s StageInput) (Invocation, error) {
	return builtInCommand(g.Name(), s), nil
}

func (bundleGrader) Flags(fs *flag.FlagSet, r *Request) {
	commonFlags(fs, r, "the agent's patch", "directory for reward.json and eval.json")
	fs.StringVar(&r.Workdir, "workdir", "", "repository (default: the bundle's workdir)")
	fs.Var(bugList{&r.Bugs}, "bugs", "comma-separated bug ids to grade (default: all)")
	fs.BoolVar(&r.Oracle, "oracle", false, "grade each bug with its own oracle patch")
}

func (bundleGrader) Grade(ctx context.Context, r Request) error {
	_, err := swesweep.Run(ctx, swesweep.Options{BundleDir: r.Dir, Workdir: r.Workdir, PatchPath: r.PatchPath,
		OutDir: r.OutDir, Bugs: r.Bugs, Oracle: r.Oracle, TestUser: r.TestUser, Deadline: r.Deadline, Log: r.Log})
	return err
}
