package grading

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swe-sweep/sweep-operator/internal/proctree"
)

// TestScriptName is the grader that runs the task's own tests/test.sh, as Harbor does.
const TestScriptName = "test-script"

// TestScriptVersion is the version of how the verifier runs tests/test.sh and reads the
// reward file it leaves. Bump it with any change that can give the same script's run another
// reward.
const TestScriptVersion = "1"

// testScript is the task's own tests/test.sh, run with bash (or sh) in the workdir. Its exit
// code does not matter; the reward file it writes does.
type testScript struct{}

func (testScript) Name() string                  { return TestScriptName }
func (testScript) BuiltIn() bool                 { return false }
func (testScript) InputDir() string              { return "" }
func (testScript) Version() string               { return TestScriptVersion }
func (testScript) Parser() string                { return "" }
func (testScript) Outputs() []string             { return nil }
func (testScript) Flags(*flag.FlagSet, *Request) {}

// ValidateTrial refuses the flake re-check: the task's own script grades.
func (g testScript) ValidateTrial(o TrialOptions) error { return noFlakeRechecks(g.Name(), o) }

func (testScript) Command(s StageInput) (Invocation, error) {
	script := filepath.Join(s.TestsDir, "test.sh")
	if _, err := os.Stat(script); err != nil {
		return Invocation{}, fmt.Errorf("no test script: %w", err)
	}
	sh, err := proctree.Shell()
	if err != nil {
		return Invocation{}, err
	}
	return Invocation{Path: sh, Args: []string{script}}, nil
}

func (testScript) Grade(context.Context, Request) error {
	return fmt.Errorf("%s is the task's own tests/test.sh, which the verifier stage runs itself: `sweep-hook grade` runs only built-in graders", TestScriptName)
}
