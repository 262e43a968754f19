package logparse

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

const (
	pass  = testresults.Passed
	fail  = testresults.Failed
	skip  = testresults.Skipped
	erred = testresults.Error
	xfail = testresults.XFail
)

func readLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "logs", name))
	if err != nil {
		t.Fatalf("read captured log (regenerate with internal/swebench/testdata/regen.sh): %v", err)
	}
	return string(b)
}

// with returns a copy of m with extra merged in; a "" status deletes the key.
func with(m Statuses, extra Statuses) Statuses {
	out := maps.Clone(m)
	for k, v := range extra {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// The captured logs come from testdata/projects; the expected statuses follow from how each test
// there is written (see the comments in those files).
func TestParsersOnCapturedLogs(t *testing.T) {
	const mod = "test_sample.py::"
	pytestFull := Statuses{
		mod + "test_passes":                   pass,
		mod + "test_fails":                    fail,
		mod + "test_expected_failure":         xfail,
		mod + "test_xfail_not_run":            skip, // xfail(run=False): never ran
		mod + "test_setup_error":              erred,
		mod + "test_param_with_spaces[a b]":   pass,
		mod + "test_param_with_spaces[plain]": fail,
		mod + "test_param_with_spaces[x - y]": pass,
		mod + "TestGroup::test_method_passes": pass,
	}
	// The official parsers cut ids at the first space and take the xfail at its word.
	pytestOfficial41 := with(pytestFull, Statuses{
		mod + "test_param_with_spaces[a b]":   "",
		mod + "test_param_with_spaces[x - y]": "",
		mod + "test_param_with_spaces[a":      pass,
		mod + "test_param_with_spaces[x":      pass,
		mod + "test_xfail_not_run":            xfail,
		"[1]":                                 skip, // 4.1 reads the skip count as a test id
	})
	// 5 reads as 4.1 but drops the "SKIPPED [1] ..." skip summary, and still ignores verbose
	// lines (so -v adds nothing).
	pytestOfficial5 := with(pytestOfficial41, Statuses{"[1]": ""})
	// 5's parse_log_pytest_v2 keeps whole ids, reads verbose lines, and keeps the " - reason"
	// of XFAIL and ERROR lines in the id; the verbose setup-error line has no reason.
	pytestV2Official5 := with(pytestFull, Statuses{
		mod + "test_expected_failure": "", mod + "test_expected_failure - known bug": xfail,
		mod + "test_xfail_not_run": "", mod + "test_xfail_not_run - reason: [NOTRUN] would hang": xfail,
		mod + "test_setup_error - RuntimeError: fixture setup fails": erred,
	})

	unittestPrefix := "test_django_style.ArithmeticTests."
	djangoOfficial := Statuses{
		"test_error (" + unittestPrefix + "test_error)":                               erred,
		"test_fail (" + unittestPrefix + "test_fail)":                                 fail,
		"test_ok (" + unittestPrefix + "test_ok)":                                     pass,
		"test_prints_before_result (" + unittestPrefix + "test_prints_before_result)": pass,
		"test_skip (" + unittestPrefix + "test_skip)":                                 skip,
		// The "FAIL: test_fail (...)" headers: the official parser keeps the first word only.
		"test_fail":  fail,
		"test_error": erred,
	}

	tests := map[string]struct {
		log     string
		parser  string
		dialect Dialect
		want    Statuses
	}{
		"pytest -rA, full":             {log: "pytest_rA.log", parser: "parse_log_pytest", dialect: Full, want: pytestFull},
		"pytest -rA, 4.1":              {log: "pytest_rA.log", parser: "parse_log_pytest", dialect: Official41, want: pytestOfficial41},
		"pytest -rA, 5":                {log: "pytest_rA.log", parser: "parse_log_pytest", dialect: Official5, want: pytestOfficial5},
		"pytest -rA -v, full":          {log: "pytest_rA_verbose.log", parser: "parse_log_pytest", dialect: Full, want: with(pytestFull, Statuses{mod + "test_skipped": skip})},
		"pytest -rA -v, 4.1":           {log: "pytest_rA_verbose.log", parser: "parse_log_pytest", dialect: Official41, want: pytestOfficial41},
		"pytest -rA -v, 5":             {log: "pytest_rA_verbose.log", parser: "parse_log_pytest", dialect: Official5, want: pytestOfficial5},
		"pytest options -rA, 4.1":      {log: "pytest_rA.log", parser: "parse_log_pytest_options", dialect: Official41, want: pytestOfficial41},
		"pytest colour -vv, full (v2)": {log: "pytest_v2_color.log", parser: "parse_log_pytest_v2", dialect: Full, want: with(pytestFull, Statuses{mod + "test_skipped": skip})},
		"pytest colour -vv, 4.1 (v2)":  {log: "pytest_v2_color.log", parser: "parse_log_pytest_v2", dialect: Official41, want: with(pytestOfficial41, Statuses{mod + "test_setup_error": erred})},
		"pytest colour -vv, 5 (v2)":    {log: "pytest_v2_color.log", parser: "parse_log_pytest_v2", dialect: Official5, want: pytestV2Official5},
		"pytest -rA, seaborn 4.1": {log: "pytest_rA.log", parser: "parse_log_seaborn", dialect: Official41, want: Statuses{
			mod + "test_passes": pass, mod + "test_param_with_spaces[a": pass, mod + "test_param_with_spaces[x": pass,
			mod + "TestGroup::test_method_passes": pass, mod + "test_fails": fail, mod + "test_param_with_spaces[plain]": fail,
		}},
		"pytest -rA, matplotlib 5": {log: "pytest_rA.log", parser: "parse_log_matplotlib", dialect: Official5, want: pytestOfficial5},
		"pytest junit xml": {log: "pytest_junit.log", parser: JUnitName, dialect: Full, want: Statuses{
			"test_sample.test_passes": pass, "test_sample.test_fails": fail, "test_sample.test_skipped": skip,
			"test_sample.test_expected_failure": xfail, "test_sample.test_xfail_not_run": skip,
			"test_sample.test_setup_error": erred, "test_sample.test_param_with_spaces[a b]": pass,
			"test_sample.test_param_with_spaces[plain]": fail, "test_sample.test_param_with_spaces[x - y]": pass,
			"test_sample.TestGroup.test_method_passes": pass,
		}},
		"unittest verbose, django official": {log: "unittest_django_style.log", parser: "parse_log_django", dialect: Official41, want: djangoOfficial},
		"unittest verbose, django full": {log: "unittest_django_style.log", parser: "parse_log_django", dialect: Full, want: with(djangoOfficial, Statuses{
			"test_expected_failure (" + unittestPrefix + "test_expected_failure)": xfail,
			"test_fail": "", "test_error": "",
		})},
		"go test -v": {log: "gotest.log", parser: "parse_log_gotest", dialect: Official5, want: Statuses{
			"TestPasses": pass, "TestFails": fail, "TestSkipped": skip, "TestTable": fail,
			"TestTable/good_case": pass, "TestTable/bad_case": fail,
		}},
		"cargo test, official": {log: "cargo.log", parser: "parse_log_cargo", dialect: Official5, want: Statuses{
			"tests::fails": fail, "tests::passes": pass,
		}},
		"cargo test, full": {log: "cargo.log", parser: "parse_log_cargo", dialect: Full, want: Statuses{
			"tests::fails": fail, "tests::passes": pass, "tests::ignored": skip, "tests::panics": pass,
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p, err := Get(tc.parser)
			if err != nil {
				t.Fatal(err)
			}
			got := p.ParseAs(readLog(t, tc.log), tc.dialect)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}
