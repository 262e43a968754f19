package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
)

// The API server starts only for the tests that need it (completion from the cluster). With
// runMainEnv set the test binary is sweep itself, for tests that run it under another name.
func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) != "" {
		main()
		os.Exit(0)
	}
	clitest.Main(m)
}

// execute runs sweep with args; stdout and stderr are returned apart, as a script would see
// them.
func execute(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}
