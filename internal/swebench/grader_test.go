package swebench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// The verifier's grader run for real on the calc project of exploits_test.go: a git repository
// standing in for /testbed, bash, git, patch and pytest.

// graderDir writes a grader directory: inst as instance.json, cfg as grading.json.
func graderDir(t *testing.T, inst Instance, cfg GradingConfig) string {
	t.Helper()
	dir := t.TempDir()
	for name, v := range map[string]any{InstanceFile: inst, GradingFile: cfg} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// calcPython is the interpreter with pytest (sweeptest.PythonWithPytest), set by each test.
var calcPython = "python3"

// calcGrading runs pytest on the whole suite of the calc project, without conda.
func calcGrading(version string) GradingConfig {
	none, tests := []string{}, []string{"tests"}
	return GradingConfig{GradingVersion: version, TimeoutSec: 60, TestCommand: calcPython + " -m pytest -rA -p no:cacheprovider",
		Directives: &tests, Setup: &none}
}

// testUser is this package's test identity: sandbox.Reap kills every process of it.
var testUser = sandbox.Identity{UID: 65542, GID: 65542}

// requireRoot fails a test that switches to the test user when it cannot.
func requireRoot(t *testing.T) {
	t.Helper()
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this test runs the tests as uid %d and needs root: %v", testUser.UID, err)
	}
}

func TestRunGraderForReal(t *testing.T) {
	requireTools(t)
	requireRoot(t)
	calcPython = sweeptest.PythonWithPytest(t)
	slowAdd := "import time\n\n\ndef add(a, b):\n    time.sleep(60)\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
	tests := map[string]struct {
		model   map[string]string // nil: a patch that does not apply; empty: an empty patch file
		timeout float64
		version string
		want    reward.Result
		// wantReport says report.json is written (a completed instance); wantError is eval.json's error.
		wantReport   bool
		wantResolved bool
		wantError    string
		wantMethod   string
	}{
		"a fix resolves": {
			model: map[string]string{"calc.py": fixedCalc}, version: "5", wantReport: true, wantResolved: true, wantMethod: "git apply --verbose",
			want: reward.Result{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1, "grader_failed": 0, "swebench_error": 0, "agent_patch_applied": 1, "swebench_official_resolved": 1, RewardOfficialError: 0, RewardHardenedResolved: 1, RewardHardenedError: 0, RewardScoresOfficial: 0, RewardVerdictsDiffer: 0},
		},
		"an unrelated change does not resolve": {
			model: map[string]string{"README": "hello\n"}, version: "4.1", wantReport: true, wantMethod: "git apply --verbose",
			want: reward.Result{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1, "grader_failed": 0, "swebench_error": 0, "agent_patch_applied": 1, "swebench_official_resolved": 0, RewardOfficialError: 0, RewardHardenedResolved: 0, RewardHardenedError: 0, RewardScoresOfficial: 0, RewardVerdictsDiffer: 0},
		},
		"a patch that does not apply is an error": {
			model: nil, version: "5", wantError: "the model patch did not apply",
			want: reward.Result{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1, "grader_failed": 0, "swebench_error": 1, "agent_patch_applied": 0, "swebench_official_resolved": 0, RewardOfficialError: 1, RewardHardenedResolved: 0, RewardHardenedError: 1, RewardScoresOfficial: 0, RewardVerdictsDiffer: 0},
		},
		"tests that run past the timeout are an error": {
			model: map[string]string{"calc.py": slowAdd}, timeout: 2, version: "5", wantError: "the tests timed out", wantMethod: "git apply --verbose",
			want: reward.Result{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1, "grader_failed": 0, "swebench_error": 1, "agent_patch_applied": 0, "swebench_official_resolved": 0, RewardOfficialError: 1, RewardHardenedResolved: 0, RewardHardenedError: 1, RewardScoresOfficial: 0, RewardVerdictsDiffer: 0},
		},
		"an empty patch is an error": {
			model: map[string]string{}, version: "4.1", wantError: "the model patch is empty: the agent changed nothing",
			want: reward.Result{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1, "grader_failed": 0, "swebench_error": 1, "agent_patch_applied": 0, "swebench_official_resolved": 0, RewardOfficialError: 1, RewardHardenedResolved: 0, RewardHardenedError: 1, RewardScoresOfficial: 0, RewardVerdictsDiffer: 0},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t, calcProject)
			inst := calcInstance(t, s, map[string]string{"tests/test_calc.py": calcTestFiles["tests/test_calc.py"], "tests/test_new.py": calcTestFiles["tests/test_new.py"]},
				[]string{"tests/test_calc.py::test_add", "tests/test_new.py::test_new"})
			var patch string
			switch {
			case tc.model == nil:
				patch = "diff --git a/nothing.py b/nothing.py\n--- a/nothing.py\n+++ b/nothing.py\n@@ -1 +1 @@\n-x\n+y\n"
			case len(tc.model) > 0:
				patch = s.diff(t, tc.model)
			}
			cfg := calcGrading(tc.version)
			if tc.timeout > 0 {
				cfg.TimeoutSec = tc.timeout
			}
			out := filepath.Join(t.TempDir(), "verifier")
			// A report of an earlier run must not survive an error instance.
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, pc.RecordSWEBenchReport), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			var log bytes.Buffer
			got, err := RunGrader(context.Background(), GraderRun{ConfigDir: graderDir(t, inst, cfg), PatchPath: s.writePatch(t, patch),
				Workdir: s.dir, OutDir: out, Log: &log, Env: s.env, TestUser: testUser})
			if err != nil {
				t.Fatalf("grader failed: %v\nlog:\n%s", err, log.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("reward (-want +got):\n%s\nlog:\n%s", diff, log.String())
			}
			var onDisk reward.Result
			sweeptest.ReadJSON(t, filepath.Join(out, reward.FileJSON), &onDisk)
			if diff := cmp.Diff(got, onDisk); diff != "" {
				t.Errorf("reward.json differs from the returned reward:\n%s", diff)
			}
			var ev GraderEval
			sweeptest.ReadJSON(t, filepath.Join(out, pc.RecordEval), &ev)
			if ev.Error != tc.wantError || ev.InstanceID != inst.InstanceID || ev.Patch == nil || ev.Patch.Method != tc.wantMethod {
				t.Errorf("eval.json: error %q, instance %q, patch %+v; want error %q, method %q", ev.Error, ev.InstanceID, ev.Patch, tc.wantError, tc.wantMethod)
			}
			rep, err := ReadReport(filepath.Join(out, pc.RecordSWEBenchReport))
			switch {
			case tc.wantReport && err != nil:
				t.Errorf("no report.json: %v", err)
			case tc.wantReport && (rep.InstanceID != inst.InstanceID || rep.Resolved != tc.wantResolved || !rep.PatchSuccessfullyApplied):
				t.Errorf("report.json: %+v, want resolved %v for %s", rep, tc.wantResolved, inst.InstanceID)
			case !tc.wantReport && err == nil:
				t.Errorf("an error instance has a report.json: %+v", rep)
			}
			if tc.wantReport && !strings.Contains(log.String(), MarkerStartTestOutput) {
				t.Errorf("the log lacks the eval script's output:\n%s", log.String())
			}
		})
	}
}

func TestRunGraderFailures(t *testing.T) {
	valid := Instance{InstanceID: "calc__calc-1", Repo: "pytest-dev/pytest", BaseCommit: "abc", TestPatch: "diff --git a/t.py b/t.py\n"}
	tests := map[string]struct {
		files   map[string]string // the grader directory; absent files are not written
		workdir string            // "" is an existing directory
		patch   string            // the model patch's content; "dir" makes it a directory
		noBash  bool              // PATH finds no bash
		// rootTestUser passes the zero identity (root) as the test user.
		rootTestUser bool
		want         []string // parts of the grader error
	}{
		"no repository at the workdir": {
			files: map[string]string{GradingFile: `{"grading_version": "5"}`}, patch: "diff --git a/x b/x\n", workdir: "@plain",
			want: []string{"has no .git", "the verifier image must hold the repository"},
		},
		"no bash": {
			files: map[string]string{GradingFile: `{"grading_version": "5"}`}, patch: "diff --git a/x b/x\n", noBash: true,
			want: []string{"run apply_patch.sh", "the verifier image needs bash"},
		},
		"an unreadable patch": {
			files: map[string]string{GradingFile: `{"grading_version": "5"}`}, patch: "dir",
			want: []string{"read the model patch", "is a directory"},
		},
		"no instance.json": {
			files: map[string]string{GradingFile: `{"grading_version": "5"}`},
			want:  []string{"read instances", InstanceFile},
		},
		"two instances": {
			files: map[string]string{InstanceFile: `[{"instance_id": "a"}, {"instance_id": "b"}]`, GradingFile: `{"grading_version": "5"}`},
			want:  []string{InstanceFile, "holds 2 instances", "exactly one", "sweep swebench import"},
		},
		"no test patch": {
			files: map[string]string{InstanceFile: `{"instance_id": "a", "base_commit": "abc"}`, GradingFile: `{"grading_version": "5"}`},
			want:  []string{InstanceFile, "instance a", "test_patch"},
		},
		"no grading version": {
			files: map[string]string{GradingFile: `{"timeout_sec": 10}`},
			want:  []string{GradingFile, "field grading_version", "use 4.1 or 5"},
		},
		"a misspelt field": {
			files: map[string]string{GradingFile: `{"grading_version": "5", "timeout": 10}`},
			want:  []string{GradingFile, `unknown field "timeout"`, "docs/swebench.md"},
		},
		"an unknown scored verdict": {
			files: map[string]string{GradingFile: `{"grading_version": "5", "scored_verdict": "strict"}`},
			want:  []string{GradingFile, "field scored_verdict", `"strict"`, `"hardened"`, `"official"`},
		},
		"a negative timeout": {
			files: map[string]string{GradingFile: `{"grading_version": "4.1", "timeout_sec": -1}`},
			want:  []string{GradingFile, "field timeout_sec", "positive number"},
		},
		"an unknown parser": {
			files: map[string]string{GradingFile: `{"grading_version": "5", "log_parser": "parse_log_nothing"}`},
			want:  []string{GradingFile, "field log_parser", "parse_log_nothing", "parse_log_pytest"},
		},
		"no parser for the repository": {
			files: map[string]string{InstanceFile: `{"instance_id": "a", "repo": "me/mine", "base_commit": "abc", "test_patch": "x"}`, GradingFile: `{"grading_version": "5"}`},
			want:  []string{InstanceFile, `no log parser for repository "me/mine"`, "or log_parser in", GradingFile},
		},
		"the test user is root": {
			files: map[string]string{GradingFile: `{"grading_version": "5"}`}, patch: "x", rootTestUser: true,
			want: []string{"the test user is root", "--test-uid"},
		},
		"a test command that sets PYTHONPATH before pytest": {
			files: map[string]string{GradingFile: `{"grading_version": "5", "test_command": "PYTHONPATH=. pytest -rA"}`},
			want:  []string{GradingFile, "field test_command sets PYTHONPATH", "eval_commands"},
		},
		"no repository": {
			files:   map[string]string{GradingFile: `{"grading_version": "5"}`},
			workdir: "/nonexistent/testbed",
			want:    []string{`workdir "/nonexistent/testbed"`, "/testbed"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if _, ok := tc.files[InstanceFile]; !ok && name != "no instance.json" {
				b, _ := json.Marshal(valid)
				tc.files[InstanceFile] = string(b)
			}
			for f, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			workdir := tc.workdir
			if workdir == "@plain" {
				workdir = t.TempDir()
			}
			if workdir == "" {
				workdir = t.TempDir()
				if err := os.Mkdir(filepath.Join(workdir, ".git"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			patch := filepath.Join(t.TempDir(), "model.patch")
			switch tc.patch {
			case "":
			case "dir":
				if err := os.Mkdir(patch, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(patch, []byte(tc.patch), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.noBash {
				t.Setenv("PATH", t.TempDir())
			}
			out := t.TempDir()
			user := testUser
			if tc.rootTestUser {
				user = sandbox.Identity{}
			}
			got, err := RunGrader(context.Background(), GraderRun{ConfigDir: dir, PatchPath: patch, Workdir: workdir, OutDir: out, TestUser: user})
			if err == nil {
				t.Fatalf("no error; reward %v", got)
			}
			for _, p := range tc.want {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q lacks %q", err, p)
				}
			}
			if diff := cmp.Diff(reward.GraderFailed(), got); diff != "" {
				t.Errorf("reward (-want +got):\n%s", diff)
			}
			var onDisk reward.Result
			sweeptest.ReadJSON(t, filepath.Join(out, reward.FileJSON), &onDisk)
			var ev GraderEval
			sweeptest.ReadJSON(t, filepath.Join(out, pc.RecordEval), &ev)
			if onDisk.Measured() || ev.GraderError != err.Error() {
				t.Errorf("reward.json %v, eval.json grader_error %q; want grader_failed and %q", onDisk, ev.GraderError, err)
			}
			if _, err := os.Stat(filepath.Join(out, pc.RecordSWEBenchReport)); err == nil {
				t.Error("a failed grader wrote report.json")
			}
		})
	}
}

func TestGraderConfigRoundTrip(t *testing.T) {
	none := []string{}
	in := GradingConfig{GradingVersion: "4.1", Setup: &none}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"grading_version":"4.1","setup":[]}`; got != want {
		t.Errorf("marshal: %s, want %s", got, want)
	}
	g := GraderInput{Config: in}
	if opts := g.ScriptOptions("/testbed"); opts.Setup == nil || opts.Directives != nil {
		t.Errorf("setup [] must mean no setup and absent directives the test patch's: %+v", opts)
	}
	if got := g.Timeout().Seconds(); got != DefaultTimeoutSec {
		t.Errorf("default timeout %gs, want %d", got, DefaultTimeoutSec)
	}
}

// When the verifier's deadline ends the tests and nothing shows the hang is the patch's, the
// grader fails (not measured) and says why: the unpatched tree did not finish either, or the
// deadline left the tests too little time for a rerun to tell (steps.HangRerunMargin).
func TestRunGraderDeadlineHangNotMeasured(t *testing.T) {
	requireTools(t)
	requireRoot(t)
	calcPython = sweeptest.PythonWithPytest(t)
	for name, tc := range map[string]struct {
		deadline  time.Duration
		wantError string
		wantRerun bool
	}{
		"the unpatched tree hangs too": {deadline: DeadlineReserve + 12*time.Second, wantError: "the unpatched tree did not show the hang is the patch's", wantRerun: true},
		"too little time to tell":      {deadline: DeadlineReserve + 6*time.Second, wantError: "too soon to tell a hang from a slow start"},
	} {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t, calcProject)
			// The hidden test itself hangs, on any tree.
			inst := calcInstance(t, s, map[string]string{"tests/test_calc.py": calcTestFiles["tests/test_calc.py"],
				"tests/test_new.py": "import time\n\n\ndef test_new():\n    time.sleep(600)\n"},
				[]string{"tests/test_calc.py::test_add", "tests/test_new.py::test_new"})
			out := filepath.Join(t.TempDir(), "verifier")
			var log bytes.Buffer
			got, err := RunGrader(context.Background(), GraderRun{ConfigDir: graderDir(t, inst, calcGrading("5")), PatchPath: s.writePatch(t, s.diff(t, map[string]string{"calc.py": fixedCalc})),
				Workdir: s.dir, OutDir: out, Log: &log, Env: s.env, TestUser: testUser, Deadline: time.Now().Add(tc.deadline)})
			if err == nil || !strings.Contains(err.Error(), "not measured") || !strings.Contains(err.Error(), tc.wantError) || got.Measured() {
				t.Fatalf("reward %v, error %v: want a grader failure that says the hang is not measured (%s)\nlog:\n%s", got, err, tc.wantError, log.String())
			}
			var ev GraderEval
			sweeptest.ReadJSON(t, filepath.Join(out, pc.RecordEval), &ev)
			if !ev.DeadlineCut || (ev.Rerun != nil) != tc.wantRerun || (ev.Rerun != nil && ev.Rerun.Finished) {
				t.Errorf("eval.json deadline_cut %v, rerun %+v: want the cut recorded, and a rerun %v that did not finish", ev.DeadlineCut, ev.Rerun, tc.wantRerun)
			}
		})
	}
}

// The common script of the non-Python specs, for real: the test patch applied with --reject,
// the build commands after it as the test user (a conftest.py the build writes is put back),
// the test commands one a line without directives, and the instance resolves.
func TestRunGraderCommonScriptForReal(t *testing.T) {
	requireTools(t)
	requireRoot(t)
	calcPython = sweeptest.PythonWithPytest(t)
	for _, version := range []GradingVersion{V41, V5} {
		t.Run(string(version), func(t *testing.T) {
			s := newSandbox(t, calcProject)
			inst := calcInstance(t, s, map[string]string{"tests/test_calc.py": calcTestFiles["tests/test_calc.py"], "tests/test_new.py": calcTestFiles["tests/test_new.py"]},
				[]string{"tests/test_calc.py::test_add", "tests/test_new.py::test_new"})
			none := []string{}
			cfg := GradingConfig{GradingVersion: string(version), TimeoutSec: 60, Script: ScriptCommon, Setup: &none, Directives: &none,
				Build:       []string{"echo the-build-ran > build.log", "printf 'raise SystemExit(3)\\n' > conftest.py"},
				TestCommand: "echo the-first-test-command\n" + calcPython + " -m pytest -rA -p no:cacheprovider tests"}
			hardened, official, ev, log := gradeForReal(t, s, inst, cfg, s.diff(t, map[string]string{"calc.py": fixedCalc}))
			if hardened != "resolved" || official != "resolved" {
				t.Errorf("hardened %s, official %s; want resolved for both\nlog:\n%s", hardened, official, log)
			}
			start := strings.Index(log, MarkerStartTestOutput)
			for _, want := range []string{"+ git apply --verbose --reject - <<", "[grader] build.sh as uid"} {
				if i := strings.Index(log, want); i < 0 || i > start {
					t.Errorf("the log lacks %q before the start marker:\n%s", want, log)
				}
			}
			if !strings.Contains(log[start:], "the-first-test-command") {
				t.Errorf("the first test command did not run after the start marker:\n%s", log)
			}
			if ev.BuildGuard == nil || !slices.Contains(ev.BuildGuard.Removed, "conftest.py") {
				t.Errorf("build guard %+v: want the conftest.py the build wrote removed", ev.BuildGuard)
			}
		})
	}
}
