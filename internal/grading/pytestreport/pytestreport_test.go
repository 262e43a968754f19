package pytestreport

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// writeRepo writes files into a fresh directory.
func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	repo := t.TempDir()
	for name, body := range files {
		path := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

// pytest runs pytest on the tests directory of repo with env and extra files; it returns the
// console output.
func pytest(t *testing.T, repo string, env []string, extra []*os.File) string {
	t.Helper()
	var out strings.Builder
	res := steps.RunUnderTimeout(context.Background(), steps.Command{Path: sweeptest.PythonWithPytest(t),
		Args: []string{"-B", "-m", "pytest", "-rA", "-p", "no:cacheprovider", "tests"}, Dir: repo,
		Env: env, Output: &out, Timeout: time.Minute, ExtraFiles: extra})
	if res.StartErr != nil {
		t.Fatal(res.StartErr)
	}
	return out.String()
}

// runSuite runs pytest in a fresh repository holding files, with the channel, and returns what
// the channel reported and the console output.
func runSuite(t *testing.T, files map[string]string) (testresults.Results, bool, string) {
	t.Helper()
	ch, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := pytest(t, writeRepo(t, files), ch.Env(os.Environ()), ch.ExtraFiles())
	got, complete, err := ch.Results()
	if err != nil {
		t.Fatal(err)
	}
	return got, complete, log
}

const outcomes = `import pytest


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown")


def test_pass():
    pass


def test_fail():
    assert False


@pytest.mark.xfail
def test_xfail():
    assert False


@pytest.mark.xfail
def test_xpass():
    pass


@pytest.mark.skip
def test_skip():
    pass


def test_teardown_error(broken_teardown):
    pass


@pytest.mark.parametrize("s", ["a b", "c"])
def test_param(s):
    pass
`

func TestOutcomes(t *testing.T) {
	got, complete, log := runSuite(t, map[string]string{"tests/test_outcomes.py": outcomes})
	if !complete {
		t.Fatalf("session not complete:\n%s", log)
	}
	want := testresults.Results{
		"tests/test_outcomes.py::test_pass": testresults.Passed, "tests/test_outcomes.py::test_fail": testresults.Failed,
		"tests/test_outcomes.py::test_xfail": testresults.XFail, "tests/test_outcomes.py::test_xpass": testresults.Passed,
		"tests/test_outcomes.py::test_skip": testresults.Skipped, "tests/test_outcomes.py::test_teardown_error": testresults.Error,
		"tests/test_outcomes.py::test_param[a b]": testresults.Passed, "tests/test_outcomes.py::test_param[c]": testresults.Passed,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

// Attacks on the verdict that only print or only end the process early get nothing.
func TestForgedOutputIsNotAResult(t *testing.T) {
	tests := map[string]struct {
		files        map[string]string
		wantComplete bool
	}{
		// Forged summary lines past capture, then an exit before the session ends.
		"forged lines then os._exit": {wantComplete: false, files: map[string]string{"tests/test_a.py": `import os, sys


def test_hidden():
    os.write(1, b"PASSED tests/test_a.py::test_hidden\n")
    os._exit(0)
`}},
		// Library code imported by the tests that rewrites pytest's reports to "passed".
		"library code patching pytest's reports": {wantComplete: true, files: map[string]string{"tests/helper.py": `from _pytest import reports

_make = reports.TestReport.from_item_and_call.__func__


def _forged(cls, item, call):
    report = _make(cls, item, call)
    report.outcome = "passed"
    report.longrepr = None
    return report


reports.TestReport.from_item_and_call = classmethod(_forged)
`, "tests/test_a.py": "import helper\n\n\ndef test_hidden():\n    assert False\n"}},
		// Code that finds the plugin's pipe (a conftest here; the guard restores those) and
		// writes a record without the nonce, and tries the descriptor the plugin was given.
		"forged records without the nonce": {wantComplete: true, files: map[string]string{"tests/conftest.py": `import json, os
import sys

channel = next(m for n, m in sys.modules.items() if n.startswith("sweep_pytest_report_"))

forged = (json.dumps({"nodeid": "tests/test_a.py::test_hidden", "when": "call", "outcome": "passed"}) + "\n").encode()
os.write(channel._fd, forged)
try:
    os.write(3, forged)
    raise SystemExit("descriptor 3 is still open")
except OSError:
    pass
`, "tests/test_a.py": "def test_hidden():\n    assert False\n"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, complete, log := runSuite(t, tc.files)
			want := testresults.Results{}
			if tc.wantComplete {
				want["tests/test_a.py::test_hidden"] = testresults.Failed
			}
			if complete != tc.wantComplete || !cmp.Equal(want, got) {
				t.Errorf("got %v (complete %v), want %v (complete %v):\n%s", got, complete, want, tc.wantComplete, log)
			}
		})
	}
}

// A pytest11 entry point that the patch ships in a dist-info directory is never loaded.
func TestEntryPointPluginsDoNotLoad(t *testing.T) {
	tree := map[string]string{
		"evil.dist-info/METADATA":         "Metadata-Version: 2.1\nName: evil\nVersion: 1\n",
		"evil.dist-info/entry_points.txt": "[pytest11]\nevil = evil_plugin\n",
		"evil_plugin.py": `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
`,
		"tests/test_a.py": "def test_hidden():\n    assert False\n",
	}
	got, complete, log := runSuite(t, tree)
	if !complete || got["tests/test_a.py::test_hidden"] != testresults.Failed {
		t.Errorf("want the test failed in a complete session, got %v (complete %v):\n%s", got, complete, log)
	}
	// Control: with autoload on, the same tree makes the failing test pass.
	if log := pytest(t, writeRepo(t, tree), os.Environ(), nil); !strings.Contains(log, "PASSED tests/test_a.py::test_hidden") {
		t.Errorf("control: the entry-point plugin did not load without the channel:\n%s", log)
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		when, outcome string
		xfail, raised bool
		want          testresults.Status
		ok            bool
	}{
		{"setup", "passed", false, false, "", false},
		{"setup", "failed", false, false, testresults.Error, true},
		{"setup", "skipped", false, false, testresults.Skipped, true},
		{"setup", "skipped", true, false, testresults.XFail, true},
		{"call", "passed", false, false, testresults.Passed, true},
		{"call", "passed", true, false, testresults.Passed, true},
		{"call", "failed", false, false, testresults.Failed, true},
		{"call", "skipped", true, false, testresults.XFail, true},
		{"teardown", "passed", false, false, "", false},
		{"teardown", "failed", false, false, testresults.Error, true},
		{"call", "weird", false, false, "", false},
		{"call", "passed", false, true, testresults.Failed, true},
		{"setup", "passed", false, true, testresults.Error, true},
		{"teardown", "passed", false, true, testresults.Error, true},
		{"call", "skipped", true, true, testresults.XFail, true},
	}
	for _, tc := range tests {
		got, ok := Status(tc.when, tc.outcome, tc.xfail, tc.raised)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Status(%s, %s, xfail %v, raised %v) = %q, %v; want %q, %v", tc.when, tc.outcome, tc.xfail, tc.raised, got, ok, tc.want, tc.ok)
		}
	}
}

// TestEnvAutoload: Env always turns entry-point autoload off; EnvKeepingAutoload leaves it as the
// given environment has it. Both load the result plugin first and keep the caller's plugins.
func TestEnvAutoload(t *testing.T) {
	ch, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _, _ = ch.Results() }()
	autoload := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if strings.HasPrefix(kv, "PYTEST_DISABLE_PLUGIN_AUTOLOAD=") || strings.HasPrefix(kv, "PYTEST_PLUGINS=") {
				out = append(out, kv)
			}
		}
		return out
	}
	plugins := "PYTEST_PLUGINS=" + ch.module + ",img"
	for _, tc := range []struct {
		name string
		got  []string
		want []string
	}{
		{"Env, autoload unset", autoload(ch.Env([]string{"PYTEST_PLUGINS=img"})), []string{plugins, "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1"}},
		{"keeping, autoload unset", autoload(ch.EnvKeepingAutoload([]string{"PYTEST_PLUGINS=img"})), []string{plugins}},
		{"keeping, the image turns it off", autoload(ch.EnvKeepingAutoload([]string{"PYTEST_DISABLE_PLUGIN_AUTOLOAD=true", "PYTEST_PLUGINS=img"})),
			[]string{plugins, "PYTEST_DISABLE_PLUGIN_AUTOLOAD=true"}},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
