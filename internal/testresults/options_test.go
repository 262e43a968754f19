package testresults

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePytestLogOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  string
		o    PytestOptions
		want Results
	}{
		{"whole ids keep parameter spaces, skip counts dropped", "PASSED t.py::p[a b]\nt.py::q[c d] FAILED [ 50%]\nSKIPPED [2] t.py:3: why",
			PytestOptions{}, Results{"t.py::p[a b]": Passed, "t.py::q[c d]": Failed}},
		{"fields cut ids at whitespace and keep the first word as written", "PASSED t.py::p[a b]\nPASSEDX t.py::a\nFAILED t.py::f - msg\nt.py::q FAILED",
			PytestOptions{Lines: PytestFields}, Results{"t.py::p[a": Passed, "t.py::a": "PASSEDX", "t.py::f": Failed}},
		{"fields with trailing status", "t.py::q FAILED\nt.py::c some words ERROR",
			PytestOptions{Lines: PytestFields, TrailingStatus: true}, Results{"t.py::q": Failed, "t.py::c": "some"}},
		{"trailing status means nothing to whole ids", "t.py::c some words ERROR",
			PytestOptions{TrailingStatus: true}, Results{}},
		{"seaborn reads three forms only", "FAILED t.py::a - x\nt.py::b PASSED [ 10%]\nPASSED t.py::c\nERROR t.py::e",
			PytestOptions{Lines: PytestSeaborn}, Results{"t.py::a": Failed, "t.py::b": Passed, "t.py::c": Passed}},
		{"colour and control stripped", "\x1b[32mPASSED\x1b[0m t.py::a\nPASSED\tt.py::b",
			PytestOptions{StripColourAndControl: true}, Results{"t.py::a": Passed}},
		{"without stripping, colour hides the status", "\x1b[32mPASSED\x1b[0m t.py::a",
			PytestOptions{}, Results{}},
		{"ANSI and CR stripped", "\x1b[32mPASSED\x1b[0m t.py::a\r",
			PytestOptions{StripANSI: true, TrimCR: true}, Results{"t.py::a": Passed}},
		{"ANSI stripped, CR kept", "\x1b[32mPASSED\x1b[0m t.py::a\r",
			PytestOptions{Lines: PytestNodeIDs, StripANSI: true}, Results{"t.py::a\r": Passed}},
		{"real ids only", "PASSED [100%]\n____ ERROR at setup of t.py::e ____\nPASSED t.py::a",
			PytestOptions{RealIDsOnly: true}, Results{"t.py::a": Passed}},
		{"phantom ids without real ids only", "PASSED [100%]\n____ ERROR at setup of t.py::e ____",
			PytestOptions{}, Results{"[100%]": Passed, "____": Error}},
		{"not-run xfail skipped", "XFAIL t.py::n - reason: [NOTRUN] slow\nXFAIL t.py::r",
			PytestOptions{NotRunXFailSkipped: true}, Results{"t.py::n": Skipped, "t.py::r": XFail}},
		{"not-run xfail kept without the option", "XFAIL t.py::n - reason: [NOTRUN] slow",
			PytestOptions{}, Results{"t.py::n": XFail}},
		{"basename params", "PASSED t.py::load[/tmp/data/f.dcm]\nPASSED t.py::url[//h/x]\nPASSED t.py::g[/a/*.py]",
			PytestOptions{BasenameParams: true}, Results{"t.py::load[/f.dcm]": Passed, "t.py::url[//h/x]": Passed, "t.py::g[/a/*.py]": Passed}},
		{"mouse buttons", "PASSED t.py::c[MouseButton.LEFT]\nPASSED t.py::d[MouseButton.RIGHT]",
			PytestOptions{MouseButtons: true}, Results{"t.py::c[1]": Passed, "t.py::d[3]": Passed}},
		{"last report wins", "t.py::a ERROR\nPASSED t.py::a", PytestOptions{}, Results{"t.py::a": Passed}},
		{"worst report wins", "t.py::a ERROR\nPASSED t.py::a", PytestOptions{KeepWorst: true}, Results{"t.py::a": Error}},
		{"node ids: xdist prefixes, XPASS, messages cut at ' - ', prose ignored",
			"[gw0] [ 50%] PASSED t.py::g\nXPASS t.py::y\nFAILED t.py::p[x - y] - boom\nPASSED all the things\nERROR t/test_x.py - ImportError",
			PytestOptions{Lines: PytestNodeIDs}, Results{"t.py::g": Passed, "t.py::y": Passed, "t.py::p[x - y]": Failed, "t/test_x.py": Error}},
		{"node ids: verbose status followed by the end, '[' or '(' only",
			"t.py::a PASSED [ 50%]\nt.py::b SKIPPED (why)\nt.py::c PASSED extra\nt.py::d some words ERROR",
			PytestOptions{Lines: PytestNodeIDs}, Results{"t.py::a": Passed, "t.py::b": Skipped, "t.py::d some words": Error}},
		{"whole ids: no xdist prefixes, no XPASS, verbose status followed by anything",
			"[gw0] [ 50%] PASSED t.py::g\nXPASS t.py::y\nt.py::c PASSED extra",
			PytestOptions{}, Results{"t.py::c": Passed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ParsePytestLog(tc.log, tc.o)); d != "" {
				t.Errorf("ParsePytestLog(%+v) (-want +got):\n%s", tc.o, d)
			}
		})
	}
}

func TestParseDjangoOptions(t *testing.T) {
	const log = "test_f (m.T) ... expected failure\ntest_u (m.T) ... unexpected success\nFAIL: test_g (m.T)\nERROR: test_h (m.T)"
	for _, tc := range []struct {
		name string
		o    DjangoOptions
		want Results
	}{
		{"official", DjangoOptions{}, Results{"test_g": Failed, "test_h": Error}},
		{"whole header names", DjangoOptions{WholeHeaderNames: true}, Results{"test_g (m.T)": Failed, "test_h (m.T)": Error}},
		{"expected failures", DjangoOptions{ExpectedFailures: true}, Results{"test_f (m.T)": XFail, "test_u (m.T)": Failed, "test_g": Failed, "test_h": Error}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ParseDjango(log, tc.o)); d != "" {
				t.Errorf("ParseDjango(%+v) (-want +got):\n%s", tc.o, d)
			}
		})
	}
}

func TestParseSympyOptions(t *testing.T) {
	const log = "test_a ok\ntest_d f\ntest_e s"
	for _, tc := range []struct {
		name string
		o    SympyOptions
		want Results
	}{
		{"official", SympyOptions{}, Results{"test_a": Passed}},
		{"expected failures and skips", SympyOptions{ExpectedFailuresAndSkips: true}, Results{"test_a": Passed, "test_d": XFail, "test_e": Skipped}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ParseSympy(log, tc.o)); d != "" {
				t.Errorf("ParseSympy(%+v) (-want +got):\n%s", tc.o, d)
			}
		})
	}
}

func TestParseCargoOptions(t *testing.T) {
	const log = "test a::b ... ok\ntest a::d ... ignored, slow\ntest a::e - should panic ... ok\ntest a::f ... \x1b[31mFAILED\x1b[0m\ntest result: ok."
	for _, tc := range []struct {
		name string
		o    CargoOptions
		want Results
	}{
		{"official pattern", CargoOptions{}, Results{"a::b": Passed}},
		{"lenient", CargoOptions{Lenient: true}, Results{"a::b": Passed, "a::d": Skipped, "a::e": Passed, "a::f": Failed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ParseCargo(log, tc.o)); d != "" {
				t.Errorf("ParseCargo(%+v) (-want +got):\n%s", tc.o, d)
			}
		})
	}
}

func TestConsoleOptions(t *testing.T) {
	const goLog = "\x1b[32m--- PASS: TestA (0.00s)\x1b[0m\n--- FAIL: TestB (0.00s)"
	const jestLog = "  \x1b[32m✓\x1b[0m coloured (3 ms)\n  ✕ plain (1 ms)"
	for _, tc := range []struct {
		name  string
		parse func(string, ConsoleOptions) Results
		log   string
		o     ConsoleOptions
		want  Results
	}{
		{"go test, colour kept", ParseGoTestVerbose, goLog, ConsoleOptions{}, Results{"TestB": Failed}},
		{"go test, colour stripped", ParseGoTestVerbose, goLog, ConsoleOptions{StripANSI: true}, Results{"TestA": Passed, "TestB": Failed}},
		{"jest, colour kept", ParseJest, jestLog, ConsoleOptions{}, Results{"plain": Failed}},
		{"jest, colour stripped", ParseJest, jestLog, ConsoleOptions{StripANSI: true}, Results{"coloured": Passed, "plain": Failed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, tc.parse(tc.log, tc.o)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// swebenchJUnit are the rules internal/swebench/logparse reads JUnit by.
var swebenchJUnit = JUnitOptions{XFail: XFailPytestRan, Repeats: LastTestcase, LastAttribute: true}

// TestJUnitOptions covers each case where the bundle grader's rules (the zero options) and the
// SWE-bench side's rules read one report differently.
func TestJUnitOptions(t *testing.T) {
	suite := func(cases string) string {
		return "<testsuites><testsuite name=\"s\">" + cases + "</testsuite></testsuites>"
	}
	for _, tc := range []struct {
		name          string
		doc           string
		bundle, swebe Results
	}{
		{"not-run xfail", suite(`<testcase name="n"><skipped type="pytest.xfail" message="reason: [NOTRUN] slow"/></testcase>`),
			Results{"n": XFail}, Results{"n": Skipped}},
		{"xfail type other than pytest.xfail", suite(`<testcase name="x"><skipped type="custom.xfail"/></testcase>`),
			Results{"x": XFail}, Results{"x": Skipped}},
		{"repeated id, worse first", suite(`<testcase name="a"><failure/></testcase><testcase name="a"/>`),
			Results{"a": Failed}, Results{"a": Passed}},
		{"repeated id, worse last", suite(`<testcase name="a"/><testcase name="a"><error/></testcase>`),
			Results{"a": Error}, Results{"a": Error}},
		{"skip after xfail in one testcase", suite(`<testcase name="a"><skipped type="pytest.xfail"/><skipped/></testcase>`),
			Results{"a": Skipped}, Results{"a": XFail}},
		{"error and failure in one testcase", suite(`<testcase name="a"><failure/><error/></testcase>`),
			Results{"a": Error}, Results{"a": Error}},
		{"repeated attribute", suite(`<testcase classname="c" classname="d" name="a" name="b"/>`),
			Results{"c.a": Passed}, Results{"d.b": Passed}},
		{"nested suites and no classname read alike", "<testsuites><testsuite><testsuite><testcase name=\"x\"><error/></testcase></testsuite></testsuite></testsuites>",
			Results{"x": Error}, Results{"x": Error}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadJUnit(strings.NewReader(tc.doc), JUnitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.bundle, got); d != "" {
				t.Errorf("bundle rules (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.swebe, ParseJUnitLog(tc.doc, swebenchJUnit)); d != "" {
				t.Errorf("SWE-bench rules (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadJUnitAndParseJUnitLog covers how a report file and a document in a log are taken in.
func TestReadJUnitAndParseJUnitLog(t *testing.T) {
	for _, tc := range []struct {
		name      string
		input     string
		report    Results // ReadJUnit
		reportErr string
		log       Results // ParseJUnitLog
	}{
		{"text around the document", "build output\n<testsuite><testcase name=\"a\"/></testsuite>\ntrailing",
			Results{"a": Passed}, "", Results{"a": Passed}},
		{"markup before the document", "<p>build</p><testsuite><testcase name=\"a\"/></testsuite>",
			Results{"a": Passed}, "", Results{"a": Passed}},
		{"truncated document", "<testsuite><testcase name=\"a\"/><testcase name=\"b\"><fail",
			nil, "junit xml: XML syntax error", Results{"a": Passed, "b": Passed}},
		{"second document after </testsuites>", "<testsuites><testcase name=\"a\"/></testsuites><testsuites><testcase name=\"b\"/></testsuites>",
			Results{"a": Passed, "b": Passed}, "", Results{"a": Passed}},
		{"unquoted attribute", "<testsuite><testcase name=a/></testsuite>",
			nil, "junit xml: XML syntax error", Results{"a": Passed}},
		{"no document", "no xml here", Results{}, "", Results{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadJUnit(strings.NewReader(tc.input), JUnitOptions{})
			if tc.reportErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.reportErr) {
					t.Errorf("ReadJUnit error = %v, want %q", err, tc.reportErr)
				}
			} else if err != nil {
				t.Errorf("ReadJUnit: %v", err)
			}
			if d := cmp.Diff(tc.report, got); d != "" {
				t.Errorf("ReadJUnit (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.log, ParseJUnitLog(tc.input, JUnitOptions{})); d != "" {
				t.Errorf("ParseJUnitLog (-want +got):\n%s", d)
			}
		})
	}
}
