package swebench

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Grading the logs captured from real runners (testdata/regen.sh), wrapped in the eval script's
// markers. Their statuses are fixed by how testdata/projects' tests are written.

func capturedLog(t *testing.T, name string, exitCode int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "logs", name))
	if err != nil {
		t.Fatalf("read captured log (regenerate with internal/swebench/testdata/regen.sh): %v", err)
	}
	return officialLog(string(b), exitCode)
}

func TestGradeCapturedLogs(t *testing.T) {
	const mod = "test_sample.py::"
	const django = "test_django_style.ArithmeticTests."
	tests := map[string]struct {
		log      string
		exitCode int
		inst     Instance
		version  GradingVersion
		wantF2P  TestOutcomes
		wantP2P  TestOutcomes
		wantRes  ResolvedStatus
	}{
		"pytest, 4.1: truncated ids match, whole ids do not, skip leaves the ratio": {
			log: "pytest_rA_verbose.log", exitCode: 1, version: V41,
			inst: Instance{InstanceID: "s__s-1", Repo: "pytest-dev/pytest",
				FailToPass: []string{mod + "test_param_with_spaces[a", mod + "test_expected_failure", mod + "test_skipped"},
				PassToPass: []string{mod + "test_passes", mod + "test_param_with_spaces[x - y]"}},
			wantF2P: TestOutcomes{Success: []string{mod + "test_param_with_spaces[a", mod + "test_expected_failure"}, Failure: []string{mod + "test_skipped"}},
			wantP2P: TestOutcomes{Success: []string{mod + "test_passes"}, Failure: []string{mod + "test_param_with_spaces[x - y]"}},
			wantRes: ResolvedNo,
		},
		"pytest, 5: ids cut at spaces, skipped fail-to-pass fails, a not-run xfail passes as officially": {
			log: "pytest_rA_verbose.log", exitCode: 1, version: V5,
			inst: Instance{InstanceID: "s__s-1", Repo: "pytest-dev/pytest",
				FailToPass: []string{mod + "test_param_with_spaces[a", mod + "test_skipped", mod + "test_xfail_not_run"},
				PassToPass: []string{mod + "test_passes", mod + "test_param_with_spaces[x - y]", mod + "test_fails"}},
			wantF2P: TestOutcomes{Success: []string{mod + "test_param_with_spaces[a", mod + "test_xfail_not_run"}, Failure: []string{mod + "test_skipped"}},
			wantP2P: TestOutcomes{Success: []string{mod + "test_passes"}, Failure: []string{mod + "test_param_with_spaces[x - y]", mod + "test_fails"}},
			wantRes: ResolvedNo,
		},
		"pytest, 5: partial": {
			log: "pytest_rA.log", exitCode: 1, version: V5,
			inst: Instance{InstanceID: "s__s-1", Repo: "pytest-dev/pytest",
				FailToPass: []string{mod + "test_passes", mod + "test_setup_error"},
				PassToPass: []string{mod + "TestGroup::test_method_passes"}},
			wantF2P: TestOutcomes{Success: []string{mod + "test_passes"}, Failure: []string{mod + "test_setup_error"}},
			wantP2P: TestOutcomes{Success: []string{mod + "TestGroup::test_method_passes"}, Failure: []string{}},
			wantRes: ResolvedPartial,
		},
		"unittest in Django's style": {
			log: "unittest_django_style.log", exitCode: 1, version: V41,
			inst: Instance{InstanceID: "django__django-1", Repo: "django/django",
				FailToPass: []string{"test_ok (" + django + "test_ok)", "test_prints_before_result (" + django + "test_prints_before_result)"},
				PassToPass: []string{"test_skip (" + django + "test_skip)", "test_expected_failure (" + django + "test_expected_failure)"}},
			wantF2P: TestOutcomes{Success: []string{"test_ok (" + django + "test_ok)", "test_prints_before_result (" + django + "test_prints_before_result)"}, Failure: []string{}},
			// The official parser does not read "expected failure": the test is missing.
			wantP2P: TestOutcomes{Success: []string{}, Failure: []string{"test_expected_failure (" + django + "test_expected_failure)"}},
			wantRes: ResolvedNo,
		},
		"go test": {
			log: "gotest.log", exitCode: 1, version: V5,
			inst: Instance{InstanceID: "g__g-1", Repo: "example/sample", LogParser: "parse_log_gotest",
				FailToPass: []string{"TestTable/good_case"}, PassToPass: []string{"TestPasses", "TestSkipped"}},
			wantF2P: TestOutcomes{Success: []string{"TestTable/good_case"}, Failure: []string{}},
			wantP2P: TestOutcomes{Success: []string{"TestPasses", "TestSkipped"}, Failure: []string{}},
			wantRes: ResolvedFull,
		},
		"cargo test": {
			log: "cargo.log", exitCode: 101, version: V5,
			inst: Instance{InstanceID: "c__c-1", Repo: "burntsushi/ripgrep",
				FailToPass: []string{"tests::passes"}, PassToPass: []string{"tests::fails", "tests::ignored"}},
			wantF2P: TestOutcomes{Success: []string{"tests::passes"}, Failure: []string{}},
			wantP2P: TestOutcomes{Success: []string{}, Failure: []string{"tests::fails", "tests::ignored"}},
			wantRes: ResolvedNo,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := Grade(tc.inst, capturedLog(t, tc.log, tc.exitCode), tc.version, GradeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Error != "" || r.LogProblem != "" {
				t.Fatalf("not graded: error %q, log problem %q", r.Error, r.LogProblem)
			}
			if r.Resolution != tc.wantRes {
				t.Errorf("resolution = %s, want %s", r.Resolution, tc.wantRes)
			}
			if diff := cmp.Diff(tc.wantF2P, r.TestsStatus.FailToPass); diff != "" {
				t.Errorf("FAIL_TO_PASS (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantP2P, r.TestsStatus.PassToPass); diff != "" {
				t.Errorf("PASS_TO_PASS (-want +got):\n%s", diff)
			}
		})
	}
}
