package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func verifierSpec(paths Paths) pc.StageSpec {
	return pc.StageSpec{Stage: pc.StageVerifier, Task: "t", Trial: "tr", TimeoutSeconds: 30, GraceSeconds: 0.5,
		Env:       map[string]string{"VERIFIER_FLAG": "on"},
		Artifacts: []pc.Artifact{{Path: paths.Patch, Key: pc.PatchKey}}}
}

func TestVerifyTestScript(t *testing.T) {
	for _, tc := range []struct {
		name        string
		testSh      string // "" : no test.sh
		timeout     float64
		asRoot      bool // the case switches users
		wantReason  string
		wantMsg     string
		wantRewards map[string]float64
	}{
		{name: "reward.json; exit code ignored", testSh: `test "$VERIFIER_FLAG" = on || exit 9
test -f "$PATCH_AT" || exit 9
test ! -e "$VERIFIER_DIR/stale.txt" || exit 9
echo '{"reward": 1, "n_resolved": 3}' > "$VERIFIER_DIR/reward.json"; echo graded; exit 1`,
			wantRewards: map[string]float64{"reward": 1, "n_resolved": 3}},
		{name: "reward.txt", testSh: `echo ' 0.25 ' > "$VERIFIER_DIR/reward.txt"`, wantRewards: map[string]float64{"reward": 0.25}},
		{name: "missing test.sh", wantReason: reasons.RewardMissing, wantMsg: "no test script"},
		{name: "no reward file", testSh: "true", wantReason: reasons.RewardMissing, wantMsg: "neither reward.json nor reward.txt"},
		{name: "string reward", testSh: `echo '{"reward": "1"}' > "$VERIFIER_DIR/reward.json"`,
			wantReason: reasons.RewardMissing, wantMsg: `reward.json key "reward": "1" is not a number`},
		{name: "NaN reward", testSh: `echo '{"reward": NaN}' > "$VERIFIER_DIR/reward.json"`,
			wantReason: reasons.RewardMissing, wantMsg: "reward.json is not a JSON object: invalid character 'N'"},
		{name: "nested reward", testSh: `echo '{"reward": {"a": 1}}' > "$VERIFIER_DIR/reward.json"`,
			wantReason: reasons.RewardMissing, wantMsg: `reward.json key "reward": {"a": 1} is not a number`},
		{name: "bad reward.txt", testSh: `echo 'inf' > "$VERIFIER_DIR/reward.txt"`,
			wantReason: reasons.RewardMissing, wantMsg: `reward.txt holds "inf", which is not a number`},
		{name: "symlinked reward.json is refused, not followed", testSh: `echo '{"reward": 1}' > "$VERIFIER_DIR/../forged.json"
ln -s "$VERIFIER_DIR/../forged.json" "$VERIFIER_DIR/reward.json"`,
			wantReason: reasons.RewardMissing, wantMsg: "reward.json is a symbolic link: refused: not a regular file"},
		{name: "what test.sh runs as another user cannot forge the done file", testSh: `setpriv --reuid 65543 --regid 65543 --clear-groups sh -c 'echo "{\"rewards\": {\"reward\": 1}}" > "$DONE_AT"' && exit 9
echo 0 > "$VERIFIER_DIR/reward.txt"`, asRoot: true, wantRewards: map[string]float64{"reward": 0}},
		{name: "timeout", testSh: `echo '{"reward": 1}' > "$VERIFIER_DIR/reward.json"; sleep 30 & sleep 30`, timeout: 0.3,
			wantReason: reasons.VerifierTimeout, wantMsg: "verifier timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.asRoot {
				requireRoot(t)
			}
			files := map[string]string{"sweep/input/model.patch": "diff\n", "logs/verifier/stale.txt": "old"}
			if tc.testSh != "" {
				files["tests/test.sh"] = tc.testSh + "\n"
			}
			paths := podRoot(t, files)
			t.Setenv("VERIFIER_DIR", paths.VerifierDir)
			t.Setenv("PATCH_AT", paths.Patch)
			t.Setenv("DONE_AT", paths.Done)
			openToOthers(t, paths)
			spec := verifierSpec(paths)
			if tc.timeout > 0 {
				spec.TimeoutSeconds = tc.timeout
			}
			d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: selfBinary, TestUser: testIdentity})
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tc.wantReason || !strings.Contains(d.Message, tc.wantMsg) {
				t.Errorf("done = reason %q message %q; want %q, %q", d.Reason, d.Message, tc.wantReason, tc.wantMsg)
			}
			if d := cmp.Diff(tc.wantRewards, d.Rewards); d != "" {
				t.Errorf("rewards (-want +got):\n%s", d)
			}
			if _, err := ReadDone(paths.Done); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(paths.testStdout()); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestVerifyBuiltInGrader(t *testing.T) {
	pytest := sweeptest.Pytest(t)
	repo := sweeptest.GitRepo(t, map[string]string{"tests/__init__.py": "", "m.py": "def f():\n    return 1\n", "tests/test_v.py": "from m import f\n\ndef test_v():\n    assert f() in (1, 2)\n"}, "baseline")
	sweeptest.WriteFiles(t, repo, map[string]string{"tests/test_h.py": "from m import f\n\ndef test_h():\n    assert f() == 2\n"})
	testPatch := sweeptest.Diff(t, repo, "baseline")
	sweeptest.WriteFiles(t, repo, map[string]string{"m.py": "def f():\n    return 2\n"})
	fix := sweeptest.Diff(t, repo, "baseline")
	bundle := `{"schema": "sweep-bundle/1", "base_ref": "baseline", "base_tests": "base.json",
  "visible": {"command": "` + pytest + ` -rA -p no:cacheprovider tests", "format": "pytest"},
  "bug_tests": {"command": "` + pytest + ` -rA -p no:cacheprovider {tests}", "format": "pytest"},
  "bugs": [{"id": "b1", "test_patch": "b1.patch", "fail_to_pass": ["tests/test_h.py::test_h"]}]}`
	for _, tc := range []struct {
		name        string
		bundle      map[string]string
		grader      string
		rechecks    int32
		patch       string
		wantReason  string
		wantMsg     string
		wantRewards map[string]float64
	}{
		{name: "resolved", grader: pc.GraderSWESweep, patch: fix,
			bundle:      map[string]string{"bundle.json": bundle, "base.json": `["tests/test_v.py::test_v"]`, "b1.patch": testPatch},
			wantRewards: map[string]float64{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "n_partial": 0, "visible_ok": 1, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 1, "grader_failed": 0}},
		{name: "resolved, with the flake re-check", grader: pc.GraderSWESweep, rechecks: 2, patch: fix,
			bundle: map[string]string{"bundle.json": bundle, "base.json": `["tests/test_v.py::test_v"]`, "b1.patch": testPatch},
			wantRewards: map[string]float64{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "n_partial": 0, "visible_ok": 1, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 1, "grader_failed": 0,
				reward.KeyRegressionsCleared: 0}},
		{name: "grader crash", grader: pc.GraderSWESweep, bundle: map[string]string{"bundle.json": "{"},
			wantReason: reasons.GraderFailed, wantMsg: "the grader reported grader_failed",
			wantRewards: reward.EvaluationFailed()},
		{name: "unknown grader", grader: "magic", wantReason: reasons.GraderFailed, wantMsg: `unknown grader "magic": use one of `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range tc.bundle {
				files["tests/"+k] = v
			}
			if tc.patch != "" {
				files["sweep/input/model.patch"] = tc.patch
			}
			paths := podRoot(t, files)
			spec := verifierSpec(paths)
			spec.Workdir = repo
			spec.Verifier = &pc.VerifierSpec{Grader: tc.grader, FlakeRechecks: tc.rechecks} // the bundle defaults to the tests directory
			d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: selfBinary, TestUser: testIdentity})
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tc.wantReason || !strings.Contains(d.Message, tc.wantMsg) {
				t.Errorf("done = reason %q message %q; want %q, %q\n%s", d.Reason, d.Message, tc.wantReason, tc.wantMsg, sweeptest.ReadFile(t, paths.testStdout()))
			}
			if d := cmp.Diff(tc.wantRewards, d.Rewards); d != "" {
				t.Errorf("rewards (-want +got):\n%s", d)
			}
			if tc.wantRewards != nil {
				if _, err := os.Stat(filepath.Join(paths.VerifierDir, "eval.json")); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func TestVerifyGraderThatWritesNoReward(t *testing.T) {
	paths := podRoot(t, nil)
	spec := verifierSpec(paths)
	spec.Verifier = &pc.VerifierSpec{Grader: pc.GraderSWESweep, GraderDir: paths.Tests}
	// A "binary" that exits without writing anything stands for a grader that crashed hard.
	d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: "/bin/false", TestUser: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != reasons.GraderFailed || !strings.Contains(d.Message, "neither reward.json nor reward.txt (exit code 1)") {
		t.Errorf("done = %q %q", d.Reason, d.Message)
	}
	got, err := reward.ParseJSON([]byte(sweeptest.ReadFile(t, paths.rewardJSON())))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(reward.GraderFailed(), got); d != "" {
		t.Errorf("reward.json (-want +got):\n%s", d)
	}
}

// The verifier stage with Grader "swebench": the grader directory (the task's grader ConfigMap
// in a Pod) holds the instance, the patch is put back at its artifact path, and the built-in
// grader of the real binary grades it.
func TestVerifySWEBenchGrader(t *testing.T) {
	pytest := sweeptest.Pytest(t)
	t.Setenv("HOME", t.TempDir()) // the eval script adds /testbed to git's safe directories
	for _, tc := range []struct {
		name        string
		grading     string
		fix         bool
		wantReason  string
		wantRewards map[string]float64
		wantReport  bool
	}{
		{name: "resolved", fix: true, wantReport: true,
			grading: `{"grading_version": "5", "timeout_sec": 60, "setup": [], "directives": [], "test_command": "` + pytest + ` -rA -p no:cacheprovider"}`,
			wantRewards: map[string]float64{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1, "grader_failed": 0, "swebench_error": 0, "swebench_official_resolved": 1, "agent_patch_applied": 1,
				"swebench_hardened_resolved": 1, "swebench_hardened_error": 0, "swebench_official_error": 0, "swebench_scores_official": 0, "swebench_verdicts_differ": 0}},
		{name: "no patch is an error instance, not a grader failure",
			grading: `{"grading_version": "4.1", "setup": []}`,
			wantRewards: map[string]float64{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1, "grader_failed": 0, "swebench_error": 1, "swebench_official_resolved": 0, "agent_patch_applied": 0,
				"swebench_hardened_resolved": 0, "swebench_hardened_error": 1, "swebench_official_error": 1, "swebench_scores_official": 0, "swebench_verdicts_differ": 0}},
		{name: "bad grading.json is a grader failure", grading: `{"grading_version": "6"}`,
			wantReason: reasons.GraderFailed, wantRewards: map[string]float64{"reward": 0, "grader_failed": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := sweeptest.Reachable(t, sweeptest.GitRepo(t, map[string]string{"m.py": "def f():\n    return 1\n", "test_v.py": "from m import f\n\ndef test_v():\n    assert f() in (1, 2)\n"}, "baseline"))
			sweeptest.WriteFiles(t, repo, map[string]string{"test_h.py": "from m import f\n\ndef test_h():\n    assert f() == 2\n"})
			testPatch := sweeptest.Diff(t, repo, "baseline")
			sweeptest.WriteFiles(t, repo, map[string]string{"m.py": "def f():\n    return 2\n"})
			fix := sweeptest.Diff(t, repo, "baseline")
			inst, _ := json.Marshal(map[string]any{"instance_id": "m__m-1", "repo": "pytest-dev/pytest", "test_patch": testPatch,
				"base_commit":  strings.TrimSpace(sweeptest.Run(t, repo, "git", "rev-parse", "HEAD")),
				"FAIL_TO_PASS": []string{"test_h.py::test_h"}, "PASS_TO_PASS": `["test_v.py::test_v"]`})
			files := map[string]string{"sweep/grader/instance.json": string(inst), "sweep/grader/grading.json": tc.grading}
			if tc.fix {
				files["sweep/input/model.patch"] = fix
			}
			paths := podRoot(t, files)
			spec := verifierSpec(paths)
			// Not a test of deadlines: on a loaded machine, 30 s left the tests a budget the
			// steps before them had eaten, and the grader rightly found the run cut short.
			spec.TimeoutSeconds = 300
			spec.Workdir = repo
			spec.Verifier = &pc.VerifierSpec{Grader: pc.GraderSWEBench, GraderDir: filepath.Join(filepath.Dir(paths.Spec), "..", "grader")}
			d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: selfBinary, TestUser: testIdentity})
			if err != nil {
				t.Fatal(err)
			}
			log := sweeptest.ReadFile(t, paths.testStdout())
			if d.Reason != tc.wantReason {
				t.Errorf("reason %q (%s), want %q\n%s", d.Reason, d.Message, tc.wantReason, log)
			}
			if diff := cmp.Diff(tc.wantRewards, d.Rewards); diff != "" {
				t.Errorf("rewards (-want +got):\n%s\n%s", diff, log)
			}
			if _, err := os.Stat(filepath.Join(paths.VerifierDir, "report.json")); (err == nil) != tc.wantReport {
				t.Errorf("report.json exists: %v, want %v", err == nil, tc.wantReport)
			}
			if tc.wantReport && !strings.Contains(log, "+ : '>>>>> Start Test Output'") {
				t.Errorf("test-stdout.txt lacks the eval script's traced output:\n%s", log)
			}
		})
	}
}
