package swebench

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// officialLog wraps test output the way the eval script's log shows it.
func officialLog(output string, exitCode int) string {
	return "+ git apply -v -\nApplied patch tests/test_x.py cleanly.\n+ : '>>>>> Start Test Output'\n+ pytest -rA tests/test_x.py\n" +
		output + "\n+ sweep_test_exit_code=" + itoa(exitCode) + "\n+ : '>>>>> End Test Output'\n+ echo '>>>>> Test Exit Code: " + itoa(exitCode) +
		"'\n>>>>> Test Exit Code: " + itoa(exitCode) + "\n+ git checkout abc tests/test_x.py\n"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// sklearnInstance's log is read by parse_log_pytest_v2, which keeps whole ids under 5: the
// shape where an instance's id can be a truncation of several.
func sklearnInstance(f2p, p2p []string) Instance {
	return Instance{InstanceID: "scikit-learn__scikit-learn-1", Repo: "scikit-learn/scikit-learn", FailToPass: f2p, PassToPass: p2p}
}

func pytestInstance(f2p, p2p []string) Instance {
	return Instance{InstanceID: "owner__repo-1", Repo: "pytest-dev/pytest", FailToPass: f2p, PassToPass: p2p}
}

func TestGrade(t *testing.T) {
	const summary = "=== 2 passed in 0.01s ==="
	tests := map[string]struct {
		inst           Instance
		log            string
		version        GradingVersion
		wantResolution ResolvedStatus
		wantF2P        TestOutcomes
		wantP2P        TestOutcomes
		wantError      string
		wantLogProblem string
	}{
		"all pass": {
			inst:           pytestInstance([]string{"t.py::a"}, []string{"t.py::b"}),
			log:            officialLog("PASSED t.py::a\nPASSED t.py::b\n"+summary, 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{"t.py::b"}, Failure: []string{}},
		},
		"xfail counts as passing": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog("XFAIL t.py::a - reason\n=== 1 xfailed in 0.01s ===", 0),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"partial: one of two fail-to-pass fixed": {
			inst:           pytestInstance([]string{"t.py::a", "t.py::c"}, []string{"t.py::b"}),
			log:            officialLog("PASSED t.py::a\nFAILED t.py::c - boom\nPASSED t.py::b", 1),
			version:        V41,
			wantResolution: ResolvedPartial,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{"t.py::c"}},
			wantP2P:        TestOutcomes{Success: []string{"t.py::b"}, Failure: []string{}},
		},
		"missing and errored tests fail": {
			inst:           pytestInstance([]string{"t.py::a"}, []string{"t.py::b", "t.py::gone"}),
			log:            officialLog("PASSED t.py::a\nERROR t.py::b - fixture", 1),
			version:        V41,
			wantResolution: ResolvedNo,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{"t.py::b", "t.py::gone"}},
		},
		"4.1: skipped tests leave the ratio, so all-skipped fail-to-pass resolves": {
			inst:           pytestInstance([]string{"t.py::a"}, []string{"t.py::b"}),
			log:            officialLog("t.py::a SKIPPED\nSKIPPED t.py::a\nSKIPPED t.py::b\n=== 2 skipped in 0.01s ===", 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"4.1 quirk: a first word that is no status is neither pass nor fail": {
			inst:           pytestInstance([]string{"t.py::a"}, []string{"t.py::b"}),
			log:            officialLog("PASSEDX t.py::a\nPASSED t.py::b\n"+summary, 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{"t.py::b"}, Failure: []string{}},
		},
		"5: skipped fail-to-pass fails, skipped pass-to-pass passes": {
			inst:           pytestInstance([]string{"t.py::a"}, []string{"t.py::b"}),
			log:            officialLog("SKIPPED t.py::a\nSKIPPED t.py::b\n=== 2 skipped in 0.01s ===", 0),
			version:        V5,
			wantResolution: ResolvedNo,
			wantF2P:        TestOutcomes{Success: []string{}, Failure: []string{"t.py::a"}},
			wantP2P:        TestOutcomes{Success: []string{"t.py::b"}, Failure: []string{}},
		},
		"xfail(run=False) passes, as officially (4.1)": {
			inst:           pytestInstance([]string{"t.py::a"}, []string{"t.py::b"}),
			log:            officialLog("PASSED t.py::a\nXFAIL t.py::b - reason: [NOTRUN] broken on purpose\n"+summary, 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{"t.py::b"}, Failure: []string{}},
		},
		"xfail(run=False) passes, as officially (5)": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog("XFAIL t.py::a - reason: [NOTRUN] skip the work\n=== 1 xfailed in 0.01s ===", 0),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"5, sklearn-15100 shape: a truncated id matching a PASSED and an XFAIL resolves": {
			inst:           sklearnInstance([]string{"t.py::p[a"}, nil),
			log:            officialLog("PASSED t.py::p[a b]\nXFAIL t.py::p[a c]\n"+summary, 0),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::p[a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"5: truncated pass-to-pass id matching a SKIPPED then a FAILED takes the first": {
			inst:           sklearnInstance(nil, []string{"t.py::p[a"}),
			log:            officialLog("SKIPPED t.py::p[a b]\nFAILED t.py::p[a c]\n"+summary, 1),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{"t.py::p[a"}, Failure: []string{}},
		},
		// Official: RESOLVED_NO (v5.0.1's get_logs_eval and get_eval_tests_report on this log):
		// its parse map holds the summary's FAILED before the SKIPPED, although the verbose
		// lines name the skipped test first.
		"5: a truncated id takes the status the parse map inserted first, not the one the text names first": {
			inst: pytestInstance([]string{"t.py::g"}, []string{"t.py::f[a"}),
			log: officialLog("t.py::f[a-2] SKIPPED [ 33%]\nt.py::f[a-1] FAILED [ 66%]\nt.py::g PASSED [100%]\n"+
				"=== short test summary info ===\nPASSED t.py::g\nFAILED t.py::f[a-1] - AssertionError: boom\nSKIPPED t.py::f[a-2]", 1),
			version:        V5,
			wantResolution: ResolvedNo,
			wantF2P:        TestOutcomes{Success: []string{"t.py::g"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{"t.py::f[a"}},
		},
		"5: truncated ids that disagree on passing are missing": {
			inst:           sklearnInstance([]string{"t.py::p[a"}, nil),
			log:            officialLog("PASSED t.py::p[a b]\nFAILED t.py::p[a c]\n"+summary, 1),
			version:        V5,
			wantResolution: ResolvedNo,
			wantF2P:        TestOutcomes{Success: []string{}, Failure: []string{"t.py::p[a"}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"5: fail-only tests are looked up exactly, not by prefix": {
			inst: Instance{InstanceID: "o__r-1", Repo: "o/r", LogParser: "parse_log_pytest_v2", EvalType: FailOnly,
				FailToPass: []string{"t.py::p[a"}},
			log:            officialLog("FAILED t.py::p[a b]\n"+summary, 1),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::p[a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"a bare CR ends a line, as in Python's text mode": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog("progress 10%\rPASSED t.py::a\r\n"+summary, 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"5: nothing parsed, a mocha count shows the suite ran and the exit code is not checked": {
			inst: Instance{InstanceID: "o__r-1", Repo: "o/r", LogParser: "parse_log_pytest", EvalType: FailOnly,
				FailToPass: []string{"renders"}},
			log:            officialLog("  3 passing (20ms)", 2),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"renders"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"5: a zero karma count is no evidence": {
			inst: Instance{InstanceID: "o__r-1", Repo: "o/r", LogParser: "parse_log_pytest", EvalType: FailOnly,
				FailToPass: []string{"renders"}},
			log:            officialLog("Executed 0 of 0 SUCCESS", 0),
			version:        V5,
			wantLogProblem: "invalid run: no test results and no sign that the test suite ran",
		},
		"truncated dataset id, 4.1: matches the truncated parse": {
			inst:           pytestInstance([]string{"t.py::p[a"}, nil),
			log:            officialLog("PASSED t.py::p[a b]\n"+summary, 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::p[a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"truncated dataset id, 5: whole ids that agree (parse_log_pytest_v2 keeps them whole)": {
			inst:           Instance{InstanceID: "astropy__astropy-1", Repo: "astropy/astropy", FailToPass: []string{"t.py::p[a"}},
			log:            officialLog("t.py::p[a b] PASSED\nt.py::p[a c] PASSED\n"+summary, 0),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::p[a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"forged PASSED line with a failing exit code (5) is an invalid run, completed and unresolved": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog("PASSED t.py::a\nTraceback (most recent call last):\nSystemExit: 4", 4),
			version:        V5,
			wantLogProblem: "invalid run: the test command exited 4 but no test failed or errored",
		},
		"forged PASSED line with a failing exit code (4.1) resolves, as officially": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog("PASSED t.py::a\nTraceback (most recent call last):\nSystemExit: 4", 4),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"5: no results and no sign the suite ran is an invalid run, completed and unresolved": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog("ImportError: cannot import name 'x'", 0),
			version:        V5,
			wantLogProblem: "invalid run: no test results and no sign that the test suite ran",
		},
		"5 takes the first exit-code record, even one the tests printed": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog(">>>>> Test Exit Code: 7\nPASSED t.py::a\n"+summary, 0),
			version:        V5,
			wantLogProblem: "invalid run: the test command exited 7 but no test failed or errored",
		},
		"5 takes the first exit-code record, so a forged 0 hides the real one": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog(">>>>> Test Exit Code: 0\nPASSED t.py::a\n"+summary, 3),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"fail-only repository: only FAILED fails": {
			inst: Instance{InstanceID: "chartjs__Chart.js-1", Repo: "chartjs/Chart.js", LogParser: "parse_log_jest",
				FailToPass: []string{"renders", "absent"}, PassToPass: []string{"broken"}},
			log:            officialLog("  ✓ renders (3 ms)\n  ✕ broken (1 ms)\nTests: 1 failed, 1 passed", 1),
			version:        V5,
			wantResolution: ResolvedNo,
			wantF2P:        TestOutcomes{Success: []string{"renders", "absent"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{"broken"}},
		},
		"5: eval_type fail_only on any repository": {
			inst: Instance{InstanceID: "o__r-1", Repo: "o/r", LogParser: "parse_log_jest", EvalType: FailOnly,
				FailToPass: []string{"absent"}},
			log:            officialLog("  ✓ other\nTests: 1 passed", 0),
			version:        V5,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"absent"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"4.1 ignores eval_type": {
			inst: Instance{InstanceID: "o__r-1", Repo: "o/r", LogParser: "parse_log_jest", EvalType: FailOnly,
				FailToPass: []string{"absent"}},
			log:            officialLog("  ✓ other\nTests: 1 passed", 0),
			version:        V41,
			wantResolution: ResolvedNo,
			wantF2P:        TestOutcomes{Success: []string{}, Failure: []string{"absent"}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"results outside the markers are read from the whole log": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            "PASSED t.py::a\n" + officialLog("(output went elsewhere)\n"+summary, 0),
			version:        V41,
			wantResolution: ResolvedFull,
			wantF2P:        TestOutcomes{Success: []string{"t.py::a"}, Failure: []string{}},
			wantP2P:        TestOutcomes{Success: []string{}, Failure: []string{}},
		},
		"patch apply failure is an error": {
			inst:      pytestInstance([]string{"t.py::a"}, nil),
			log:       "error: patch failed: src/x.py:3\n>>>>> Patch Apply Failed\n",
			version:   V41,
			wantError: "the model patch did not apply",
		},
		"timeout is an error": {
			inst:      pytestInstance([]string{"t.py::a"}, nil),
			log:       "+ : '>>>>> Start Test Output'\n+ pytest -rA\nPASSED t.py::a\n>>>>> Tests Timed Out\n",
			version:   V5,
			wantError: "the tests timed out",
		},
		"a marker printed by the tests makes the log ungradable, not an error": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            officialLog(">>>>> Tests Timed Out\nPASSED t.py::a", 0),
			version:        V41,
			wantResolution: ResolvedNo,
			wantLogProblem: `the log contains ">>>>> Tests Timed Out"`,
		},
		"missing end marker makes the log ungradable": {
			inst:           pytestInstance([]string{"t.py::a"}, nil),
			log:            "+ : '>>>>> Start Test Output'\nPASSED t.py::a\n",
			version:        V41,
			wantResolution: ResolvedNo,
			wantLogProblem: "the log lacks the start or end test-output marker (did the test patch apply?)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Grade(tc.inst, tc.log, tc.version, GradeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Error != tc.wantError {
				t.Errorf("Error = %q, want %q", got.Error, tc.wantError)
			}
			if got.LogProblem != tc.wantLogProblem {
				t.Errorf("LogProblem = %q, want %q", got.LogProblem, tc.wantLogProblem)
			}
			if tc.wantError != "" || tc.wantLogProblem != "" {
				if got.Resolved || got.TestsStatus != nil {
					t.Errorf("an ungraded instance has Resolved=%v, TestsStatus=%v", got.Resolved, got.TestsStatus)
				}
				return
			}
			if got.Resolution != tc.wantResolution || got.Resolved != (tc.wantResolution == ResolvedFull) {
				t.Errorf("resolution = %s (resolved %v), want %s", got.Resolution, got.Resolved, tc.wantResolution)
			}
			if got.TestsStatus == nil {
				t.Fatalf("a graded instance has no tests_status (log problem %q)", got.LogProblem)
			}
			if diff := cmp.Diff(tc.wantF2P, got.TestsStatus.FailToPass); diff != "" {
				t.Errorf("FAIL_TO_PASS (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantP2P, got.TestsStatus.PassToPass); diff != "" {
				t.Errorf("PASS_TO_PASS (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGradeErrors(t *testing.T) {
	tests := map[string]struct {
		inst    Instance
		version GradingVersion
		opts    GradeOptions
		wantErr string
	}{
		"no version": {
			inst:    pytestInstance(nil, nil),
			wantErr: `instance owner__repo-1: grading version "": use 4.1 or 5`,
		},
		"unknown repository without log_parser": {
			inst:    Instance{InstanceID: "acme__widget-7", Repo: "acme/widget"},
			version: V5,
			wantErr: `instance acme__widget-7: no log parser for repository "acme/widget"; set the instance's log_parser or pass a parser name`,
		},
		"unknown parser name": {
			inst:    pytestInstance(nil, nil),
			version: V41,
			opts:    GradeOptions{Parser: "parse_log_nose"},
			wantErr: `instance owner__repo-1: unknown log parser "parse_log_nose": use one of`,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Grade(tc.inst, officialLog("", 0), tc.version, tc.opts)
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want prefix %q", err, tc.wantErr)
			}
		})
	}
}

func TestParserFor(t *testing.T) {
	tests := map[string]struct {
		inst     Instance
		version  GradingVersion
		override string
		want     string
	}{
		"4.1 by repository":              {inst: Instance{Repo: "django/django", LogParser: "parse_log_pytest"}, version: V41, want: "parse_log_django"},
		"5 by log_parser":                {inst: Instance{Repo: "django/django", LogParser: "parse_log_pytest"}, version: V5, want: "parse_log_pytest"},
		"5 falls back to the repository": {inst: Instance{Repo: "sympy/sympy"}, version: V5, want: "parse_log_sympy"},
		"4.1 falls back to log_parser":   {inst: Instance{Repo: "o/r", LogParser: "parse_log_cargo"}, version: V41, want: "parse_log_cargo"},
		"override wins":                  {inst: Instance{Repo: "django/django"}, version: V41, override: logparse.JUnitName, want: logparse.JUnitName},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := ParserFor(tc.inst, tc.version, tc.override)
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tc.want {
				t.Errorf("parser = %s, want %s", p.Name(), tc.want)
			}
		})
	}
}

func TestParseGradingVersion(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    GradingVersion
		wantErr bool
	}{
		"4.1":   {in: "4.1", want: V41},
		"4.1.0": {in: "4.1.0", want: V41},
		"5":     {in: "5", want: V5},
		"5.0.3": {in: "5.0.3", want: V5},
		"4.0":   {in: "4.0", wantErr: true},
		"empty": {in: "", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseGradingVersion(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseGradingVersion(%q) = %q, %v", tc.in, got, err)
			}
		})
	}
}

func TestReportJSON(t *testing.T) {
	inst := pytestInstance([]string{"t.py::a"}, []string{"t.py::b"})
	log := officialLog("PASSED t.py::a\nFAILED t.py::b - x\n=== 1 failed, 1 passed in 0.01s ===", 1)
	tests := map[string]struct {
		version GradingVersion
		want    string
	}{
		"4.1": {version: V41, want: `{"owner__repo-1":{"patch_is_None":false,"patch_exists":true,"patch_successfully_applied":true,"resolved":false,` +
			`"tests_status":{"FAIL_TO_PASS":{"success":["t.py::a"],"failure":[]},"PASS_TO_PASS":{"success":[],"failure":["t.py::b"]},` +
			`"FAIL_TO_FAIL":{"success":[],"failure":[]},"PASS_TO_FAIL":{"success":[],"failure":[]}}}}`},
		"5": {version: V5, want: `{"owner__repo-1":{"patch_is_None":false,"patch_exists":true,"patch_successfully_applied":true,"resolved":false,"infra_failure":false,` +
			`"tests_status":{"FAIL_TO_PASS":{"success":["t.py::a"],"failure":[]},"PASS_TO_PASS":{"success":[],"failure":["t.py::b"]},` +
			`"FAIL_TO_FAIL":{"success":[],"failure":[]},"PASS_TO_FAIL":{"success":[],"failure":[]}}}}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := Grade(inst, log, tc.version, GradeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("report.json (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunReport(t *testing.T) {
	patch := "diff"
	empty := ""
	instances := []Instance{{InstanceID: "a"}, {InstanceID: "b"}, {InstanceID: "c"}, {InstanceID: "d"}, {InstanceID: "e"}, {InstanceID: "f"}, {InstanceID: "g"}}
	preds := []Prediction{
		{InstanceID: "a", ModelPatch: &patch}, {InstanceID: "b", ModelPatch: &patch}, {InstanceID: "c", ModelPatch: &patch},
		{InstanceID: "d", ModelPatch: &empty}, {InstanceID: "e"}, {InstanceID: "f", ModelPatch: &patch},
	}
	reports := []InstanceReport{
		{InstanceID: "a", Resolved: true},
		{InstanceID: "b"},
		{InstanceID: "c", Error: "the tests timed out"},
		// f has no report: it crashed.
	}
	got := RunReport(instances, preds, reports, V5)
	want := CampaignReport{
		TotalInstances: 7, SubmittedInstances: 6, CompletedInstances: 2, ResolvedInstances: 1, UnresolvedInstances: 1,
		EmptyPatchInstances: 2, ErrorInstances: 2,
		CompletedIDs: []string{"a", "b"}, IncompleteIDs: []string{"g"}, EmptyPatchIDs: []string{"d", "e"},
		SubmittedIDs: []string{"a", "b", "c", "d", "e", "f"}, ResolvedIDs: []string{"a"}, UnresolvedIDs: []string{"b"},
		ErrorIDs: []string{"c", "f"}, SchemaVersion: 2, GradingVersion: V5,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run report (-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(got)
	for _, field := range []string{"total_instances", "submitted_instances", "completed_instances", "resolved_instances", "unresolved_instances",
		"empty_patch_instances", "error_instances", "completed_ids", "incomplete_ids", "empty_patch_ids", "submitted_ids", "resolved_ids",
		"unresolved_ids", "error_ids", "schema_version"} {
		if !strings.Contains(string(b), `"`+field+`":`) {
			t.Errorf("run report JSON lacks %q: %s", field, b)
		}
	}
}

func TestReadReport(t *testing.T) {
	r, err := Grade(pytestInstance([]string{"t.py::a"}, nil), officialLog("PASSED t.py::a\n=== 1 passed in 0.01s ===", 0), V5, GradeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(writeFile(t, "report.json", string(b)))
	if err != nil {
		t.Fatal(err)
	}
	want := InstanceReport{InstanceID: "owner__repo-1", PatchExists: true, PatchSuccessfullyApplied: true, Resolved: true, TestsStatus: r.TestsStatus}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}

	tests := map[string]struct {
		content string
		wantErr string
	}{
		"two ids":  {content: `{"a":{},"b":{}}`, wantErr: "want one instance id as the only key, found 2 keys"},
		"not json": {content: `resolved`, wantErr: "not a SWE-bench report.json"},
	}
	if _, err := ReadReport(filepath.Join(t.TempDir(), "absent.json")); err == nil || !strings.Contains(err.Error(), "read report") {
		t.Errorf("missing file: err = %v", err)
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, "report.json", tc.content)
			_, err := ReadReport(path)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want it to name %s and say %q", err, path, tc.wantErr)
			}
		})
	}
}

// What `sweep swebench parse --grading` prints is what grading reads: a bare CR ends a line.
func TestParseAsVersionReadsInTextMode(t *testing.T) {
	p, err := logparse.Get("parse_log_pytest")
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []GradingVersion{V41, V5} {
		got, err := ParseAsVersion(p, "collecting 50%\rPASSED t.py::a\r\nFAILED t.py::b\r", version)
		if err != nil {
			t.Fatal(err)
		}
		want := logparse.Statuses{"t.py::a": testresults.Passed, "t.py::b": testresults.Failed}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", version, diff)
		}
	}
}
