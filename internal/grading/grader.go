// Package grading is the one place a grader is chosen: the Grader interface and the registry
// of the graders a verifier can run. The hook (verify stage and collector), the pod builder,
// `sweep-hook grade` and the trial controller look graders up here and nowhere else. The
// graders' shared steps are in internal/grading/steps.
//
// To add a grader: write its package, then one adapter type implementing Grader and one
// entry in registry (registry.go).
package grading

import (
	"context"
	"flag"
	"io"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

// Grader is one way the verifier stage grades a trial.
type Grader interface {
	// Name is the grader's name: the value of TaskTrial spec.grader and of the stage spec's
	// verifier.grader, and the NAME of `sweep-hook grade NAME`.
	Name() string
	// Version is the version of the grader's rules: it changes when grading the same input
	// can give another verdict (the constant lives in the grader's own package).
	Version() string
	// Parser names the test-output parsers the grader reads results with and their
	// versions, "" when the task's own script reads them.
	Parser() string
	// BuiltIn reports whether sweep-hook grades, rather than the task's own script. A built-in
	// grader that leaves no valid reward crashed (GraderFailed, not measured); a script that
	// leaves none is RewardMissing.
	BuiltIn() bool
	// InputDir is where the grader reads its input in the verifier when the trial has no grader
	// ConfigMap; "" when it reads none.
	InputDir() string
	// ValidateTrial checks a trial's options against what the grader can grade; the error is
	// the trial's InvalidTask message, naming the field and the fix.
	ValidateTrial(TrialOptions) error
	// Outputs are the files the grader writes in the verifier directory besides reward.json
	// and eval.json; each travels as a record of the same name.
	Outputs() []string
	// Command is how the verifier stage runs the grader.
	Command(StageInput) (Invocation, error)
	// Flags declares the options of `sweep-hook grade NAME DIR`, stored into r.
	Flags(fs *flag.FlagSet, r *Request)
	// Grade grades in this process (`sweep-hook grade NAME DIR`). An error means the grader
	// failed; its reward.json then says grader_failed.
	Grade(ctx context.Context, r Request) error
}

// TrialOptions are a trial's choices that a grader may refuse.
type TrialOptions struct {
	// Task names the task, for the error message.
	Task string
	// Bugs restricts grading to these bug ids; empty means all.
	Bugs []string
	// FlakeRechecks is spec.grading.flakeRechecks: re-runs of a visible regression (0: off).
	FlakeRechecks int32
}

// StageInput is what the verifier stage knows when it starts a grader.
type StageInput struct {
	// Self is the sweep-hook binary, which runs built-in graders as a process of their own.
	Self string
	// TestsDir holds the task's tests (tests/test.sh).
	TestsDir string
	// InputDir is the stage spec's graderDir; "" means TestsDir.
	InputDir string
	// PatchPath is where the agent's patch is after the artifacts were put back.
	PatchPath string
	// OutDir is the verifier directory, where the reward goes.
	OutDir string
	// Workdir is the task's working directory; "" means the grader's default.
	Workdir string
	// Bugs restricts grading to these bug ids; empty means all.
	Bugs []string
	// Deadline is when the grader must have written its result; zero means none. It is the
	// stage's deadline less a reserve, so that a built-in grader always reports before the
	// stage is stopped.
	Deadline time.Time
	// TestUser is the identity a built-in grader runs the build and the tests as; the zero
	// Identity leaves the grader's default (sandbox.Test).
	TestUser sandbox.Identity
	// FlakeRechecks is the stage spec's verifier.flakeRechecks (0: off); only a grader whose
	// ValidateTrial accepts it is given one.
	FlakeRechecks int32
}

// Invocation is one command: the program and its arguments.
type Invocation struct {
	Path string
	Args []string
}

// Request is one grading in this process.
type Request struct {
	// Dir is the grader's input directory (the bundle, or the SWE-bench grader directory).
	Dir       string
	PatchPath string
	OutDir    string
	// Workdir is the repository; "" means the grader's default.
	Workdir string
	Bugs    []string
	// Oracle grades with the task's own oracle patches instead of the agent's patch.
	Oracle bool
	// TestUser is the identity the build and the tests run as (sandbox.Test in a verifier).
	TestUser sandbox.Identity
	// Deadline is when the result must be written; zero means none.
	Deadline time.Time
	// FlakeRechecks re-runs a visible regression up to this many times (the bundle grader's
	// --flake-rechecks; 0: off).
	FlakeRechecks int
	// Log receives progress and the output of every command.
	Log io.Writer
}
