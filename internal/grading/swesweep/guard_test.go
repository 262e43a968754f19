package swesweep

import "testing"

func TestIsRunnerConfig(t *testing.T) {
	baseTop := map[string]bool{"calc_engine": true, "tests": true, "README.md": true, "setup.py": true, "build": true}
	for p, want := range map[string]bool{
		// pytest's and Python's configuration, wherever it is
		"conftest.py": true, "calc_engine/sub/conftest.py": true, "pytest.ini": true, "src/.pytest.ini": true,
		"tox.ini": true, "setup.cfg": true, "pyproject.toml": true, "calc_engine/sitecustomize.py": true,
		"usercustomize.py": true, "calc_engine/x.pth": true,
		// plugin metadata and caches
		"cheat-1.0.dist-info/entry_points.txt": true, "calc_engine/x.egg-info/entry_points.txt": true,
		"calc_engine/__pycache__/parser.cpython-311.pyc": true, "calc_engine/parser.pyc": true, ".pytest_cache/v/cache/lastfailed": true,
		// a new top-level module or package shadows what the runner imports
		"pytest.py": true, "_pytest/__init__.py": true, "pluggy/__init__.py": true, "py.py": true, "argparse.py": true,
		"iniconfig/x": true, "fast.cpython-311-x86_64-linux-gnu.so": true, "mod.abi3.so": true, "__init__.py": true,
		"données.py": true,
		// the project's own modules, new or not, and files that are no module
		"calc_engine/newmod.py": false, "calc_engine/pytest.py": false, "setup.py": false, "README.md": false,
		"build/lib/x.py": false, "NOTES.txt": false, "data.bin": false, "out.d/report.xml": false, "1abc.py": false,
		"my-module.py": false, ".hidden/x.py": false,
	} {
		if got := isRunnerConfig(p, baseTop); got != want {
			t.Errorf("isRunnerConfig(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestReadDifferently(t *testing.T) {
	for name, tc := range map[string]struct {
		git, headers []string
		differ       bool
	}{
		"same":               {git: []string{"a.py", "b.py"}, headers: []string{"b.py", "a.py", "a.py"}},
		"mnemonic prefix":    {git: []string{"conftest.py"}, headers: []string{"c/conftest.py", "i/conftest.py"}, differ: true},
		"no diff --git line": {git: []string{"conftest.py"}, differ: true},
		"git strips a dir":   {git: []string{"conftest.py"}, headers: []string{"tests/conftest.py"}, differ: true},
		"both read no file":  {},
		"headers name a file git does not change": {git: []string{"a.py"}, headers: []string{"a.py", "b.py"}, differ: true},
	} {
		t.Run(name, func(t *testing.T) {
			if got := readDifferently(tc.git, tc.headers) != ""; got != tc.differ {
				t.Errorf("readDifferently(%q, %q) differ = %v, want %v", tc.git, tc.headers, got, tc.differ)
			}
		})
	}
}

// TestIsConventionalTest: SWE-sweep's test-file rule, which the guard applies whatever the
// bundle's test_paths say.
func TestIsConventionalTest(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/test_a.py": true, "src/pkg/tests/helpers.py": true, "lib/test/util.c": true, "web/__tests__/x.js": true,
		"pkg/test_util.py": true, "test_data.json": true, "pkg/mod_test.py": true, "x_test.go": true, "a_test.cc": true,
		"FooTest.java": true, "b_test.v": true, "c_test.exs": true, "d.vv": true, "e.test.ts": true, "f.spec.mjs": true,
		"g.tests.jsx": true, "sub/conftest.py": true,
		"src/calc.py": false, "attest/x.py": false, "testsuite.py": false, "pkg/testing/x.py": false, "tests.py": false,
		"contest.py": false, "e.test.rs": false, "Testing.java": false,
	} {
		if got := isConventionalTest(p); got != want {
			t.Errorf("isConventionalTest(%q) = %v, want %v", p, got, want)
		}
	}
}
