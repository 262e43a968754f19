package swesweep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// testUser is this package's test identity: sandbox.Reap kills every process of it, so no
// other package's tests use it (and never sandbox.Test, the production one).
var testUser = sandbox.Identity{UID: 65541, GID: 65541}

// requireRoot fails a test that grades: the grader runs the build and the tests as testUser,
// which needs root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("grading runs the build and the tests as uid %d, which needs root: run these tests as root (uid is %d)", testUser.UID, os.Geteuid())
	}
}

// The fixture is a small Python repository with two injected bugs: add subtracts and mul
// adds. Its visible suite passes at the base; each bug's hidden tests fail there.
var baseFiles = map[string]string{
	"calc.py":               "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n",
	"old_helper.py":         "HELP = 1\n",
	"tests/__init__.py":     "",
	"tests/test_visible.py": "from calc import add, neg\n\n\ndef test_neg():\n    assert neg(2) == -2\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
}

const (
	fixedAdd   = "def add(a, b):\n    return a + b\n"
	partialAdd = "def add(a, b):\n    return abs(a) + b\n"
	fixedMul   = "def mul(a, b):\n    return a * b\n"
	brokenNeg  = "def neg(a):\n    return a\n"
)

func calc(add, mul, neg string) string {
	if add == "" {
		add = "def add(a, b):\n    return a - b\n"
	}
	if mul == "" {
		mul = "def mul(a, b):\n    return a + b\n"
	}
	if neg == "" {
		neg = "def neg(a):\n    return -a\n"
	}
	return add + "\n\n" + mul + "\n\n" + neg
}

// cheatConftest makes every test pass if pytest loads it (SWE-bench's known exploit).
const cheatConftest = `import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    rep.outcome = "passed"
`

type fixture struct {
	repo, bundle string
}

// newFixture creates the repository (tagged baseline) and its bundle; edit changes the
// bundle description before it is written.
func newFixture(t *testing.T, edit func(*Bundle)) fixture {
	return newFixtureOf(t, baseFiles, edit)
}

// newFixtureOf is newFixture with other base files.
func newFixtureOf(t *testing.T, files map[string]string, edit func(*Bundle)) fixture {
	requireRoot(t)
	pytest := sweeptest.Pytest(t)
	repo := sweeptest.GitRepo(t, files, "baseline")
	bundle := t.TempDir()
	patch := func(name string, files map[string]string) string {
		sweeptest.WriteFiles(t, repo, files)
		sweeptest.WriteFiles(t, bundle, map[string]string{name: sweeptest.Diff(t, repo, "baseline")})
		return name
	}
	b := Bundle{
		Schema:    Schema,
		Workdir:   repo,
		BaseRef:   "baseline",
		Visible:   Suite{Command: Command{Command: pytest + " -rA -p no:cacheprovider tests", TimeoutSec: 120}, Format: "pytest"},
		BaseTests: "base_tests.json",
		BugTests:  Suite{Command: Command{Command: pytest + " -rA -p no:cacheprovider {tests}", TimeoutSec: 120}, Format: "pytest"},
		Bugs: []Bug{
			{ID: "add", FailToPass: []string{"tests/test_bug_add.py::test_add", "tests/test_bug_add.py::test_add_negative"},
				TestPatch:   patch("bugs/add/test.patch", map[string]string{"tests/test_bug_add.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_negative():\n    assert add(-1, 1) == 0\n"}),
				OraclePatch: patch("bugs/add/fix.patch", map[string]string{"calc.py": calc(fixedAdd, "", "")})},
			{ID: "mul", FailToPass: []string{"tests/test_bug_mul.py::test_mul"},
				TestPatch:   patch("bugs/mul/test.patch", map[string]string{"tests/test_bug_mul.py": "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"}),
				OraclePatch: patch("bugs/mul/fix.patch", map[string]string{"calc.py": calc("", fixedMul, "")})},
		},
	}
	sweeptest.WriteFiles(t, bundle, map[string]string{"base_tests.json": `["tests/test_visible.py::test_neg", "tests/test_visible.py::test_add_zero"]`})
	if edit != nil {
		edit(&b)
	}
	writeBundle(t, bundle, b)
	return fixture{repo: repo, bundle: bundle}
}

// options are the grading options of the fixture, as the test identity.
func (f fixture) options(patch, out string) Options {
	return Options{BundleDir: f.bundle, PatchPath: patch, OutDir: out, TestUser: testUser}
}

func writeBundle(t *testing.T, dir string, b Bundle) {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	sweeptest.WriteFiles(t, dir, map[string]string{BundleFile: string(data)})
}

// agentPatch makes a patch file from edits (path → content, "" deletes) to the base tree.
func (f fixture) agentPatch(t *testing.T, edits map[string]string) string {
	for p, content := range edits {
		if content == "" {
			if err := os.Remove(filepath.Join(f.repo, p)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		sweeptest.WriteFiles(t, f.repo, map[string]string{p: content})
	}
	path := filepath.Join(t.TempDir(), "model.patch")
	if err := os.WriteFile(path, []byte(sweeptest.Diff(t, f.repo, "baseline")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
