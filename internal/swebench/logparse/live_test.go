package logparse

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These run the real runners on testdata/projects, so that the parsers are checked against what
// today's runners print, not only against the captured logs. A missing runner fails the test with
// how to install it.

func runRunner(t *testing.T, project string, install string, name string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not installed; install it with: %s", name, install)
	}
	dir := filepath.Join(t.TempDir(), project)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "projects", project))); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	// The tests fail on purpose, so the runner's exit status says nothing; its output is checked.
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func TestLivePytest(t *testing.T) {
	log := runRunner(t, "pytest", "apt-get update && apt-get install -y python3-pytest",
		"pytest", "-p", "no:cacheprovider", "-rA", "-v", "test_sample.py")
	p, _ := Get("parse_log_pytest")
	const mod = "test_sample.py::"
	want := Statuses{
		mod + "test_passes": pass, mod + "test_fails": fail, mod + "test_skipped": skip, mod + "test_expected_failure": xfail,
		mod + "test_xfail_not_run": skip, mod + "test_setup_error": erred, mod + "test_param_with_spaces[a b]": pass,
		mod + "test_param_with_spaces[plain]": fail, mod + "test_param_with_spaces[x - y]": pass,
		mod + "TestGroup::test_method_passes": pass,
	}
	if diff := cmp.Diff(want, p.Parse(log)); diff != "" {
		t.Errorf("live pytest (-want +got):\n%s\nlog:\n%s", diff, log)
	}
}

func TestLiveGoTest(t *testing.T) {
	log := runRunner(t, "gotest", "install Go from https://go.dev/dl/", "go", "test", "-v", "-count=1", "./...")
	p, _ := Get("parse_log_gotest")
	want := Statuses{
		"TestPasses": pass, "TestFails": fail, "TestSkipped": skip, "TestTable": fail,
		"TestTable/good_case": pass, "TestTable/bad_case": fail,
	}
	for _, d := range []Dialect{Full, Official5} {
		if diff := cmp.Diff(want, p.ParseAs(log, d)); diff != "" {
			t.Errorf("live go test under %s (-want +got):\n%s\nlog:\n%s", d, diff, log)
		}
	}
}

func TestLiveUnittestDjangoStyle(t *testing.T) {
	log := runRunner(t, "unittest", "apt-get install -y python3", "python3", "-m", "unittest", "-v", "test_django_style")
	p, _ := Get("parse_log_django")
	const c = "test_django_style.ArithmeticTests."
	want := Statuses{
		"test_ok (" + c + "test_ok)": pass, "test_fail (" + c + "test_fail)": fail, "test_error (" + c + "test_error)": erred,
		"test_skip (" + c + "test_skip)": skip, "test_expected_failure (" + c + "test_expected_failure)": xfail,
		"test_prints_before_result (" + c + "test_prints_before_result)": pass,
	}
	if diff := cmp.Diff(want, p.Parse(log)); diff != "" {
		t.Errorf("live unittest (-want +got):\n%s\nlog:\n%s", diff, log)
	}
}

func TestLiveCargo(t *testing.T) {
	log := runRunner(t, "cargo", "curl https://sh.rustup.rs -sSf | sh", "cargo", "test", "--offline", "--color", "never", "--", "--test-threads=1")
	p, _ := Get("parse_log_cargo")
	want := Statuses{"tests::passes": pass, "tests::fails": fail, "tests::ignored": skip, "tests::panics": pass}
	if diff := cmp.Diff(want, p.Parse(log)); diff != "" {
		t.Errorf("live cargo test (-want +got):\n%s\nlog:\n%s", diff, log)
	}
}
