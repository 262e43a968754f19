package testresults

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// pySuite exercises every outcome pytest and unittest can report.
const pySuite = `import pytest, unittest
def test_ok(): pass
def test_fail(): assert 0
@pytest.mark.parametrize("x", ["a b", "c - d"])
def test_p(x): pass
@pytest.mark.xfail(reason="nope")
def test_xf(): assert 0
@pytest.mark.xfail
def test_xp(): pass
@pytest.mark.skip(reason="why")
def test_sk(): pass
@pytest.fixture
def bad():
    yield
    raise RuntimeError("teardown")
def test_td(bad): pass
class TestC:
    def test_m(self): pass
class U(unittest.TestCase):
    def test_u(self):
        """Doc line."""
        print("noise", end="")
    def test_uf(self): self.fail("x")
    def test_ue(self): raise KeyError("k")
    @unittest.skip("s")
    def test_us(self): pass
    @unittest.expectedFailure
    def test_ux(self): assert 0
`

func pyProject(t *testing.T) string {
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{"test_a.py": pySuite})
	return dir
}

var pytestWant = Results{
	"test_a.py::test_ok": Passed, "test_a.py::test_fail": Failed,
	"test_a.py::test_p[a b]": Passed, "test_a.py::test_p[c - d]": Passed,
	"test_a.py::test_xf": XFail, "test_a.py::test_xp": Passed, "test_a.py::test_td": Error,
	"test_a.py::TestC::test_m": Passed, "test_a.py::U::test_u": Passed,
	"test_a.py::U::test_uf": Failed, "test_a.py::U::test_ue": Failed,
	"test_a.py::U::test_ux": XFail,
}

func TestReadPytestRealOutput(t *testing.T) {
	pytest := sweeptest.Pytest(t)
	withSkips := Results{"test_a.py::test_sk": Skipped, "test_a.py::U::test_us": Skipped}
	for k, v := range pytestWant {
		withSkips[k] = v
	}
	for _, tc := range []struct {
		name string
		args []string
		want Results
	}{
		// -rA reports skips as "SKIPPED [1] file:line: reason", without an id.
		{"rA", []string{"-rA"}, pytestWant},
		{"v", []string{"-v"}, withSkips},
		{"rA and v", []string{"-rA", "-v"}, withSkips},
		{"rA colour", []string{"-rA", "--color=yes"}, pytestWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := pyProject(t)
			out, _ := sweeptest.Output(dir, pytest, append(tc.args, "-p", "no:cacheprovider", "test_a.py")...)
			got, err := ReadPytest(strings.NewReader(out))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("results (-want +got):\n%s\noutput:\n%s", d, out)
			}
		})
	}
}

func TestReadJUnitRealReport(t *testing.T) {
	pytest := sweeptest.Pytest(t)
	dir := pyProject(t)
	// test_a.py has a failing test, so pytest exits 1; any other end means no report.
	var exit *exec.ExitError
	if out, err := sweeptest.Output(dir, pytest, "-q", "-p", "no:cacheprovider", "--junitxml=report.xml", "test_a.py"); !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("pytest = %v, want exit status 1 (a test fails)\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "report.xml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadJUnit(f, JUnitOptions{})
	if cerr := f.Close(); cerr != nil {
		t.Error(cerr)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := Results{
		"test_a.test_ok": Passed, "test_a.test_fail": Failed, "test_a.test_p[a b]": Passed,
		"test_a.test_p[c - d]": Passed, "test_a.test_xf": XFail, "test_a.test_xp": Passed,
		"test_a.test_sk": Skipped, "test_a.test_td": Error, "test_a.TestC.test_m": Passed,
		"test_a.U.test_u": Passed, "test_a.U.test_uf": Failed, "test_a.U.test_ue": Failed,
		"test_a.U.test_us": Skipped, "test_a.U.test_ux": XFail,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
}

func TestReadUnittestRealOutput(t *testing.T) {
	sweeptest.Pytest(t) // the suite imports pytest
	dir := pyProject(t)
	out, _ := sweeptest.Output(dir, "/usr/bin/python3", "-m", "unittest", "-v", "test_a")
	got, err := ReadUnittest(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := Results{
		"test_a.U.test_u": Passed, "test_a.U.test_uf": Failed, "test_a.U.test_ue": Error,
		"test_a.U.test_us": Skipped, "test_a.U.test_ux": XFail,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s\noutput:\n%s", d, out)
	}
}

func TestReadGoTestJSONRealOutput(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.21\n",
		"m_test.go": `package m
import "testing"
func TestOK(t *testing.T) {}
func TestFail(t *testing.T) { t.Fatal("no") }
func TestSkip(t *testing.T) { t.Skip("later") }
func TestSub(t *testing.T) {
	t.Run("a b", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("x") })
}
`,
	})
	cmd := exec.Command(goBin, "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, _ := cmd.Output()
	got, err := ReadGoTestJSON(strings.NewReader(string(out)))
	if err != nil {
		t.Fatal(err)
	}
	want := Results{
		"example.com/m::TestOK": Passed, "example.com/m::TestFail": Failed,
		"example.com/m::TestSkip": Skipped, "example.com/m::TestSub": Failed,
		"example.com/m::TestSub/a_b": Passed, "example.com/m::TestSub/bad": Failed,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s\noutput:\n%s", d, out)
	}
}

func TestReadEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format Format
		input  string
		want   Results
	}{
		{"pytest xdist", FormatPytest, "[gw0] [ 50%] PASSED t.py::a\n[gw1] [100%] FAILED t.py::b\n",
			Results{"t.py::a": Passed, "t.py::b": Failed}},
		{"pytest collection error", FormatPytest, "ERROR tests/test_x.py - ImportError: boom\n",
			Results{"tests/test_x.py": Error}},
		{"pytest prose ignored", FormatPytest, "PASSED all the things\nFAILED to connect\n", Results{}},
		{"pytest crlf", FormatPytest, "PASSED t.py::a\r\n", Results{"t.py::a": Passed}},
		{"pytest nested param", FormatPytest, "t.py::p[a[1] - b] FAILED [ 10%]\n",
			Results{"t.py::p[a[1] - b]": Failed}},
		{"pytest worst wins", FormatPytest, "t.py::a PASSED\nt.py::a ERROR\nPASSED t.py::a\n",
			Results{"t.py::a": Error}},
		{"pytest long line", FormatPytest, strings.Repeat("x", 3<<20) + "\nPASSED t.py::a\n",
			Results{"t.py::a": Passed}},
		{"unittest status on later line", FormatUnittest, "test_a (m.C) ... \nprinted\nok\n",
			Results{"m.C.test_a": Passed}},
		{"unittest old style", FormatUnittest, "test_a (m.C) ... FAIL\ntest_b (m.C) ... skipped 'x'\n",
			Results{"m.C.test_a": Failed, "m.C.test_b": Skipped}},
		{"junit no classname", FormatJUnit, `<testsuite><testcase name="x"><error/></testcase></testsuite>`,
			Results{"x": Error}},
		{"gotest unfinished", FormatGoTestJSON, `{"Action":"run","Package":"p","Test":"TestHang"}` + "\nnot json\n",
			Results{"p::TestHang": Error}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Read(tc.format, strings.NewReader(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		format Format
		input  string
		want   string
	}{
		{"unknown format", "tap", "", `unknown test result format "tap"`},
		{"broken junit", FormatJUnit, "<testsuite><testcase name='a'>", "junit xml: XML syntax error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.format, strings.NewReader(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
