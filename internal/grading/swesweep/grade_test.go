package swesweep

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// agentCase is one grading of an agent's patch against the fixture bundle.
type agentCase struct {
	name  string
	edits map[string]string // nil: no patch file at all
	bugs  []string
	edit  func(*Bundle)
	want  Reward
	check func(t *testing.T, ev Eval)
}

// runAgentCases grades each case in a subtest and compares reward.json, the returned reward and
// eval.json.
func runAgentCases(t *testing.T, cases []agentCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.edit)
			patch := filepath.Join(t.TempDir(), "absent.patch")
			if tc.edits != nil {
				patch = f.agentPatch(t, tc.edits)
			}
			out := t.TempDir()
			var log strings.Builder
			got, err := Run(context.Background(), Options{BundleDir: f.bundle, PatchPath: patch, OutDir: out, Bugs: tc.bugs, TestUser: testUser, Log: &log})
			if err != nil {
				t.Fatalf("Run: %v\n%s", err, log.String())
			}
			var fromFile reward.Result
			sweeptest.ReadJSON(t, filepath.Join(out, reward.FileJSON), &fromFile)
			if d := cmp.Diff(tc.want.Result(), fromFile); d != "" {
				t.Errorf("reward.json (-want +got):\n%s\nlog:\n%s", d, log.String())
			}
			if d := cmp.Diff(fromFile, got); d != "" {
				t.Errorf("returned reward differs from reward.json:\n%s", d)
			}
			var ev Eval
			sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
			if ev.Schema != EvalSchema || ev.Mode != "agent" || ev.Error != "" {
				t.Errorf("eval = %+v", ev)
			}
			if tc.check != nil {
				tc.check(t, ev)
			}
		})
	}
}

// TestGradeAgentPatch scores what the agent's patch fixes.
func TestGradeAgentPatch(t *testing.T) {
	binary := string([]byte{0, 1, 2, 0xff, 0xfe, '\n', 0, 7})
	runAgentCases(t, []agentCase{
		{name: "no patch", want: Reward{NSubtasks: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
		{name: "empty patch", edits: map[string]string{}, want: Reward{NSubtasks: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
		{name: "full fix", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if ev.Patch.FilesChanged != 1 || ev.Patch.Additions != 2 || ev.Patch.Deletions != 2 {
					t.Errorf("patch stats = %+v", ev.Patch.PatchStats)
				}
				if len(ev.Bugs) != 2 || !ev.Bugs[0].Resolved || ev.Bugs[0].Seconds <= 0 || len(ev.Bugs[0].Passed) != 2 {
					t.Errorf("bugs = %+v", ev.Bugs)
				}
				for _, k := range []string{"reset", "apply", "build", "visible", "bugs", "total"} {
					if _, ok := ev.Timings[k]; !ok {
						t.Errorf("timing %s missing", k)
					}
				}
			}},
		{name: "partial fix", edits: map[string]string{"calc.py": calc(partialAdd, fixedMul, "")},
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, NPartial: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				want := BugOutcome{Passed: []string{"tests/test_bug_add.py::test_add"}, Failed: []string{"tests/test_bug_add.py::test_add_negative"},
					F2PPassed: []string{"tests/test_bug_add.py::test_add"}, P2PPassed: []string{},
					F2PFailed: []string{"tests/test_bug_add.py::test_add_negative"}, P2PFailed: []string{}}
				if d := cmp.Diff(want, ev.Bugs[0].BugOutcome); d != "" {
					t.Errorf("bug add (-want +got):\n%s", d)
				}
			}},
		{name: "bug subset", edits: map[string]string{"calc.py": calc(partialAdd, fixedMul, "")}, bugs: []string{"mul"},
			want: Reward{Reward: 1, NSubtasks: 1, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
		{name: "a bug named twice is graded once", edits: map[string]string{"calc.py": calc(partialAdd, fixedMul, "")}, bugs: []string{"mul", "add", "mul"},
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, NPartial: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if len(ev.Bugs) != 2 || ev.Bugs[0].ID != "mul" || ev.Bugs[1].ID != "add" {
					t.Errorf("bugs = %+v", ev.Bugs)
				}
			}},
		{name: "regression scores 0", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, brokenNeg)},
			want: Reward{NSubtasks: 2, NResolved: 2, NRegressions: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if d := cmp.Diff([]string{"tests/test_visible.py::test_neg"}, ev.Regressions); d != "" {
					t.Errorf("regressions (-want +got):\n%s", d)
				}
			}},
		{name: "names git quotes are read alike by git and the headers", edits: map[string]string{
			"calc.py": calc(fixedAdd, fixedMul, ""), "docs/é\tnotes.txt": "x\n", "docs/with space.txt": "y\n", "docs/quote\"d.txt": "z\n",
		}, want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if ev.Patch.Refused || len(ev.Patch.GitPaths) != 4 {
					t.Errorf("patch report = %+v", ev.Patch)
				}
			}},
		{name: "a rename is read alike by git and the headers", edits: map[string]string{
			"calc.py": calc(fixedAdd, fixedMul, ""), "old_helper.py": "", "old_helper.txt": "HELP = 1\n",
		}, want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if d := cmp.Diff([]string{"calc.py", "old_helper.py", "old_helper.txt"}, ev.Patch.GitPaths); ev.Patch.Refused || d != "" {
					t.Errorf("patch report = %+v; git paths (-want +got):\n%s", ev.Patch, d)
				}
			}},
		{name: "binary patch that deletes and adds files", edits: map[string]string{
			"calc.py": calc(fixedAdd, fixedMul, ""), "data.bin": binary, "old_helper.py": "", "helper.py": "HELP = 2\n",
		}, want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				want := []FileChange{{OldPath: "calc.py", NewPath: "calc.py"}, {NewPath: "data.bin", Binary: true},
					{NewPath: "helper.py"}, {OldPath: "old_helper.py"}}
				if d := cmp.Diff(want, ev.Patch.Files); d != "" {
					t.Errorf("files (-want +got):\n%s", d)
				}
			}},
	})
}

// TestGradeAgentPatchTestEditsUndone checks that the patch's changes to test files and test configuration are undone before grading.
func TestGradeAgentPatchTestEditsUndone(t *testing.T) {
	runAgentCases(t, []agentCase{
		{name: "test file edit and conftest.py are undone", edits: map[string]string{
			"calc.py":               calc("", "", brokenNeg),
			"tests/test_visible.py": "def test_nothing():\n    pass\n",
			"conftest.py":           cheatConftest,
			"tests/conftest.py":     cheatConftest,
		}, want: Reward{NSubtasks: 2, NRegressions: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if d := cmp.Diff([]string{"tests/test_visible.py"}, ev.Patch.RestoredTestFiles); d != "" {
					t.Errorf("restored (-want +got):\n%s", d)
				}
				if d := cmp.Diff([]string{"conftest.py", "tests/conftest.py"}, ev.Patch.RemovedTestFiles); d != "" {
					t.Errorf("removed (-want +got):\n%s", d)
				}
			}},
		{name: "a plugin loaded through pytest.ini is undone", edits: map[string]string{
			"calc.py":         calc("", "", brokenNeg),
			"cheat_plugin.py": cheatConftest,
			"pytest.ini":      "[pytest]\naddopts = -p cheat_plugin\n",
		}, want: Reward{NSubtasks: 2, NRegressions: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				// A new top-level module can shadow what pytest imports: it goes too.
				if d := cmp.Diff([]string{"cheat_plugin.py", "pytest.ini"}, ev.Patch.RemovedTestFiles); d != "" {
					t.Errorf("removed (-want +got):\n%s", d)
				}
			}},
	})
}

// TestGradeAgentPatchBuild checks the bundle's build step.
func TestGradeAgentPatchBuild(t *testing.T) {
	runAgentCases(t, []agentCase{
		// A failed build grades no bug but counts them all, unresolved (SWE-sweep writes
		// n_subtasks 0, which would take the task out of the score: docs/task-format.md).
		{name: "build failure scores 0 and grades no bug", edits: map[string]string{"calc.py": "def add(:\n"},
			edit: func(b *Bundle) { b.Build = &Command{Command: "python3 -c 'import calc'"} },
			want: Reward{NSubtasks: 2, AgentPatchApplied: 1},
			check: func(t *testing.T, ev Eval) {
				if len(ev.Build) != 1 || ev.Build[0].ExitCode != 1 || ev.Visible != nil || len(ev.Bugs) != 0 {
					t.Errorf("build = %+v, visible = %+v, bugs = %+v", ev.Build, ev.Visible, ev.Bugs)
				}
				if ev.BuildError == "" || ev.AgentBuildOK || ev.VisibleOK || ev.NSubtasks != 2 || len(ev.Subtasks) != 0 || len(ev.Regressions) != 0 {
					t.Errorf("SWE-sweep fields = %+v, build_error %q", ev.SweepEval, ev.BuildError)
				}
			}},
		{name: "default timeouts are SWE-sweep's", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			edit: func(b *Bundle) {
				b.Build = &Command{Command: "python3 -c 'import calc'"}
				b.Visible.TimeoutSec, b.BugTests.TimeoutSec = 0, 0
			},
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				got := []float64{ev.Build[0].LimitSec, ev.Visible.LimitSec, ev.Bugs[0].Suite.LimitSec}
				if d := cmp.Diff([]float64{7200, 3600, 900}, got); d != "" {
					t.Errorf("limits of build, visible, bug tests (-want +got):\n%s", d)
				}
			}},
		{name: "passing build", edits: map[string]string{"calc.py": calc(fixedAdd, fixedMul, "")},
			edit: func(b *Bundle) { b.Build = &Command{Command: "python3 -c 'import calc'"} },
			want: Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}},
	})
}

// TestGradeAgentPatchReportFile checks suites that write their results to a report file.
func TestGradeAgentPatchReportFile(t *testing.T) {
	runAgentCases(t, []agentCase{
		{name: "junit report", edits: map[string]string{"calc.py": calc(fixedAdd, "", "")},
			edit: func(b *Bundle) {
				b.BugTests = Suite{Command: Command{Command: strings.Replace(b.BugTests.Command.Command, "{tests}", "--junitxml=out/report.xml tests", 1)},
					Format: "junit", Report: "out/report.xml"}
				b.Bugs[0].FailToPass = []string{"tests.test_bug_add.test_add", "tests.test_bug_add.test_add_negative"}
				b.Bugs[1].FailToPass = []string{"tests.test_bug_mul.test_mul"}
			},
			want: Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if s := ev.Bugs[0].Suite; s.NTests != 4 || s.ParseError != "" || s.Seconds <= 0 {
					t.Errorf("junit suite = %+v", s)
				}
			}},
		{name: "junit report not written", edits: map[string]string{"calc.py": calc(fixedAdd, "", "")},
			edit: func(b *Bundle) {
				b.BugTests = Suite{Command: Command{Command: "true"}, Format: "junit", Report: "out/report.xml"}
			},
			want: Reward{NSubtasks: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				if s := ev.Bugs[0].Suite; !strings.Contains(s.ParseError, "no such file") {
					t.Errorf("junit suite = %+v", s)
				}
			}},
		// out.d is no module name, so the guard leaves it to the patch.
		{name: "a report that cannot be removed is not read", edits: map[string]string{
			"calc.py":                      calc(fixedAdd, "", ""),
			"out.d/report.xml/planted.xml": `<testsuite><testcase classname="tests.test_bug_mul" name="test_mul"/></testsuite>`,
		},
			edit: func(b *Bundle) {
				b.BugTests = Suite{Command: Command{Command: "true"}, Format: "junit", Report: "out.d/report.xml"}
			},
			want: Reward{NSubtasks: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1},
			check: func(t *testing.T, ev Eval) {
				for _, bug := range ev.Bugs {
					if s := bug.Suite; !strings.Contains(s.ParseError, "cannot remove the previous report") || s.NTests != 0 {
						t.Errorf("bug %s suite = %+v", bug.ID, s)
					}
				}
			}},
	})
}

func TestGradePatchThatDoesNotApply(t *testing.T) {
	f := newFixture(t, nil)
	patch := filepath.Join(t.TempDir(), "model.patch")
	bad := "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def nope(a, b):\n-    return 1\n+    return 2\n"
	if err := os.WriteFile(patch, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	got, err := Run(context.Background(), f.options(patch, out))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Reward{NSubtasks: 2, VisibleOK: 1, AgentBuildOK: 1}.Result(), got); d != "" {
		t.Errorf("reward (-want +got):\n%s", d)
	}
	var ev Eval
	sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
	if ev.Patch.Applied || !strings.Contains(ev.Patch.ApplyError, "patch failed: calc.py") {
		t.Errorf("patch report = %+v", ev.Patch)
	}
	if ev.AgentPatchApplied || ev.AgentPatchError == nil || *ev.AgentPatchError != ev.Patch.ApplyError {
		t.Errorf("SWE-sweep fields = %+v", ev.SweepEval)
	}
}

func TestGradeOracle(t *testing.T) {
	f := newFixture(t, nil)
	out := t.TempDir()
	got, err := Run(context.Background(), Options{BundleDir: f.bundle, OutDir: out, Oracle: true, TestUser: testUser})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Reward{Reward: 1, NSubtasks: 2, NResolved: 2, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1}.Result(), got); d != "" {
		t.Errorf("reward (-want +got):\n%s", d)
	}
}

func TestGraderFailures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T, f fixture) Options
		oracle bool
		// root grades as uid 0 instead of testUser.
		root bool
		want string
	}{
		{name: "no bundle", setup: func(t *testing.T, f fixture) Options {
			return Options{BundleDir: t.TempDir()}
		}, want: "bundle.json: no such file"},
		{name: "unknown bug", setup: func(t *testing.T, f fixture) Options {
			return Options{BundleDir: f.bundle, Bugs: []string{"div"}}
		}, want: `no bug "div"`},
		{name: "workdir missing", setup: func(t *testing.T, f fixture) Options {
			return Options{BundleDir: f.bundle, Workdir: "/nonexistent"}
		}, want: `workdir "/nonexistent" is not a directory`},
		{name: "base ref missing", setup: func(t *testing.T, f fixture) Options {
			sweeptest.Run(t, f.repo, "git", "tag", "-d", "baseline")
			return Options{BundleDir: f.bundle}
		}, want: `bundle.json: base_ref "baseline" is not a commit of the repository`},
		{name: "oracle pristine visible run without results", oracle: true, setup: func(t *testing.T, f fixture) Options {
			b, err := LoadBundle(f.bundle)
			if err != nil {
				t.Fatal(err)
			}
			b.Visible.Command.Command = "true"
			writeBundle(t, f.bundle, *b)
			return Options{BundleDir: f.bundle}
		}, want: "the pristine tree's visible suite produced no results to read"},
		{name: "test patch does not apply to the base", setup: func(t *testing.T, f fixture) Options {
			sweeptest.WriteFiles(t, f.bundle, map[string]string{"bugs/mul/test.patch": "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"})
			return Options{BundleDir: f.bundle}
		}, want: "bug mul: test patch bugs/mul/test.patch: git apply"},
		{name: "base tests not a list", setup: func(t *testing.T, f fixture) Options {
			sweeptest.WriteFiles(t, f.bundle, map[string]string{"base_tests.json": `{"a": 1}`})
			return Options{BundleDir: f.bundle}
		}, want: "want a JSON list of test ids"},
		{name: "tests as root", root: true, setup: func(t *testing.T, f fixture) Options {
			return Options{BundleDir: f.bundle}
		}, want: "the test identity is 0:0: the build and the tests must run as an unprivileged uid and gid (--test-uid)"},
		{name: "bundle inside the workdir", setup: func(t *testing.T, f fixture) Options {
			return Options{BundleDir: f.bundle, Workdir: filepath.Dir(f.bundle)}
		}, want: "is inside the workdir"},
		{name: "a build that cannot be started is the grader's failure, not the agent's 0", setup: func(t *testing.T, f fixture) Options {
			b, err := LoadBundle(f.bundle)
			if err != nil {
				t.Fatal(err)
			}
			b.Build = &Command{Command: "true", TimeoutSec: 60}
			writeBundle(t, f.bundle, *b)
			// git stays on PATH, sh does not: the build step cannot be started.
			git, err := exec.LookPath("git")
			if err != nil {
				t.Fatal(err)
			}
			bin := t.TempDir()
			if err := os.Symlink(git, filepath.Join(bin, "git")); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin)
			return Options{BundleDir: f.bundle}
		}, want: "the build could not be run: cannot run \"true\" as the test identity"},
		{name: "workdir out of the test identity's reach", setup: func(t *testing.T, f fixture) Options {
			if err := os.Chmod(filepath.Dir(f.repo), 0o700); err != nil {
				t.Fatal(err)
			}
			return Options{BundleDir: f.bundle}
		}, want: "cannot be reached by the test identity (uid 65541)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil)
			o := tc.setup(t, f)
			if !tc.root {
				o.TestUser = testUser
			}
			o.OutDir, o.Oracle, o.PatchPath = t.TempDir(), tc.oracle, filepath.Join(t.TempDir(), "none")
			got, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			if d := cmp.Diff(reward.EvaluationFailed(), got); d != "" {
				t.Errorf("reward (-want +got):\n%s", d)
			}
			var fromFile reward.Result
			sweeptest.ReadJSON(t, filepath.Join(o.OutDir, reward.FileJSON), &fromFile)
			if d := cmp.Diff(reward.EvaluationFailed(), fromFile); d != "" {
				t.Errorf("reward.json (-want +got):\n%s", d)
			}
			if b, rerr := os.ReadFile(filepath.Join(o.OutDir, reward.FileGraderError)); rerr != nil || string(b) != err.Error()+"\n" {
				t.Errorf("%s = %q, %v; want the error %q", reward.FileGraderError, b, rerr, err)
			}
			var ev Eval
			sweeptest.ReadJSON(t, filepath.Join(o.OutDir, "eval.json"), &ev)
			if !strings.Contains(ev.Error, tc.want) {
				t.Errorf("eval.json error = %q", ev.Error)
			}
		})
	}
}

// A result directory that is a file cannot be made the grader's: the grading fails saying so.
func TestGradeResultDirectoryIsAFile(t *testing.T) {
	f := newFixture(t, nil)
	out := filepath.Join(t.TempDir(), "verifier")
	sweeptest.WriteFiles(t, filepath.Dir(out), map[string]string{"verifier": "not a directory"})
	_, err := Run(context.Background(), f.options(filepath.Join(t.TempDir(), "none"), out))
	sweeptest.ErrorContains(t, err, "not a directory")
}

// The build and the suites run as the test identity, in the hardened environment, in a tree
// that identity owns; .git stays root's.
func TestUntrustedStepsRunAsTheTestIdentity(t *testing.T) {
	probe := `echo "as $(id -u):$(id -g) groups $(id -G) autoload=$PYTEST_DISABLE_PLUGIN_AUTOLOAD usersite=$PYTHONNOUSERSITE"; ` +
		`stat -c 'tree %u' .; stat -c 'git %u' .git; touch .git/planted 2>/dev/null && echo wrote-git || echo git-locked`
	f := newFixture(t, func(b *Bundle) { b.Build = &Command{Command: probe} })
	var log strings.Builder
	o := f.options(filepath.Join(t.TempDir(), "none"), t.TempDir())
	o.Log = &log
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"as 65541:65541 groups 65541 autoload=1 usersite=1\n", "tree 65541\n", "git 0\n", "git-locked\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the build's output lacks %q:\n%s", want, log.String())
		}
	}
}
