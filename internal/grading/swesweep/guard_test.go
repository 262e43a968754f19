package swesweep

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestIsRunnerConfig(t *testing.T) {
	baseTop := map[string]bool{"calc_engine": true, "tests": true, "README.md": true, "setup.py": true, "build": true}
	for p, want := range map[string]bool{
		// pytest's and Python's configuration, wherever it is
		"conftest.py": true, "calc_engine/sub/conftest.py": true, "pytest.ini": true, "src/.pytest.ini": true,
		"tox.ini": true, "setup.cfg": true, "pyproject.toml": true, "calc_engine/sitecustomize.py": true,
		"usercustomize.py": true, "calc_engine/x.pth": true,
		// plugin metadata and caches
		"cheat-1.0.dist-info/entry_points.txt": true, "calc_engine/x.egg-info/entry_points.txt": true,
		"calc_engine/__pycache__/parser.cpython-311.pyc": true, "calc_engine/parser.pyc": true, ".pytest_cache/v/cache/lastfailed": true,
		// a new top-level module or package shadows what the runner imports
		"pytest.py": true, "_pytest/__init__.py": true, "pluggy/__init__.py": true, "py.py": true, "argparse.py": true,
		"iniconfig/x": true, "fast.cpython-311-x86_64-linux-gnu.so": true, "mod.abi3.so": true, "__init__.py": true,
		"données.py": true,
		// the project's own modules, new or not, and files that are no module
		"calc_engine/newmod.py": false, "calc_engine/pytest.py": false, "setup.py": false, "README.md": false,
		"build/lib/x.py": false, "NOTES.txt": false, "data.bin": false, "out.d/report.xml": false, "1abc.py": false,
		"my-module.py": false, ".hidden/x.py": false,
	} {
		if got := isRunnerConfig(p, baseTop); got != want {
			t.Errorf("isRunnerConfig(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestReadDifferently(t *testing.T) {
	for name, tc := range map[string]struct {
		git, headers []string
		differ       bool
	}{
		"same":               {git: []string{"a.py", "b.py"}, headers: []string{"b.py", "a.py", "a.py"}},
		"mnemonic prefix":    {git: []string{"conftest.py"}, headers: []string{"c/conftest.py", "i/conftest.py"}, differ: true},
		"no diff --git line": {git: []string{"conftest.py"}, differ: true},
		"git strips a dir":   {git: []string{"conftest.py"}, headers: []string{"tests/conftest.py"}, differ: true},
		"both read no file":  {},
		"headers name a file git does not change": {git: []string{"a.py"}, headers: []string{"a.py", "b.py"}, differ: true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := readDifferently(tc.git, tc.headers) != ""; got != tc.differ {
				t.Errorf("readDifferently(%q, %q) differ = %v, want %v", tc.git, tc.headers, got, tc.differ)
			}
		})
	}
}

func TestAttributeHang(t *testing.T) {
	for name, tc := range map[string]struct {
		rerun *StepReport
		want  hangCause
	}{
		"no time left to rerun":            {rerun: nil, want: hangNotMeasured},
		"the unpatched tree hangs too":     {rerun: &StepReport{TimedOut: true, ExitCode: -1}, want: hangNotMeasured},
		"the grading was stopped":          {rerun: &StepReport{Canceled: true, ExitCode: -1}, want: hangNotMeasured},
		"the rerun could not start":        {rerun: &StepReport{StartError: "fork/exec: no such file", ExitCode: -1}, want: hangNotMeasured},
		"the unpatched tree passes":        {rerun: &StepReport{ExitCode: 0}, want: hangOnPatch},
		"the unpatched tree fails in time": {rerun: &StepReport{ExitCode: 1}, want: hangOnPatch},
	} {
		t.Run(name, func(t *testing.T) {
			if got := attributeHang(tc.rerun); got != tc.want {
				t.Errorf("attributeHang = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStepAndRerunLimits(t *testing.T) {
	s := time.Second
	for name, tc := range map[string]struct {
		own, left, wantStep, wantRerun time.Duration
	}{
		"plenty of time: the step's own limit": {own: 120 * s, left: 3600 * s, wantStep: 120 * s, wantRerun: 120 * s},
		"the deadline halves what is left":     {own: 3600 * s, left: 620 * s, wantStep: 300 * s, wantRerun: 300 * s},
		"no time left":                         {own: 120 * s, left: 10 * s, wantStep: -5 * s, wantRerun: -5 * s},
	} {
		t.Run(name, func(t *testing.T) {
			step := stepLimit(tc.own, tc.left)
			// The rerun starts once the step has used its limit.
			rerun := rerunLimit(step, tc.left-step)
			if d := cmp.Diff([]time.Duration{tc.wantStep, tc.wantRerun}, []time.Duration{step, rerun}); d != "" {
				t.Errorf("limits (-want +got):\n%s", d)
			}
			if step > 0 && step+rerun+deadlineReserve > tc.left {
				t.Errorf("step %s and rerun %s do not fit in %s with the reserve", step, rerun, tc.left)
			}
		})
	}
}

func TestUntrustedEnv(t *testing.T) {
	got := untrustedEnv([]string{"PATH=/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=", "PYTHONNOUSERSITE=0", "PYTHONPATH=/x"})
	want := []string{"PATH=/bin", "PYTHONPATH=/x", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("untrustedEnv (-want +got):\n%s", d)
	}
}

func TestHeadWriter(t *testing.T) {
	var got strings.Builder
	w := &headWriter{w: &got, left: 5}
	for _, chunk := range []string{"abc", "defg", "hij"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v; want the whole chunk taken", chunk, n, err)
		}
	}
	if got.String() != "abcde" {
		t.Errorf("kept %q, want the first 5 bytes", got.String())
	}
}
