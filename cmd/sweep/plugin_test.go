package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func executeAs(t *testing.T, argv0 string, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	setDisplayName(cmd, argv0)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// Run as kubectl-sweep (kubectl's plugin), usage and errors say `kubectl sweep`; run under any
// other name, `sweep`.
func TestPluginDisplayName(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/local/bin/kubectl-sweep":    "kubectl sweep",
		"kubectl-sweep.exe":               "kubectl sweep",
		"kubectl-sweep":                   "kubectl sweep",
		"/usr/local/bin/sweep":            "sweep",
		"./bin/sweep":                     "sweep",
		"/usr/local/bin/kubectl-sweep-v2": "sweep",
	} {
		t.Run(argv0, func(t *testing.T) {
			out, err := executeAs(t, argv0, "info", "--help")
			if err != nil || !strings.Contains(out, "Usage:\n  "+want+" info NAME|DIR|STORE_URL...") {
				t.Errorf("info --help as %s: %v\n%s", argv0, err, out)
			}
			_, err = executeAs(t, argv0, "nosuchverb")
			sweeptest.ErrorContains(t, err, `unknown command "nosuchverb" for "`+want+`"`)
		})
	}
}

// runMainEnv makes the test binary run main, so that tests run it under other names.
const runMainEnv = "SWEEP_TEST_RUN_MAIN"

// kubectl finds the binary as kubectl-sweep on PATH and runs it with the rest of the command
// line: a symlink named so behaves as the plugin.
func TestPluginSymlink(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(t.TempDir(), pluginBinary)
	if err := os.Symlink(bin, plugin); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), runMainEnv+"=1")
		return cmd.CombinedOutput()
	}
	out, err := run(plugin, "version", "--help")
	if err != nil || !strings.Contains(string(out), "Usage:\n  kubectl sweep version [--client]") {
		t.Errorf("kubectl-sweep version --help: %v\n%s", err, out)
	}
	out, err = run(plugin, "nosuchverb")
	if err == nil || !strings.Contains(string(out), `error: unknown command "nosuchverb" for "kubectl sweep"`) {
		t.Errorf("kubectl-sweep nosuchverb: %v\n%s", err, out)
	}
}
