package swesweep

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// The tests of this file each show one rule of SWE-sweep's grader that ours follows
// (docs/task-format.md, "SWE-sweep parity").

// targetedRun makes bug_tests run the test files of the bug's test patch narrowed to the test
// functions it adds, as SWE-sweep's pytest suite does.
func targetedRun(b *Bundle) {
	b.BugTests.Command.Command = strings.Replace(b.BugTests.Command.Command, "{tests}", "{files} {names}", 1)
}

// TestParityBugJudgedOverItsWholeRun: a bug is judged over every test its targeted run
// reports; a fail-to-pass test the run does not report counts as neither passed nor failed.
func TestParityBugJudgedOverItsWholeRun(t *testing.T) {
	runAgentCases(t, []agentCase{
		{name: "the targeted run is the test patch's files narrowed to its test functions", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			edit: targetedRun,
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				add := ev.Bugs[0]
				if d := cmp.Diff([]string{"tests/test_bug_add.py"}, add.Files); d != "" {
					t.Errorf("files (-want +got):\n%s", d)
				}
				if d := cmp.Diff([]string{"test_add", "test_add_negative"}, add.Targeted); d != "" {
					t.Errorf("targeted (-want +got):\n%s", d)
				}
				if !strings.HasSuffix(add.Suite.Command, " 'tests/test_bug_add.py' -k 'test_add or test_add_negative'") {
					t.Errorf("command = %q", add.Suite.Command)
				}
			}},
		{name: "a fail-to-pass test missing from the run counts as neither", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			edit: func(b *Bundle) {
				targetedRun(b)
				b.Bugs[0].FailToPass = append(b.Bugs[0].FailToPass, "tests/test_bug_add.py::test_add_gone")
			},
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if d := cmp.Diff([]string{"tests/test_bug_add.py::test_add_gone"}, ev.Bugs[0].Missing); d != "" {
					t.Errorf("missing (-want +got):\n%s", d)
				}
			}},
		// test_add_negative is no fail-to-pass test of the bug here, but its run reports it
		// failing: the bug is neither resolved nor partial.
		{name: "another test of the run that fails leaves the bug unresolved and not partial", edits: map[string]string{"calc.py": calc(partialAdd, fixedMul, "")},
			edit: func(b *Bundle) {
				targetedRun(b)
				b.Bugs[0].FailToPass = []string{"tests/test_bug_add.py::test_add"}
			},
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				add := ev.Bugs[0]
				if d := cmp.Diff([]string{"tests/test_bug_add.py::test_add_negative"}, add.P2PFailed); d != "" || add.Resolved || add.Partial {
					t.Errorf("bug add = %+v; p2p failed (-want +got):\n%s", add, d)
				}
			}},
		{name: "partial: a fail-to-pass test passed and no other test failed", edits: map[string]string{"calc.py": calc(partialAdd, fixedMul, "")},
			edit: targetedRun,
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, NPartial: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
		{name: "a test patch that leaves no test file resolves nothing", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			edit: func(b *Bundle) {
				b.BugTests.Command.Command = "true {files}"
				b.BugTests.Format = "pytest"
			},
			want: Reward{NSubtasks: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
	})
}

// TestParityEvalJSON: eval.json carries SWE-sweep's fields, the visible-test map among them,
// so that a trial can be re-scored offline.
func TestParityEvalJSON(t *testing.T) {
	runAgentCases(t, []agentCase{
		{name: "full fix", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, ""), "notes.txt": "x\n"},
			edit: func(b *Bundle) { b.Version = "v3" },
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				s := ev.SweepEval
				if s.Version != "v3" || s.Oracle || s.Score != 1 || !s.VisibleOK || !s.AgentPatchApplied || !s.AgentBuildOK ||
					s.AgentPatchError != nil || s.NSubtasks != 2 || s.NResolved != 2 || s.NPartial != 0 || len(s.EvaluatedAt) != len("20060102T150405") {
					t.Errorf("SWE-sweep fields = %+v", s)
				}
				want := map[string]string{"tests/test_visible.py::test_neg": "passed", "tests/test_visible.py::test_add_zero": "passed"}
				if d := cmp.Diff(want, ev.VisibleTests); d != "" {
					t.Errorf("visible_tests (-want +got):\n%s", d)
				}
				wantBug := SweepBug{SubtaskID: "mul", Resolved: true, TestApplied: true, Targeted: []string{"test_mul"}, NPassed: 1,
					Detail: map[string]any{}, HasSplit: true, F2PPassed: []string{"tests/test_bug_mul.py::test_mul"},
					P2PPassed: []string{}, F2PFailed: []string{}, P2PFailed: []string{}}
				if len(s.Subtasks) != 2 {
					t.Fatalf("subtasks = %+v", s.Subtasks)
				}
				got := s.Subtasks[1]
				got.DurationS = 0
				if d := cmp.Diff(wantBug, got); d != "" {
					t.Errorf("subtask mul (-want +got):\n%s", d)
				}
				wantStats := &PatchSummary{FilesEdited: []string{"calc.py", "notes.txt"}, LinesAdded: 3, LinesRemoved: 2,
					TargetFiles: []string{"calc.py"}, OnTargetFiles: []string{"calc.py"}, OffTargetFiles: []string{"notes.txt"}, TargetCoveragePct: 100}
				if d := cmp.Diff(wantStats, s.PatchSummary); d != "" {
					t.Errorf("patch_stats (-want +got):\n%s", d)
				}
			}},
		{name: "no patch: nothing to apply is applied", edits: nil, want: Reward{NSubtasks: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if ev.AgentPatchError != nil || !ev.AgentPatchApplied || !ev.Patch.Applied || ev.Patch.Present {
					t.Errorf("no patch: %+v, %+v", ev.SweepEval, ev.Patch)
				}
			}},
	})
}

// TestParityRevertedEdits: the agent's edits to test files by SWE-sweep's rule are undone
// whatever the bundle's test_paths say (a helper in a nested tests/ directory), and so is
// runner configuration, which SWE-sweep leaves (pyproject.toml, setup.cfg: a defense kept).
func TestParityRevertedEdits(t *testing.T) {
	files := map[string]string{"pkg/__init__.py": "", "pkg/tests/__init__.py": "", "pkg/tests/helpers.py": "EXPECTED = -2\n"}
	for k, v := range baseFiles {
		files[k] = v
	}
	files["tests/test_visible.py"] += "\n\ndef test_helper():\n    from pkg.tests.helpers import EXPECTED\n    assert neg(2) == EXPECTED\n"
	f := newFixtureOf(t, files, func(b *Bundle) { b.TestPaths = []string{"tests/**"} })
	sweeptest.WriteFiles(t, f.bundle, map[string]string{"base_tests.json": `["tests/test_visible.py::test_neg", "tests/test_visible.py::test_add_zero", "tests/test_visible.py::test_helper"]`})
	patch := f.agentPatch(t, map[string]string{
		"calc.py":              calc(fixedAdd, fixedMul, brokenNeg),
		"pkg/tests/helpers.py": "EXPECTED = 2\n",
		"pyproject.toml":       "[tool.pytest.ini_options]\naddopts = \"-k 'not test_neg and not test_helper'\"\n",
		"setup.cfg":            "[tool:pytest]\naddopts = -k 'not test_neg'\n",
	})
	out := t.TempDir()
	got, err := Run(context.Background(), f.options(patch, out))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Reward{NSubtasks: 2, NResolved: 2, NRegressions: 2, AgentPatchApplied: 1, AgentBuildOK: 1}.Result(), got); d != "" {
		t.Errorf("reward (-want +got):\n%s", d)
	}
	var ev Eval
	sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
	if d := cmp.Diff([]string{"pkg/tests/helpers.py"}, ev.Patch.RestoredTestFiles); d != "" {
		t.Errorf("restored (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"pyproject.toml", "setup.cfg"}, ev.Patch.RemovedTestFiles); d != "" {
		t.Errorf("removed (-want +got):\n%s", d)
	}
}

// TestParitySetup: the setup command runs once on the pristine tree before anything else; what
// it leaves ignored stays for the build, and a failure is the grader's.
func TestParitySetup(t *testing.T) {
	files := map[string]string{".gitignore": "*.done\n"}
	for k, v := range baseFiles {
		files[k] = v
	}
	t.Run("runs before the build", func(t *testing.T) {
		f := newFixtureOf(t, files, func(b *Bundle) {
			b.Setup = &Command{Command: "touch setup.done"}
			b.Build = &Command{Command: "test -f setup.done"}
		})
		out := t.TempDir()
		got, err := Run(context.Background(), f.options(f.agentPatch(t, map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")}), out))
		if err != nil {
			t.Fatal(err)
		}
		if got["reward"] != 1 {
			t.Errorf("reward = %v", got)
		}
		var ev Eval
		sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
		if ev.Setup == nil || ev.Setup.ExitCode != 0 || ev.Setup.LimitSec != 600 {
			t.Errorf("setup = %+v", ev.Setup)
		}
	})
	t.Run("a failure is the grader's", func(t *testing.T) {
		f := newFixtureOf(t, files, func(b *Bundle) { b.Setup = &Command{Command: "exit 3"} })
		_, err := Run(context.Background(), f.options(filepath.Join(t.TempDir(), "none"), t.TempDir()))
		sweeptest.ErrorContains(t, err, "the setup command exited with 3 on the pristine tree")
	})
}

// TestParityBytecodePurge: a stale __pycache__ the image left (its .pyc matches calc.py's
// size and mtime, but holds other code) is removed before the tests run, so the tests run the
// source.
func TestParityBytecodePurge(t *testing.T) {
	files := map[string]string{".gitignore": "__pycache__/\n"}
	for k, v := range baseFiles {
		files[k] = v
	}
	f := newFixtureOf(t, files, nil)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(f.repo, "calc.py")
	stamp := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	// fixedAdd is as long as the injected add: the forged cache matches calc.py's size.
	sweeptest.WriteFiles(t, f.repo, map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")})
	if err := os.Chtimes(src, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	sweeptest.Run(t, f.repo, python, "-c", "import py_compile; py_compile.compile('calc.py', doraise=True)")
	sweeptest.Run(t, f.repo, "git", "checkout", "--", "calc.py")
	if err := os.Chtimes(src, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), f.options(filepath.Join(t.TempDir(), "none"), t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if got["n_resolved"] != 0 {
		t.Errorf("the stale bytecode was run: %v", got)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "__pycache__")); !os.IsNotExist(err) {
		t.Errorf("__pycache__ is still there: %v", err)
	}
}

// TestParityOracleBuildsWithItsTests: oracle grading applies a bug's tests, then its fix,
// then builds, as SWE-sweep does.
func TestParityOracleBuildsWithItsTests(t *testing.T) {
	f := newFixture(t, func(b *Bundle) {
		b.Build = &Command{Command: "ls tests/test_bug_*.py 2>/dev/null | sed 's/^/built with /'; true"}
	})
	var log strings.Builder
	o := Options{BundleDir: f.bundle, OutDir: t.TempDir(), Oracle: true, TestUser: testUser, Log: &log}
	got, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if got["reward"] != 1 {
		t.Errorf("reward = %v", got)
	}
	for _, want := range []string{"built with tests/test_bug_add.py\n", "built with tests/test_bug_mul.py\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the build's output lacks %q:\n%s", want, log.String())
		}
	}
}

// TestParityHiddenTestRevertNeverFails: a hidden test that replaces its own file with a
// directory, or deletes it, leaves the trial graded; the guard puts its paths back.
func TestParityHiddenTestRevertNeverFails(t *testing.T) {
	selfReplacing := "import os, shutil\nfrom calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\n" +
		"def test_zz_replace_self():\n    os.remove(__file__)\n    os.makedirs(os.path.join(__file__, 'deep', 'er'))\n"
	f := newFixture(t, nil)
	sweeptest.WriteFiles(t, f.repo, map[string]string{"tests/test_bug_mul.py": selfReplacing})
	sweeptest.WriteFiles(t, f.bundle, map[string]string{"bugs/mul/test.patch": sweeptest.Diff(t, f.repo, "baseline")})
	sweeptest.Run(t, f.repo, "git", "clean", "-fdq")
	out := t.TempDir()
	got, err := Run(context.Background(), f.options(f.agentPatch(t, map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")}), out))
	if err != nil {
		t.Fatal(err)
	}
	if got["n_resolved"] != 2 || got["grader_failed"] != 0 {
		t.Errorf("reward = %v", got)
	}
	if _, err := os.Lstat(filepath.Join(f.repo, "tests", "test_bug_mul.py")); !os.IsNotExist(err) {
		t.Errorf("the hidden test's path is still there: %v", err)
	}
}

// TestParityOracleGradesOnAfterPristineRegression: a base test that fails on the pristine
// tree does not stop oracle grading: every bug is still graded on its gold, and the result,
// with all nine keys, is marked not measured (grader_failed 1, visible_ok 0, reward 0).
func TestParityOracleGradesOnAfterPristineRegression(t *testing.T) {
	f := newFixture(t, nil)
	sweeptest.WriteFiles(t, f.bundle, map[string]string{"base_tests.json": `["tests/test_visible.py::test_neg", "tests/test_visible.py::test_gone"]`})
	out := t.TempDir()
	got, err := Run(context.Background(), Options{BundleDir: f.bundle, OutDir: out, Oracle: true, TestUser: testUser})
	sweeptest.ErrorContains(t, err, "pristine-tree regression: 1 base tests do not pass at the base: tests/test_visible.py::test_gone")
	want := Reward{NSubtasks: 2, NResolved: 2, NRegressions: 1, AgentPatchApplied: 1, AgentBuildOK: 1, GraderFailed: 1}.Result()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reward (-want +got):\n%s", d)
	}
	var fromFile reward.Result
	sweeptest.ReadJSON(t, filepath.Join(out, reward.FileJSON), &fromFile)
	if d := cmp.Diff(want, fromFile); d != "" {
		t.Errorf("reward.json (-want +got):\n%s", d)
	}
	var ev Eval
	sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
	if len(ev.Bugs) != 2 || !ev.Bugs[0].Resolved || !ev.Bugs[1].Resolved || len(ev.Subtasks) != 2 || ev.VisibleOK ||
		!strings.Contains(ev.Error, "pristine-tree regression") {
		t.Errorf("eval.json: bugs %+v, subtasks %+v, visible_ok %v, error %q", ev.Bugs, ev.Subtasks, ev.VisibleOK, ev.Error)
	}
	if d := cmp.Diff([]string{"tests/test_visible.py::test_gone"}, ev.Regressions); d != "" {
		t.Errorf("regressions (-want +got):\n%s", d)
	}
	if _, why := readFailure(t, out); why != err.Error()+"\n" {
		t.Errorf("%s = %q, want the error", reward.FileGraderError, why)
	}
}

// TestParityIgnoredTests: base_tests in SWE-sweep's form, gzipped or not: a test it declares
// unreliable is left out of a bug's targeted run, unless it is one of the bug's own
// fail-to-pass tests.
func TestParityIgnoredTests(t *testing.T) {
	const base = `{"passing": ["tests/test_visible.py::test_neg", "tests/test_visible.py::test_add_zero"], ` +
		`"ignored": ["tests/test_bug_add.py::test_add_negative"]}`
	partial := map[string]string{"calc.py": calc(partialAdd, fixedMul, "")}
	// test_add_negative fails under partialAdd; with only test_add as the bug's own test it is
	// another test of the run, which, ignored, no longer fails the bug.
	onlyTestAdd := func(b *Bundle) {
		targetedRun(b)
		b.Bugs[0].FailToPass = []string{"tests/test_bug_add.py::test_add"}
	}
	for _, tc := range []struct {
		name    string
		file    string
		edit    func(*Bundle)
		want    Reward
		ignored []string
	}{
		{name: "an ignored test of the run does not fail the bug", file: "base_tests.json", edit: onlyTestAdd,
			want:    Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			ignored: []string{"tests/test_bug_add.py::test_add_negative"}},
		{name: "gzipped, as SWE-sweep ships it", file: "base_tests.json.gz", edit: onlyTestAdd,
			want:    Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			ignored: []string{"tests/test_bug_add.py::test_add_negative"}},
		{name: "a bug's own fail-to-pass test is never ignored", file: "base_tests.json", edit: targetedRun,
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, NPartial: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(b *Bundle) {
				tc.edit(b)
				b.BaseTests = tc.file
			})
			data := []byte(base)
			if strings.HasSuffix(tc.file, ".gz") {
				var buf bytes.Buffer
				zw := gzip.NewWriter(&buf)
				if _, err := zw.Write(data); err != nil {
					t.Fatal(err)
				}
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				data = buf.Bytes()
			}
			if err := os.WriteFile(filepath.Join(f.bundle, tc.file), data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			got, err := Run(context.Background(), f.options(f.agentPatch(t, partial), out))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want.Result(), got); d != "" {
				t.Errorf("reward (-want +got):\n%s", d)
			}
			var ev Eval
			sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
			if d := cmp.Diff(tc.ignored, ev.Bugs[0].Ignored); d != "" {
				t.Errorf("bug add's ignored tests (-want +got):\n%s", d)
			}
		})
	}
}

// cmakeFiles make the fixture a CMake project whose configure step globs src/*.c into
// build/sources.txt; the build prints that list, so the log shows what configure saw.
var cmakeFiles = map[string]string{
	".gitignore":     "build/\n",
	"CMakeLists.txt": "cmake_minimum_required(VERSION 3.13)\nproject(calc NONE)\nfile(GLOB SRCS RELATIVE ${CMAKE_SOURCE_DIR} src/*.c)\nfile(WRITE ${CMAKE_BINARY_DIR}/sources.txt \"sources: ${SRCS}\\n\")\n",
	"src/main.c":     "int main(void) { return 0; }\n",
}

func cmakeFixture(t *testing.T) fixture {
	if _, err := exec.LookPath("cmake"); err != nil {
		t.Fatalf("cmake is needed to test the CMake reconfigure: install it (hack/deps.sh): %v", err)
	}
	files := map[string]string{}
	for _, m := range []map[string]string{baseFiles, cmakeFiles} {
		for k, v := range m {
			files[k] = v
		}
	}
	return newFixtureOf(t, files, func(b *Bundle) {
		b.Setup = &Command{Command: "cmake -S . -B build >/dev/null"}
		b.Build = &Command{Command: "cat build/sources.txt"}
		b.CMakeBuildDir = "build"
	})
}

func buildCommands(ev Eval) []string {
	var out []string
	for _, b := range ev.Build {
		out = append(out, b.Command)
	}
	return out
}

// TestParityCMakeReconfigure: a CMake tree is reconfigured (cmake DIR) before a build when a
// patch in place adds a C or C++ file, and once more after that file is gone, as SWE-sweep
// does; a reconfigure that fails on the agent's tree is a failed build, never a grader
// failure.
func TestParityCMakeReconfigure(t *testing.T) {
	fixed := calc(fixedAdd, fixedMul, "")
	for _, tc := range []struct {
		name     string
		edits    map[string]string
		want     Reward
		commands []string
		logged   string
	}{
		{name: "a patch that adds a source reconfigures before the build", edits: map[string]string{"calc.py": fixed, "src/extra.c": "int extra;\n"},
			want:     Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			commands: []string{"cmake build", "cat build/sources.txt"}, logged: "sources: src/extra.c;src/main.c\n"},
		{name: "a patch that only edits does not", edits: map[string]string{"calc.py": fixed, "src/main.c": "int main(void) { return 1; }\n"},
			want:     Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			commands: []string{"cat build/sources.txt"}, logged: "sources: src/main.c\n"},
		{name: "a reconfigure that fails is the agent's failed build", edits: map[string]string{"calc.py": fixed, "src/extra.c": "int extra;\n",
			"CMakeLists.txt": "cmake_minimum_required(VERSION 3.13)\nproject(calc NONE)\nmessage(FATAL_ERROR \"no\")\n"},
			want:     Reward{NSubtasks: 2, AgentPatchApplied: 1},
			commands: []string{"cmake build"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cmakeFixture(t)
			var log strings.Builder
			out := t.TempDir()
			o := f.options(f.agentPatch(t, tc.edits), out)
			o.Log = &log
			got, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want.Result(), got); d != "" {
				t.Errorf("reward (-want +got):\n%s", d)
			}
			var ev Eval
			sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
			if d := cmp.Diff(tc.commands, buildCommands(ev)); d != "" {
				t.Errorf("build commands (-want +got):\n%s", d)
			}
			if !strings.Contains(log.String(), tc.logged) {
				t.Errorf("the log lacks %q:\n%s", tc.logged, log.String())
			}
			if tc.want.AgentBuildOK == 0 && !strings.Contains(ev.BuildError, "CMake reconfigure (cmake build) exited with 1") {
				t.Errorf("build_error = %q", ev.BuildError)
			}
		})
	}
	t.Run("oracle: reconfigured for a test patch that adds a source, and again once it is gone", func(t *testing.T) {
		f := cmakeFixture(t)
		sweeptest.WriteFiles(t, f.repo, map[string]string{
			"tests/test_bug_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_negative():\n    assert add(-1, 1) == 0\n",
			"src/add_check.c":       "int add_check;\n",
		})
		sweeptest.WriteFiles(t, f.bundle, map[string]string{"bugs/add/test.patch": sweeptest.Diff(t, f.repo, "baseline")})
		var log strings.Builder
		out := t.TempDir()
		got, err := Run(context.Background(), Options{BundleDir: f.bundle, OutDir: out, Oracle: true, TestUser: testUser, Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		if got["reward"] != 1 {
			t.Errorf("reward = %v", got)
		}
		var ev Eval
		sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
		want := []string{"cat build/sources.txt", "cmake build", "cat build/sources.txt", "cmake build", "cat build/sources.txt"}
		if d := cmp.Diff(want, buildCommands(ev)); d != "" {
			t.Errorf("build commands (-want +got):\n%s", d)
		}
		if c := strings.Count(log.String(), "sources: src/main.c\n"); c != 2 || !strings.Contains(log.String(), "sources: src/add_check.c;src/main.c\n") {
			t.Errorf("configure did not follow the tree (%d builds without the added source):\n%s", c, log.String())
		}
	})
	t.Run("agent: a hidden test patch that adds a source reconfigures before its run", func(t *testing.T) {
		f := cmakeFixture(t)
		sweeptest.WriteFiles(t, f.repo, map[string]string{
			"tests/test_bug_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
			"src/mul_check.c":       "int mul_check;\n",
		})
		sweeptest.WriteFiles(t, f.bundle, map[string]string{"bugs/mul/test.patch": sweeptest.Diff(t, f.repo, "baseline")})
		out := t.TempDir()
		got, err := Run(context.Background(), f.options(f.agentPatch(t, map[string]string{"calc.py": fixed}), out))
		if err != nil {
			t.Fatal(err)
		}
		if got["n_resolved"] != 2 {
			t.Errorf("reward = %v", got)
		}
		var ev Eval
		sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
		if ev.Bugs[0].Reconfigure != nil {
			t.Errorf("bug add reconfigured: %+v", ev.Bugs[0].Reconfigure)
		}
		if r := ev.Bugs[1].Reconfigure; r == nil || r.Command != "cmake build" || r.ExitCode != 0 {
			t.Errorf("bug mul's reconfigure = %+v", r)
		}
	})
	t.Run("agent: a reconfigure that fails before a targeted run leaves that bug unresolved", func(t *testing.T) {
		f := cmakeFixture(t)
		sweeptest.WriteFiles(t, f.repo, map[string]string{
			"tests/test_bug_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
			"src/mul_check.c":       "int mul_check;\n",
		})
		sweeptest.WriteFiles(t, f.bundle, map[string]string{"bugs/mul/test.patch": sweeptest.Diff(t, f.repo, "baseline")})
		// The agent's CMake files refuse the hidden test's source: its configure fails there.
		breaks := cmakeFiles["CMakeLists.txt"] + "if(EXISTS ${CMAKE_SOURCE_DIR}/src/mul_check.c)\n  message(FATAL_ERROR \"no\")\nendif()\n"
		out := t.TempDir()
		got, err := Run(context.Background(), f.options(f.agentPatch(t, map[string]string{"calc.py": fixed, "CMakeLists.txt": breaks}), out))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}.Result(), got); d != "" {
			t.Errorf("reward (-want +got):\n%s", d)
		}
		var ev Eval
		sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
		if mul := ev.Bugs[1]; mul.Resolved || mul.Error != "the CMake reconfigure exited with 1" || mul.Suite != nil {
			t.Errorf("bug mul = %+v", mul)
		}
	})
}

// readFailure is what a grading left in out of a grader failure: reward.json and
// grader_error.txt ("" when there is none).
func readFailure(t *testing.T, out string) (reward.Result, string) {
	t.Helper()
	var r reward.Result
	sweeptest.ReadJSON(t, filepath.Join(out, reward.FileJSON), &r)
	b, err := os.ReadFile(filepath.Join(out, reward.FileGraderError))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return r, string(b)
}

// TestParityGraderFailureShape: a failure of the evaluation itself (here a setup that fails)
// writes SWE-sweep's nine keys with n_subtasks 0 and grader_failed 1, which SWE-sweep's scoring
// lists among its evaluation failures (the bare two-key form it would skip), and the reason in
// grader_error.txt; a later grading into the same directory removes the stale reason.
func TestParityGraderFailureShape(t *testing.T) {
	files := map[string]string{".gitignore": "*.done\n"}
	for k, v := range baseFiles {
		files[k] = v
	}
	f := newFixtureOf(t, files, func(b *Bundle) { b.Setup = &Command{Command: "test -f setup.done || { touch setup.done; exit 3; }"} })
	out := t.TempDir()
	_, err := Run(context.Background(), f.options(filepath.Join(t.TempDir(), "none"), out))
	sweeptest.ErrorContains(t, err, "the setup command exited with 3 on the pristine tree")
	got, why := readFailure(t, out)
	want := Reward{AgentPatchApplied: 1, AgentBuildOK: 1, GraderFailed: 1}.Result()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reward.json (-want +got):\n%s", d)
	}
	if why != err.Error()+"\n" {
		t.Errorf("%s = %q, want %q", reward.FileGraderError, why, err.Error()+"\n")
	}
	// setup.done is ignored, so it stays: the second setup passes.
	if _, err := Run(context.Background(), f.options(filepath.Join(t.TempDir(), "none"), out)); err != nil {
		t.Fatal(err)
	}
	if got, why := readFailure(t, out); got[reward.KeyGraderFailed] != 0 || why != "" {
		t.Errorf("after a grading that succeeded: reward.json %v, %s %q", got, reward.FileGraderError, why)
	}
}

// notAPatchOfTheTree applies to no tree of the fixture.
const notAPatchOfTheTree = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"

// TestParityOracleRecordsBrokenBugs: in oracle grading, what is wrong with one bug (a test
// patch or gold that does not apply, no gold, a gold that does not build) is recorded on that
// bug, which stays unresolved, and the grading goes on: the oracle scores below 1 and is
// measured, and eval.json's subtask says why.
func TestParityOracleRecordsBrokenBugs(t *testing.T) {
	for _, tc := range []struct {
		name        string
		edit        func(*Bundle)
		files       map[string]string // bundle files to overwrite
		broken      string
		testApplied bool
		why         string
	}{
		{name: "a test patch that does not apply to the base", files: map[string]string{"bugs/mul/test.patch": notAPatchOfTheTree},
			broken: "mul", why: "test patch does not apply: "},
		{name: "a gold that does not apply onto its tests", files: map[string]string{"bugs/add/fix.patch": notAPatchOfTheTree},
			broken: "add", testApplied: true, why: "oracle patch does not apply onto its tests: "},
		{name: "no gold", edit: func(b *Bundle) { b.Bugs[1].OraclePatch = "" }, broken: "mul", testApplied: true, why: "the bug has no oracle_patch"},
		// The pristine tree and add's gold build; mul's gold (a * b) does not.
		{name: "a gold that does not build", edit: func(b *Bundle) { b.Build = &Command{Command: `! grep -q 'a \* b' calc.py`} },
			broken: "mul", testApplied: true, why: "the build fails with its tests and the oracle patch: build exited with 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.edit)
			sweeptest.WriteFiles(t, f.bundle, tc.files)
			out := t.TempDir()
			var log strings.Builder
			got, err := Run(context.Background(), Options{BundleDir: f.bundle, OutDir: out, Oracle: true, TestUser: testUser, Log: &log})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, log.String())
			}
			want := Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}.Result()
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("reward (-want +got):\n%s", d)
			}
			var ev Eval
			sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
			if len(ev.Subtasks) != 2 || ev.Error != "" {
				t.Fatalf("eval.json: subtasks %+v, error %q", ev.Subtasks, ev.Error)
			}
			for _, s := range ev.Subtasks {
				why, _ := s.Detail["error"].(string)
				if s.SubtaskID != tc.broken {
					if !s.Resolved || why != "" {
						t.Errorf("the sound bug %s: %+v", s.SubtaskID, s)
					}
					continue
				}
				if s.Resolved || s.TestApplied != tc.testApplied || !strings.HasPrefix(why, tc.why) {
					t.Errorf("the broken bug %s: resolved %v, test_applied %v, detail.error %q; want test_applied %v and %q",
						s.SubtaskID, s.Resolved, s.TestApplied, why, tc.testApplied, tc.why)
				}
			}
			if _, why := readFailure(t, out); why != "" {
				t.Errorf("%s = %q, want none", reward.FileGraderError, why)
			}
		})
	}
}

// TestParityAgentBrokenTestPatch: grading an agent, a test patch that does not apply to the
// base is a broken task, so a grader failure (SWE-sweep leaves that bug unresolved, the
// model's 0: a difference kept, docs/task-format.md).
func TestParityAgentBrokenTestPatch(t *testing.T) {
	f := newFixture(t, nil)
	sweeptest.WriteFiles(t, f.bundle, map[string]string{"bugs/mul/test.patch": notAPatchOfTheTree})
	out := t.TempDir()
	got, err := Run(context.Background(), f.options(f.agentPatch(t, map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")}), out))
	sweeptest.ErrorContains(t, err, "bug mul: test patch bugs/mul/test.patch: git apply")
	if d := cmp.Diff(reward.EvaluationFailed(), got); d != "" {
		t.Errorf("reward (-want +got):\n%s", d)
	}
}

// TestParityProcessLevelFailure: a bug whose fail_to_pass is SWE-sweep's process-level marker
// counts every test of its targeted run that passed or failed as fail-to-pass, so a run where
// some pass and some fail is partial (with the named test alone, test_add_negative is another
// test that failed: neither resolved nor partial).
func TestParityProcessLevelFailure(t *testing.T) {
	runAgentCases(t, []agentCase{
		{name: "some pass, some fail: partial", edits: map[string]string{"calc.py": calc(partialAdd, fixedMul, "")},
			edit: func(b *Bundle) {
				targetedRun(b)
				b.Bugs[0].FailToPass = []string{ProcessLevelFailure}
			},
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, NPartial: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				add := ev.Subtasks[0]
				if d := cmp.Diff([]string{"tests/test_bug_add.py::test_add_negative"}, add.F2PFailed); d != "" || len(add.P2PFailed) != 0 || len(ev.Bugs[0].Missing) != 0 {
					t.Errorf("subtask add = %+v, missing %v; f2p failed (-want +got):\n%s", add, ev.Bugs[0].Missing, d)
				}
			}},
		{name: "all pass: resolved", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			edit: func(b *Bundle) {
				targetedRun(b)
				b.Bugs[0].FailToPass = []string{ProcessLevelFailure}
			},
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
	})
}

// TestParityBuildJobs: the bundle's build_jobs (SWE-sweep's default 4 when it has none) reaches
// the setup and the build as SWESWEEP_BUILD_JOBS, whatever the grader's own environment says.
func TestParityBuildJobs(t *testing.T) {
	t.Setenv(BuildJobsEnv, "99")
	for _, tc := range []struct {
		name string
		jobs int
		want string
	}{{name: "default", want: "4"}, {name: "declared", jobs: 7, want: "7"}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, func(b *Bundle) {
				b.BuildJobs = tc.jobs
				b.Setup = &Command{Command: `echo "setup jobs=$SWESWEEP_BUILD_JOBS"`}
				b.Build = &Command{Command: `echo "build jobs=$SWESWEEP_BUILD_JOBS"`}
			})
			var log strings.Builder
			o := f.options(f.agentPatch(t, map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")}), t.TempDir())
			o.Log = &log
			got, err := Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if got[reward.KeyReward] != 1 {
				t.Errorf("reward = %v", got)
			}
			for _, want := range []string{"setup jobs=" + tc.want + "\n", "build jobs=" + tc.want + "\n"} {
				if !strings.Contains(log.String(), want) {
					t.Errorf("the log lacks %q:\n%s", want, log.String())
				}
			}
		})
	}
}

// TestParityOraclePristinePaths: a self-hosting build (here a counter standing for a compiler
// that builds the next compiler) is built, for each gold, by the pristine tree's build output
// when oracle_pristine_paths names it, and by the previous gold's without.
func TestParityOraclePristinePaths(t *testing.T) {
	files := map[string]string{".gitignore": "built/\n"}
	for k, v := range baseFiles {
		files[k] = v
	}
	for _, tc := range []struct {
		name      string
		paths     []string
		builtWith []string
	}{
		{name: "restored before each gold", paths: []string{"built/compiler"}, builtWith: []string{"0", "1", "1"}},
		{name: "without: each gold is built by the previous one's output", builtWith: []string{"0", "1", "2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixtureOf(t, files, func(b *Bundle) {
				b.OraclePristinePaths = tc.paths
				b.Setup = &Command{Command: "mkdir -p built && echo 0 > built/compiler"}
				b.Build = &Command{Command: `n=$(cat built/compiler); echo "built with compiler $n"; echo $((n+1)) > built/compiler`}
			})
			var log strings.Builder
			got, err := Run(context.Background(), Options{BundleDir: f.bundle, OutDir: t.TempDir(), Oracle: true, TestUser: testUser, Log: &log})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, log.String())
			}
			if got[reward.KeyReward] != 1 {
				t.Errorf("reward = %v", got)
			}
			var builtWith []string
			for _, line := range strings.Split(log.String(), "\n") {
				if n, ok := strings.CutPrefix(line, "built with compiler "); ok {
					builtWith = append(builtWith, n)
				}
			}
			if d := cmp.Diff(tc.builtWith, builtWith); d != "" {
				t.Errorf("the pristine build and each gold's were built with (-want +got):\n%s\n%s", d, log.String())
			}
		})
	}
	t.Run("a path that cannot be archived is a grader failure naming the field", func(t *testing.T) {
		f := newFixtureOf(t, files, func(b *Bundle) { b.OraclePristinePaths = []string{"built/none"} })
		_, err := Run(context.Background(), Options{BundleDir: f.bundle, OutDir: t.TempDir(), Oracle: true, TestUser: testUser})
		sweeptest.ErrorContains(t, err, "cannot snapshot oracle_pristine_paths built/none: tar -cf")
	})
}
