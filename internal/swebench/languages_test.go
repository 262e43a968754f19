package swebench

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
)

// languageLogs are, per parser of another language than Python, test output in which the
// fail-to-pass test "a" and the pass-to-pass test "b" pass (a fail-only parser sees only an
// unrelated failure), with the ids the parser gives them. (A cypress report needs its failures
// list: without one, its parser reads the passes as failures.)
var languageLogs = map[string]struct {
	output, f2p, p2p string
}{
	"parse_log_redis":                  {"[ok]: a (1 ms)\n[ok]: b\n[err]: c in tests/x.tcl", "a", "b"},
	"parse_log_jq":                     {"PASS: a\nPASS: b", "a", "b"},
	"parse_log_doctest":                {`<doctest binary="t"><TestSuite><TestCase name="T"><SubCase name="a"><Expression success="true"/></SubCase><SubCase name="b"/></TestCase></TestSuite></doctest>`, "T > a", "T > b"},
	"parse_log_micropython_test":       {"pass basics/a.py\npass basics/b.py", "basics/a.py", "basics/b.py"},
	"parse_log_googletest":             {"[       OK ] S.a (0 ms)\n[       OK ] S.b (1 ms)", "S.a", "S.b"},
	"parse_log_gotest":                 {"--- PASS: TestA (0.00s)\n    --- PASS: TestA/b (0.00s)", "TestA", "TestA/b"},
	"parse_log_maven":                  {"+ mvn test -Dtest=A#a\n[INFO] BUILD SUCCESS\n+ mvn test -Dtest=A#b\n[INFO] BUILD SUCCESS", "A#a", "A#b"},
	"parse_log_ant":                    {"    [junit] [PASS] A.a\n    [junit] [PASS] A.b", "A.a", "A.b"},
	"parse_log_gradle_custom":          {"A > a PASSED\nA > b PASSED", "A > a", "A > b"},
	"parse_log_calypso":                {"+ npx ./node_modules/.bin/jest client\n  suite\n    ✓ a (3ms)\n    ✓ b", "suite - a", "suite - b"},
	"parse_log_chart_js":               {"Chrome 120.0 (Linux x86_64) other FAILED", "a", "b"},
	"parse_log_marked":                 {"1) other", "a", "b"},
	"parse_log_p5js":                   {"  1) other\n     case:", "a", "b"},
	"parse_log_react_pdf":              {"PASS a.test.js (1.2 s)\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_jest":                   {"  ✓ a (3 ms)\n  ✓ b", "a", "b"},
	"parse_log_vitest":                 {" ✓ a 3ms\n ✓ b", "a", "b"},
	"parse_log_immutable_js":           {"  ✓ a (3 ms)\n  ✓ b", "a", "b"},
	"parse_log_tap":                    {"ok 1 a\nok 2 b", "a", "b"},
	"parse_log_karma":                  {"Starting browser Chrome\n  suite\n    ✔ a\n    ✔ b\nSUMMARY:", "suite > a", "suite > b"},
	"parse_log_next":                   {"+ xvfb-run karma\nStarting browser Chrome\n  ✓ a\n  ✓ b\nTOTAL: 2", "a", "b"},
	"parse_log_bpmn_js":                {"HeadlessChrome 120.0 (Linux 0.0.0) other FAILED\n", "a", "b"},
	"parse_log_carbon":                 {"PASS a.test.js (1.2 s)\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_cypress":                {"{\n  \"passes\": [\n    {\n      \"fullTitle\": \"a\",\n      \"x\": 1\n    },\n    {\n      \"fullTitle\": \"b\",\n      \"x\": 1\n    }\n  ],\n  \"failures\": [\n  ],\n  }\n  Running: ../../x", "a", "b"},
	"parse_log_emotion":                {"PASS a.test.js\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_eslint":                 {"  1) other\n     Error", "a", "b"},
	"parse_log_lighthouse":             {"PASS a.test.js (1.2 s)\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_grommet":                {"PASS a.test.js (1.2 s)\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_highlightjs":            {"  suite\n    ✓ a (2ms)\n    ✓ b\n\n  2 passing", "suite.a", "suite.b"},
	"parse_log_openlayers":             {"case other: mismatch", "a", "b"},
	"parse_plotly_js":                  {"  - suite :\n    * a : ok\n    * b : ok", "suite.a", "suite.b"},
	"parse_log_prettier":               {"PASS a.test.js\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_prismjs":                {"+ ./node_modules/.bin/mocha tests/run.js --reporter json\n{\"failures\": [], \"passes\": [{\"fullTitle\": \"a\"}, {\"fullTitle\": \"b\"}]}", "a", "b"},
	"parse_log_quarto_cli":             {"[smoke] a ... \x1b[32mok\n[unit] b ... \x1b[32mok", "[smoke] a", "[unit] b"},
	"parse_log_scratch_gui":            {"PASS a.test.js\nPASS b.test.js", "a.test.js", "b.test.js"},
	"parse_log_phpunit":                {"Calc (Tests\\Calc)\n ✔ a\n ✔ b", "Calc > a", "Calc > b"},
	"parse_log_jekyll":                 {"TestSite#test_a. = 0.01 s = .\nTestSite#test_b. = 0.01 s = .", "TestSite#test_a", "TestSite#test_b"},
	"parse_log_ruby_unit":              {"test_a(Suite): .\ntest_b(Suite): .", "test_a(Suite)", "test_b(Suite)"},
	"parse_log_rspec_transformed_json": {"A works - passed\nA still works - passed", "A works", "A still works"},
	"parse_log_cargo":                  {"test tests::a ... ok\ntest tests::b ... ok", "tests::a", "tests::b"},
}

// languageInstance is an instance of repo in the datasets' shape: jekyll's and immutable-js's
// parsers pick the runner by pull request number, next's and lighthouse's by version.
func languageInstance(repo string) Instance {
	owner, name, _ := strings.Cut(repo, "/")
	inst := Instance{Repo: repo, InstanceID: owner + "__" + name + "-101", Version: "1.0"}
	switch repo {
	case "jekyll/jekyll":
		inst.InstanceID = "jekyll__jekyll-9141"
	case "immutable-js/immutable-js":
		inst.InstanceID = "immutable-js__immutable-js-2006"
	case "GoogleChrome/lighthouse":
		inst.Version = "9.6"
	}
	return inst
}

// TestLanguageRepositoryVerdicts grades, for every repository of SWE-bench's maps whose parser
// is not a Python one, a log in which its tests pass: resolved under 5, and under 4.1 where 4.1
// has the parser (else the grade is refused).
func TestLanguageRepositoryVerdicts(t *testing.T) {
	covered := 0
	for _, repo := range logparse.Repos() {
		name, _ := logparse.ForRepo(repo)
		l, ok := languageLogs[name]
		if !ok {
			if !strings.HasPrefix(name, "parse_log_") || slices.Contains([]string{"parse_log_gotest", "parse_log_cargo"}, name) {
				t.Errorf("%s: parser %s has no log here", repo, name)
			}
			continue
		}
		covered++
		t.Run(repo, func(t *testing.T) {
			inst := languageInstance(repo)
			inst.FailToPass, inst.PassToPass = TestList{l.f2p}, TestList{l.p2p}
			p, err := logparse.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, version := range []GradingVersion{V41, V5} {
				r, err := Grade(inst, officialLog(l.output, 0), version, GradeOptions{})
				if version == V41 && !p.Exists(logparse.Official41) {
					if err == nil || !strings.Contains(err.Error(), "is not in SWE-bench 4.1") {
						t.Errorf("%s under 4.1: err = %v, want a refusal", repo, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s under %s: %v", repo, version, err)
				}
				want := &TestsStatus{
					FailToPass: TestOutcomes{Success: []string{l.f2p}, Failure: []string{}},
					PassToPass: TestOutcomes{Success: []string{l.p2p}, Failure: []string{}},
					FailToFail: TestOutcomes{Success: []string{}, Failure: []string{}},
					PassToFail: TestOutcomes{Success: []string{}, Failure: []string{}},
				}
				if diff := cmp.Diff(want, r.TestsStatus); diff != "" || !r.Resolved || r.Error != "" {
					t.Errorf("%s under %s (parser %s): resolved %v, error %q, statuses %v (-want +got):\n%s", repo, version, name, r.Resolved, r.Error, r.Statuses, diff)
				}
			}
		})
	}
	if covered < 61 {
		t.Errorf("%d repositories of other languages graded, want all 61", covered)
	}
}
