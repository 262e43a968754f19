package swesweep

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

func TestAfterRerun(t *testing.T) {
	p, f, e, s := testresults.Passed, testresults.Failed, testresults.Error, testresults.Skipped
	for _, tc := range []struct {
		name                 string
		tests                []string
		res                  testresults.Results
		wantStand, wantClear []string
	}{
		{name: "a pass clears", tests: []string{"a"}, res: testresults.Results{"a": p}, wantClear: []string{"a"}},
		{name: "a failure stands", tests: []string{"a"}, res: testresults.Results{"a": f}, wantStand: []string{"a"}},
		{name: "an error stands", tests: []string{"a"}, res: testresults.Results{"a": e}, wantStand: []string{"a"}},
		{name: "a skip is no pass", tests: []string{"a"}, res: testresults.Results{"a": s}, wantStand: []string{"a"}},
		{name: "not reported stands", tests: []string{"a"}, res: testresults.Results{}, wantStand: []string{"a"}},
		{name: "no results: all stand", tests: []string{"b", "a"}, wantStand: []string{"a", "b"}},
		{name: "tests it was not given do not count", tests: []string{"a"}, res: testresults.Results{"a": f, "z": p}, wantStand: []string{"a"}},
		{name: "split, sorted", tests: []string{"c", "b", "a"}, res: testresults.Results{"a": p, "b": f, "c": p},
			wantStand: []string{"b"}, wantClear: []string{"a", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stand, cleared := afterRerun(tc.tests, tc.res)
			if d := cmp.Diff(tc.wantStand, stand); d != "" {
				t.Errorf("stand (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantClear, cleared); d != "" {
				t.Errorf("cleared (-want +got):\n%s", d)
			}
		})
	}
}

// TestRecheckRounds folds re-runs as recheck does: each re-runs only what still stands, and a
// test is cleared once any re-run passes it.
func TestRecheckRounds(t *testing.T) {
	p, f := testresults.Passed, testresults.Failed
	for _, tc := range []struct {
		name      string
		first     []string
		reruns    []testresults.Results
		wantRun   [][]string // the tests each re-run is given
		wantStand []string
	}{
		{name: "passes on the first re-run", first: []string{"a"}, reruns: []testresults.Results{{"a": p}},
			wantRun: [][]string{{"a"}}},
		{name: "passes only on the last re-run", first: []string{"a"}, reruns: []testresults.Results{{"a": f}, {"a": f}, {"a": p}},
			wantRun: [][]string{{"a"}, {"a"}, {"a"}}},
		{name: "fails every re-run", first: []string{"a"}, reruns: []testresults.Results{{"a": f}, {"a": f}},
			wantRun: [][]string{{"a"}, {"a"}}, wantStand: []string{"a"}},
		{name: "a cleared test is not re-run", first: []string{"a", "b"}, reruns: []testresults.Results{{"a": p, "b": f}, {"a": f, "b": f}},
			wantRun: [][]string{{"a", "b"}, {"b"}}, wantStand: []string{"b"}},
		{name: "a pass, then a failure: cleared", first: []string{"a", "b"}, reruns: []testresults.Results{{"a": p, "b": f}, {"b": p}},
			wantRun: [][]string{{"a", "b"}, {"b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stand := tc.first
			var ran [][]string
			for _, res := range tc.reruns {
				if len(stand) == 0 {
					break
				}
				ran = append(ran, stand)
				stand, _ = afterRerun(stand, res)
			}
			if d := cmp.Diff(tc.wantRun, ran); d != "" {
				t.Errorf("re-runs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantStand, stand); d != "" {
				t.Errorf("stand (-want +got):\n%s", d)
			}
		})
	}
}

func TestPytestTargets(t *testing.T) {
	files, names := pytestTargets([]string{"tests/test_a.py::test_x[1-2]", "tests/test_a.py::test_x[3::4]", "tests/test_b.py::TestC::test_m", "nocolons"})
	if d := cmp.Diff([]string{"tests/test_a.py", "tests/test_b.py"}, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"test_m", "test_x"}, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
}

func TestRecheckable(t *testing.T) {
	suite := func(cmd string, f testresults.Format) Suite { return Suite{Command: Command{Command: cmd}, Format: f} }
	many := make([]string, maxRecheckedRegressions+1)
	for i := range many {
		many[i] = fmt.Sprintf("t::test_%d", i)
	}
	for _, tc := range []struct {
		name     string
		visible  Suite
		bugTests Suite
		regs     []string
		want     string
	}{
		{name: "pytest {files} {names}", visible: suite("pytest tests", "pytest"), bugTests: suite("pytest {files} {names}", "pytest"), regs: []string{"t::a"}},
		{name: "junit {tests}", visible: suite("run", "junit"), bugTests: suite("run {tests}", "junit"), regs: []string{"a"}},
		{name: "formats differ", visible: suite("pytest", "pytest"), bugTests: suite("run {tests}", "junit"), regs: []string{"a"},
			want: "bug_tests reads junit results and the visible suite pytest: their test ids do not compare"},
		{name: "{files} of another format", visible: suite("go", "gotest-json"), bugTests: suite("go {files}", "gotest-json"), regs: []string{"a"},
			want: "bug_tests names its tests by {files} or {names}, which only pytest's ids give (format gotest-json): use {tests}"},
		{name: "too many", visible: suite("pytest", "pytest"), bugTests: suite("pytest {tests}", "pytest"), regs: many,
			want: fmt.Sprintf("%d regressions, more than the %d a re-check re-runs: a patch that breaks that many is not flaky", len(many), maxRecheckedRegressions)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recheckable(&Bundle{Visible: tc.visible, BugTests: tc.bugTests}, tc.regs); got != tc.want {
				t.Errorf("recheckable = %q, want %q", got, tc.want)
			}
		})
	}
}

// flakyFixture is the fixture with a visible test, tests/test_flaky.py::test_flaky, that
// passes at the base and fails its first fails runs, counted in a file of its own outside the
// tree: a flake of the environment, not of the patch. template is bug_tests' command after
// pytest.
func flakyFixture(t *testing.T, fails int, body, template string) fixture {
	counter := sweeptest.Reachable(t, t.TempDir())
	if err := os.Chmod(counter, 0o777); err != nil {
		t.Fatal(err)
	}
	files := maps.Clone(baseFiles)
	files["tests/test_flaky.py"] = fmt.Sprintf(`import os

COUNTER = %q


def test_flaky():
    n = int(open(COUNTER).read()) if os.path.exists(COUNTER) else 0
    with open(COUNTER, "w") as f:
        f.write(str(n + 1))
    %s
    assert n >= %d
`, filepath.Join(counter, "runs"), body, fails)
	f := newFixtureOf(t, files, func(b *Bundle) {
		if template != "" {
			b.BugTests.Command.Command = sweeptest.Pytest(t) + " -rA -p no:cacheprovider " + template
		}
	})
	sweeptest.WriteFiles(t, f.bundle, map[string]string{"base_tests.json": `["tests/test_visible.py::test_neg", "tests/test_visible.py::test_add_zero", "tests/test_flaky.py::test_flaky"]`})
	return f
}

const flakyID = "tests/test_flaky.py::test_flaky"

// withRechecks sets the re-check's R.
func withRechecks(r int) func(*Options) { return func(o *Options) { o.FlakeRechecks = r } }

// The re-check off grades as SWE-sweep: a visible test that fails once is a regression, and the
// result has the nine keys only.
func TestFlakeRecheckOffCountsTheRegression(t *testing.T) {
	f := flakyFixture(t, 1, "", "")
	g := f.grade(t, f.diffOf(t, writes(t, map[string]string{"calc.py": calc(fixedAdd, "", "")})), nil)
	want := Reward{NSubtasks: 2, NResolved: 1, NRegressions: 1, AgentPatchApplied: 1, AgentBuildOK: 1}.Result()
	if d := cmp.Diff(want, g.result); d != "" {
		t.Errorf("reward (-want +got):\n%s\nlog:\n%s", d, g.log)
	}
	if g.ev.FlakeRecheck != nil || !cmp.Equal(g.ev.Regressions, []string{flakyID}) {
		t.Errorf("flake_recheck = %+v, regressions %v; want none and %s", g.ev.FlakeRecheck, g.ev.Regressions, flakyID)
	}
}

// On, the same flake is re-run, passes, and is cleared; the result says how many were.
func TestFlakeRecheckClearsAFlake(t *testing.T) {
	for _, tc := range []struct {
		name     string
		template string // bug_tests after pytest; "" is the fixture's {tests}
	}{
		{name: "bug_tests with {tests}"},
		{name: "bug_tests with {files} {names}, as the sample tasks", template: "{files} {names}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := flakyFixture(t, 1, "", tc.template)
			g := f.grade(t, f.diffOf(t, writes(t, map[string]string{"calc.py": calc(fixedAdd, "", "")})), withRechecks(3))
			want := Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1,
				Rechecked: true, RegressionsCleared: 1}.Result()
			if d := cmp.Diff(want, g.result); d != "" {
				t.Errorf("reward (-want +got):\n%s\nlog:\n%s", d, g.log)
			}
			rc := g.ev.FlakeRecheck
			if rc == nil || rc.Rechecks != 3 || !cmp.Equal(rc.Regressions, []string{flakyID}) || !cmp.Equal(rc.Cleared, []string{flakyID}) ||
				len(rc.Runs) != 1 || !cmp.Equal(rc.Runs[0].Passed, []string{flakyID}) || rc.Stopped != "" {
				t.Errorf("flake_recheck = %+v, want %s cleared by its first re-run", rc, flakyID)
			}
			if len(g.ev.Regressions) != 0 || g.ev.VisibleTests[flakyID] != "failed" {
				t.Errorf("regressions %v, visible_tests[%s] %q: want none left, and the visible run's failure kept", g.ev.Regressions, flakyID, g.ev.VisibleTests[flakyID])
			}
			if _, ok := g.ev.Timings["recheck"]; !ok {
				t.Errorf("timings %v have no recheck", g.ev.Timings)
			}
		})
	}
}

// R is the most re-runs: a flake that needs more stands.
func TestFlakeRecheckStopsAfterR(t *testing.T) {
	for _, tc := range []struct {
		r           int
		wantCleared int
	}{{r: 1}, {r: 2, wantCleared: 1}} {
		t.Run(fmt.Sprintf("R=%d", tc.r), func(t *testing.T) {
			f := flakyFixture(t, 2, "", "") // fails the visible run and the first re-run
			g := f.grade(t, f.diffOf(t, writes(t, map[string]string{"calc.py": calc(fixedAdd, "", "")})), withRechecks(tc.r))
			if got := g.result[reward.KeyRegressionsCleared]; got != float64(tc.wantCleared) {
				t.Errorf("%s = %v, want %d\nlog:\n%s", reward.KeyRegressionsCleared, got, tc.wantCleared, g.log)
			}
			if got := g.result[reward.KeyRegressions]; got != float64(1-tc.wantCleared) {
				t.Errorf("%s = %v, want %d", reward.KeyRegressions, got, 1-tc.wantCleared)
			}
			if n := len(g.ev.FlakeRecheck.Runs); n != tc.r {
				t.Errorf("%d re-runs, want %d", n, tc.r)
			}
		})
	}
}

// A test the patch breaks fails every re-run and stays a regression.
func TestFlakeRecheckKeepsARealRegression(t *testing.T) {
	f := newFixture(t, nil)
	g := f.grade(t, f.diffOf(t, writes(t, map[string]string{"calc.py": calc(fixedAdd, "", brokenNeg)})), withRechecks(3))
	want := Reward{NSubtasks: 2, NResolved: 1, NRegressions: 1, AgentPatchApplied: 1, AgentBuildOK: 1, Rechecked: true}.Result()
	if d := cmp.Diff(want, g.result); d != "" {
		t.Errorf("reward (-want +got):\n%s\nlog:\n%s", d, g.log)
	}
	rc := g.ev.FlakeRecheck
	if rc == nil || len(rc.Runs) != 3 || len(rc.Cleared) != 0 || !cmp.Equal(g.ev.Regressions, []string{"tests/test_visible.py::test_neg"}) {
		t.Errorf("flake_recheck = %+v, regressions %v; want test_neg re-run 3 times and standing", rc, g.ev.Regressions)
	}
}

// A re-run that hangs leaves the regression standing: the trial is measured, scored 0, with no
// hang verdict (the visible run ended) and no grader failure.
func TestFlakeRecheckHangStands(t *testing.T) {
	f := flakyFixture(t, 1, "if n >= 1:\n        import time; time.sleep(60)", "")
	out := filepath.Join(t.TempDir(), "verifier")
	o := f.options(f.agentPatch(t, map[string]string{"calc.py": calc(fixedAdd, "", "")}), out)
	o.FlakeRechecks = 2
	var log strings.Builder
	o.Log = &log
	b, err := LoadBundle(f.bundle)
	if err != nil {
		t.Fatal(err)
	}
	b.BugTests.TimeoutSec = 5
	writeBundle(t, f.bundle, *b)
	got, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if got[reward.KeyRegressions] != 1 || got[reward.KeyRegressionsCleared] != 0 || got[reward.KeyReward] != 0 || got[reward.KeyGraderFailed] != 0 {
		t.Errorf("reward = %v, want the regression standing, measured\nlog:\n%s", got, log.String())
	}
	var ev Eval
	sweeptest.ReadJSON(t, filepath.Join(out, "eval.json"), &ev)
	if rc := ev.FlakeRecheck; rc == nil || len(rc.Runs) != 1 || !strings.Contains(rc.Stopped, "re-run 1 ran past its limit") {
		t.Errorf("flake_recheck = %+v, want one re-run, stopped at its limit", rc)
	}
	if ev.Verdict != nil {
		t.Errorf("verdict = %+v, want none", ev.Verdict)
	}
}

// Adversarial: code under test that plants a runner configuration for the re-run finds it
// removed by the guard before the re-run, as before every step.
func TestExploitRecheckConftest(t *testing.T) {
	f := exploitFixture(t)
	// The conftest puts the right neg in place before the test module imports it.
	fixNeg := "import calc\ncalc.neg = lambda a: -a\n"
	plant := fmt.Sprintf("import os\nos.makedirs('tests', exist_ok=True)\nopen('tests/conftest.py', 'w').write(%q)\n", fixNeg)
	patch := f.diffOf(t, writes(t, map[string]string{"calc.py": plant + calc(fixedAdd, "", brokenNeg)}))
	g := f.grade(t, patch, withRechecks(2))
	if g.result[reward.KeyRegressions] != 1 || g.result[reward.KeyRegressionsCleared] != 0 || g.result[reward.KeyReward] != 0 {
		t.Errorf("reward = %v, want test_neg still a regression\nlog:\n%s", g.result, g.log)
	}
	removed := false
	for _, gr := range g.ev.Guard {
		removed = removed || (gr.Before == "the flake re-check" && contains(gr.Removed, "tests/conftest.py"))
	}
	if !removed {
		t.Errorf("guard = %+v, want tests/conftest.py removed before the flake re-check", g.ev.Guard)
	}
}

// Adversarial, the residual risk: a patch can make a test it breaks pass when it is re-run
// alone (here, when pytest is given that test by id). The re-check then clears it, which is
// why it is off by default: off, it is a regression; on, it is cleared and counted in
// n_regressions_cleared, and the bugs are what they were: the reward is n_resolved over
// n_subtasks, never more.
func TestExploitRecheckClearsAPatchThatPassesAlone(t *testing.T) {
	alone := "import sys\n\n\ndef neg(a):\n    if any('::test_neg' in arg for arg in sys.argv):\n        return -a\n    return a\n"
	f := exploitFixture(t)
	patch := f.diffOf(t, writes(t, map[string]string{"calc.py": calc(fixedAdd, "", alone)}))
	off := f.grade(t, patch, nil)
	if off.result[reward.KeyRegressions] != 1 || off.result[reward.KeyReward] != 0 {
		t.Errorf("off: reward = %v, want the regression counted", off.result)
	}
	on := f.grade(t, patch, withRechecks(1))
	want := Reward{Reward: 0.5, NSubtasks: 2, NResolved: 1, VisibleOK: 1, AgentPatchApplied: 1, AgentBuildOK: 1, Rechecked: true, RegressionsCleared: 1}.Result()
	if d := cmp.Diff(want, on.result); d != "" {
		t.Errorf("on: reward (-want +got):\n%s\nlog:\n%s", d, on.log)
	}
}

func TestFlakeRechecksOptionErrors(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{name: "above the maximum", mod: withRechecks(MaxFlakeRechecks + 1),
			want: fmt.Sprintf("--flake-rechecks is %d: give the number of re-runs of a visible regression, 0 (off) to %d", MaxFlakeRechecks+1, MaxFlakeRechecks)},
		{name: "negative", mod: withRechecks(-1), want: "--flake-rechecks is -1"},
		{name: "with --oracle", mod: func(o *Options) { o.FlakeRechecks, o.Oracle = 1, true }, want: "--oracle grades the pristine tree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := f.options(filepath.Join(t.TempDir(), "none.patch"), t.TempDir())
			tc.mod(&o)
			got, err := Run(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run error = %v, want %q", err, tc.want)
			}
			if got[reward.KeyGraderFailed] != 1 {
				t.Errorf("reward = %v, want a grader failure", got)
			}
		})
	}
}
