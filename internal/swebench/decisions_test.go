package swebench

import (
	"context"
	"encoding/json"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

func TestTestBudget(t *testing.T) {
	tests := map[string]struct {
		instanceLeft, untilDeadline time.Duration
		hasDeadline                 bool
		want                        time.Duration
		wantCut                     bool
	}{
		"no deadline: the instance's timeout":       {instanceLeft: 30 * time.Minute, want: 30 * time.Minute},
		"a far deadline: the instance's timeout":    {instanceLeft: 10 * time.Minute, untilDeadline: time.Hour, hasDeadline: true, want: 10 * time.Minute},
		"exactly enough: the instance's timeout":    {instanceLeft: time.Minute, untilDeadline: time.Minute + DeadlineReserve, hasDeadline: true, want: time.Minute},
		"a near deadline: half, the rest for rerun": {instanceLeft: 30 * time.Minute, untilDeadline: 10*time.Minute + DeadlineReserve, hasDeadline: true, want: 5 * time.Minute, wantCut: true},
		"the deadline already within the reserve":   {instanceLeft: time.Minute, untilDeadline: DeadlineReserve / 2, hasDeadline: true, want: -DeadlineReserve / 4, wantCut: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, cut := testBudget(tc.instanceLeft, tc.untilDeadline, tc.hasDeadline)
			if got != tc.want || cut != tc.wantCut {
				t.Errorf("testBudget = %v, %v; want %v, %v", got, cut, tc.want, tc.wantCut)
			}
		})
	}
}

func TestHangAttribution(t *testing.T) {
	yes, no := true, false
	tests := map[string]struct {
		cut      bool
		finished *bool
		want     hangOutcome
	}{
		"the instance's own timeout: an error instance, as officially": {want: hangOfficial},
		"own timeout, whatever a rerun did":                            {finished: &yes, want: hangOfficial},
		"the deadline, and the unpatched tree finished: the patch's":   {cut: true, finished: &yes, want: hangOnPatch},
		"the deadline, and the unpatched tree hung too: not measured":  {cut: true, finished: &no, want: hangNotMeasured},
		"the deadline, and no time for a rerun: not measured":          {cut: true, want: hangNotMeasured},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := hangAttribution(tc.cut, tc.finished); got != tc.want {
				t.Errorf("hangAttribution = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRunnerFilesMatch(t *testing.T) {
	patchGuard := runnerFiles{modules: []string{"pytest_mock"}}
	tests := map[string]struct {
		files runnerFiles
		path  string
		want  string
	}{
		"conftest.py anywhere":                  {files: patchGuard, path: "a/b/conftest.py", want: "conftest.py"},
		"conftest.py when allowed":              {files: runnerFiles{allowConftest: true}, path: "tests/conftest.py"},
		"pytest.ini in a subdirectory":          {files: patchGuard, path: "tests/pytest.ini", want: "runner configuration"},
		"pyproject.toml":                        {files: patchGuard, path: "pyproject.toml", want: "runner configuration"},
		"sitecustomize.py":                      {files: patchGuard, path: "src/sitecustomize.py", want: "runner configuration"},
		"a .pth file":                           {files: patchGuard, path: "evil.pth", want: "start-up path file"},
		"a dist-info's file":                    {files: patchGuard, path: "x/evil-1.0.dist-info/entry_points.txt", want: "installed-package metadata"},
		"an egg-info's entry points":            {files: patchGuard, path: "evil.egg-info/entry_points.txt", want: "installed-package metadata"},
		"an egg-info's other file":              {files: patchGuard, path: "calc.egg-info/PKG-INFO"},
		"top-level pytest.py":                   {files: patchGuard, path: "pytest.py", want: "shadows the module pytest"},
		"top-level pytest.pyc":                  {files: patchGuard, path: "pytest.pyc", want: "shadows the module pytest"},
		"top-level _pytest package":             {files: patchGuard, path: "_pytest/__init__.py", want: "shadows the module _pytest"},
		"top-level pluggy":                      {files: patchGuard, path: "pluggy.py", want: "shadows the module pluggy"},
		"top-level py package":                  {files: patchGuard, path: "py/__init__.py", want: "shadows the module py"},
		"an image plugin's module":              {files: patchGuard, path: "pytest_mock/plugin.py", want: "shadows the module pytest_mock"},
		"pytest.py deeper down":                 {files: patchGuard, path: "src/pytest.py"},
		"ordinary source":                       {files: patchGuard, path: "calc.py"},
		"a build's package metadata is its own": {files: runnerFiles{build: true}, path: "calc.egg-info/entry_points.txt"},
		"a build's .pth is its own":             {files: runnerFiles{build: true}, path: "build/x.pth"},
		"a build's conftest.py is not":          {files: runnerFiles{build: true}, path: "tests/conftest.py", want: "conftest.py"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := tc.files.Match(tc.path); got != tc.want {
				t.Errorf("Match(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestPytestRunner(t *testing.T) {
	tests := map[string]string{
		"pytest -rA":                                    "pytest",
		"pytest --no-header -rA":                        "pytest",
		"/usr/bin/python3 -m pytest -rA":                "/usr/bin/python3",
		"PYTHONWARNINGS=ignore py.test -rA":             "py.test",
		"./tests/runtests.py --verbosity 2":             "",
		"tox --current-env -epy39 -v --":                "",
		"PYTHONWARNINGS='ignore' bin/test -C --verbose": "",
		"python -c 'import pytest'":                     "",
	}
	for cmd, want := range tests {
		if got := pytestRunner(cmd); got != want {
			t.Errorf("pytestRunner(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestBoundedCapture(t *testing.T) {
	tests := map[string]struct {
		writes      []string
		head, tail  int
		want        string
		wantDropped int64
	}{
		"fits":                   {writes: []string{"abc", "def"}, head: 4, tail: 4, want: "abcdef"},
		"head and tail":          {writes: []string{"0123", "456789"}, head: 3, tail: 3, want: "012\n[grader] 4 bytes of output left out here\n789", wantDropped: 4},
		"one large write":        {writes: []string{"0123456789"}, head: 2, tail: 2, want: "01\n[grader] 6 bytes of output left out here\n89", wantDropped: 6},
		"small writes wrap ring": {writes: []string{"01", "23", "45", "67", "89"}, head: 1, tail: 3, want: "0\n[grader] 6 bytes of output left out here\n789", wantDropped: 6},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var forwarded strings.Builder
			c := newBoundedCapture(&forwarded, tc.head, tc.tail)
			for _, w := range tc.writes {
				if _, err := c.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, c.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
			if c.Dropped() != tc.wantDropped || forwarded.String() != strings.Join(tc.writes, "") {
				t.Errorf("dropped %d (want %d), forwarded %q", c.Dropped(), tc.wantDropped, forwarded.String())
			}
		})
	}
}

// BenchmarkCaptureLargeOutput streams 600 MB of test output through the capture the grader
// keeps and reports the peak heap: it stays near TestOutputHeadBytes+TestOutputTailBytes
// whatever the output's size (the whole log used to be held: 1.9 GB RSS for 600 MB).
func BenchmarkCaptureLargeOutput(b *testing.B) {
	line := []byte(strings.Repeat("x", 99) + "\n")
	const total = 600 << 20
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		c := newBoundedCapture(io.Discard, TestOutputHeadBytes, TestOutputTailBytes)
		var peak uint64
		for written := 0; written < total; written += len(line) * 1000 {
			for range 1000 {
				_, _ = c.Write(line)
			}
			if written%(64<<20) < len(line)*1000 {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
			}
		}
		text := c.Text()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
		b.ReportMetric(float64(peak-min(peak, before.HeapAlloc))/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(len(text))/(1<<20), "kept-MB")
	}
}

// BenchmarkGraderLargeOutput grades a run whose test command prints 600 MB and reports this
// process's peak resident set (VmHWM): the grader keeps a bounded head and tail of the output
// (TestOutputHeadBytes + TestOutputTailBytes), never the whole of it.
func BenchmarkGraderLargeOutput(b *testing.B) {
	if err := sandbox.Check(); err != nil {
		b.Fatalf("this benchmark runs the tests as uid %d and needs root: %v", testUser.UID, err)
	}
	for b.Loop() {
		dir := sweeptest.Reachable(b, b.TempDir())
		repo := filepath.Join(dir, "repo")
		env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=s", "GIT_AUTHOR_EMAIL=s@example.com", "GIT_COMMITTER_NAME=s", "GIT_COMMITTER_EMAIL=s@example.com")
		run := func(script string) string {
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir, cmd.Env = repo, env
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%s: %v\n%s", script, err, out)
			}
			return string(out)
		}
		if err := os.MkdirAll(filepath.Join(repo, "tests"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "calc.py"), []byte("x = 1\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		run("git init -q && git add -A && git commit -qm base")
		baseCommit := strings.TrimSpace(run("git rev-parse HEAD"))
		if err := os.WriteFile(filepath.Join(repo, "tests/test_x.py"), []byte("def test_x():\n    pass\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		testPatch := run("git add -A && git diff --cached && git reset -q --hard && git clean -fdq")
		if err := os.WriteFile(filepath.Join(repo, "calc.py"), []byte("x = 2\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		modelPatch := run("git diff && git checkout -q -- .")
		inst := Instance{InstanceID: "big__big-1", Repo: "pytest-dev/pytest", BaseCommit: baseCommit, TestPatch: testPatch,
			FailToPass: []string{"tests/test_x.py::test_x"}}
		none, directives := []string{}, []string{}
		// 600 MB of lines, then the one result line; bash is not known as pytest, so the grader
		// parses its capture.
		cfg := GradingConfig{GradingVersion: "5", TimeoutSec: 600, Setup: &none, Directives: &directives,
			TestCommand: "bash -c 'head -c 629145600 /dev/zero | tr \"\\0\" x | fold -w 99; echo; echo PASSED tests/test_x.py::test_x; echo \"=== 1 passed in 1s ===\"'"}
		configDir := filepath.Join(dir, "grader")
		if err := os.Mkdir(configDir, 0o700); err != nil {
			b.Fatal(err)
		}
		for name, v := range map[string]any{InstanceFile: inst, GradingFile: cfg} {
			data, _ := json.Marshal(v)
			if err := os.WriteFile(filepath.Join(configDir, name), data, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		patchPath := filepath.Join(dir, "model.patch")
		if err := os.WriteFile(patchPath, []byte(modelPatch), 0o644); err != nil {
			b.Fatal(err)
		}
		got, err := RunGrader(context.Background(), GraderRun{ConfigDir: configDir, PatchPath: patchPath, Workdir: repo, OutDir: filepath.Join(dir, "out"),
			Env: env, TestUser: testUser})
		if err != nil || got[reward.KeyResolved] != 1 {
			ev, _ := os.ReadFile(filepath.Join(dir, "out", "eval.json"))
			b.Fatalf("reward %v, error %v: want the run graded from the tail of its output\n%s", got, err, ev)
		}
		status, err := os.ReadFile("/proc/self/status")
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.Split(string(status), "\n") {
			if kb, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
				b.ReportMetric(float64(n)/1024, "peak-RSS-MB")
			}
		}
	}
}
