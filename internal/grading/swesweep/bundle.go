// Package swesweep is the built-in SWE-sweep grader (docs/design.md §5) for tasks in our own
// bundle format (docs/task-format.md): reset to the base, apply the agent's patch (refused
// when git and its headers read it differently, or when it plants a symlink out of the tree),
// build, run the visible suite once for regressions, then run each bug's hidden fail-to-pass
// tests. The build and the suites run as the unprivileged test identity; before each of them
// the guard puts every test file and runner configuration that differs from the base (as git
// and a walk of the tree see it) back by git. A step that hangs on the agent's tree but not on
// the unpatched one scores 0.
package swesweep

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// BundleFile is the bundle's description, at the root of the bundle directory.
const BundleFile = "bundle.json"

// Schema is the bundle format version this grader reads.
const Schema = "sweep-bundle/1"

// Bundle is a task's grading bundle, as bundle.json describes it.
type Bundle struct {
	Schema string `json:"schema"`
	// Version is the task's version, copied into eval.json as SWE-sweep's is. Optional.
	Version string `json:"version,omitempty"`
	// Workdir is the repository in the verifier image; --workdir overrides it.
	Workdir string `json:"workdir"`
	// BaseRef is the git ref of the unmodified repository (SWE-sweep tags it "baseline").
	BaseRef string `json:"base_ref"`
	// TestPaths are globs (with "**") of the files that are tests; an agent's changes to
	// them are undone before any test runs. Empty means DefaultTestPaths.
	TestPaths []string `json:"test_paths,omitempty"`
	// Setup runs once on the pristine tree, before the first reset (SWE-sweep's setup_cmd); a
	// failure is the grader's, since no patch is in place yet. Optional.
	Setup *Command `json:"setup,omitempty"`
	// Build runs after the patch, before any test; a failed build scores 0. Optional.
	Build *Command `json:"build,omitempty"`
	// CMakeBuildDir is a configured CMake build tree (absolute, as SWE-sweep's /build, or
	// relative to the workdir) whose configure step globs the sources: when the patches in
	// place add a C or C++ file it is reconfigured (cmake DIR) before the build or targeted
	// run, and again once that file is gone, as SWE-sweep reconfigures its CMake suites' build
	// directory. Optional; needs build.
	CMakeBuildDir string `json:"cmake_build_dir,omitempty"`
	// BuildJobs is the number of parallel jobs the build may use, exported to every step as
	// BuildJobsEnv, as SWE-sweep exports its build_jobs. Optional; default DefaultBuildJobs.
	BuildJobs int `json:"build_jobs,omitempty"`
	// OraclePristinePaths are build outputs (relative to the workdir) that oracle grading
	// snapshots after the pristine tree's build and restores before each gold, as SWE-sweep
	// does for self-hosting builds. Optional.
	OraclePristinePaths []string `json:"oracle_pristine_paths,omitempty"`
	// Visible is the suite run once to find regressions.
	Visible Suite `json:"visible"`
	// BaseTests names a JSON file (relative to the bundle; gzipped when it ends in .gz): the
	// list of visible tests that pass at the base, or SWE-sweep's base results
	// {"passing": [...], "ignored": [...]}, whose ignored tests are unreliable: a bug's
	// targeted run does not judge them, unless they are the bug's own fail-to-pass tests.
	BaseTests string `json:"base_tests"`
	// BugTests runs one bug's targeted tests: in its command "{tests}" becomes the bug's
	// fail-to-pass ids, "{files}" the test files its test patch leaves in the tree, and
	// "{names}" a -k expression of the test functions the test patch adds or changes (all
	// shell-quoted; "{names}" is empty when there are none). The bug is judged on everything
	// the run reports.
	BugTests Suite `json:"bug_tests"`
	Bugs     []Bug `json:"bugs"`
}

// Command is a shell command run in the workdir.
type Command struct {
	Command    string  `json:"command"`
	TimeoutSec float64 `json:"timeout_sec,omitempty"`
}

// Suite is a test command and how to read its results.
type Suite struct {
	Command
	Format testresults.Format `json:"format"`
	// Report is a file (relative to the workdir) the command writes its results to, for
	// formats such as junit; empty means the command's output holds them.
	Report string `json:"report,omitempty"`
}

// Bug is one injected bug.
type Bug struct {
	ID string `json:"id"`
	// TestPatch adds the hidden tests (relative to the bundle).
	TestPatch  string   `json:"test_patch"`
	FailToPass []string `json:"fail_to_pass"`
	// OraclePatch fixes the bug (relative to the bundle); used by oracle grading.
	OraclePatch string `json:"oracle_patch,omitempty"`
}

// DefaultTestPaths are the test file globs of a bundle that declares none. The test runners'
// configuration files count too: a patch that loads a plugin through pytest.ini's addopts can
// otherwise report every test as passed.
var DefaultTestPaths = []string{"test/**", "tests/**", "testing/**", "**/test_*.py", "**/*_test.py",
	"**/conftest.py", "**/*_test.go", "**/testdata/**",
	"**/pytest.ini", "**/.pytest.ini", "**/tox.ini", "**/setup.cfg", "**/pyproject.toml"}

// BuildJobsEnv is the environment variable that gives the steps the bundle's build_jobs.
const BuildJobsEnv = "SWESWEEP_BUILD_JOBS"

// DefaultBuildJobs is the build_jobs of a bundle that declares none: SWE-sweep's default.
const DefaultBuildJobs = 4

// buildJobs is the bundle's build_jobs, or the default.
func (b *Bundle) buildJobs() int {
	if b.BuildJobs > 0 {
		return b.BuildJobs
	}
	return DefaultBuildJobs
}

// Default timeouts of commands that declare none: SWE-sweep's evaluation defaults.
const (
	defaultSetupTimeout   = 600
	defaultBuildTimeout   = 7200
	defaultVisibleTimeout = 3600
	defaultBugTimeout     = 900
)

// LoadBundle reads and checks dir/bundle.json.
func LoadBundle(dir string) (*Bundle, error) {
	b, err := os.ReadFile(filepath.Join(dir, BundleFile))
	if err != nil {
		return nil, err
	}
	var bundle Bundle
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bundle); err != nil {
		return nil, fmt.Errorf("%s: %w", BundleFile, err)
	}
	if err := bundle.check(dir); err != nil {
		return nil, fmt.Errorf("%s: %w", BundleFile, err)
	}
	if len(bundle.TestPaths) == 0 {
		bundle.TestPaths = DefaultTestPaths
	}
	return &bundle, nil
}

func (b *Bundle) check(dir string) error {
	var errs []error
	if b.Schema != Schema {
		errs = append(errs, fmt.Errorf("schema is %q, want %q", b.Schema, Schema))
	}
	if b.BaseRef == "" {
		errs = append(errs, errors.New("base_ref is required"))
	}
	for _, s := range []struct {
		name  string
		suite Suite
	}{{"visible", b.Visible}, {"bug_tests", b.BugTests}} {
		if s.suite.Command.Command == "" {
			errs = append(errs, fmt.Errorf("%s.command is required", s.name))
		}
		if !slices.Contains(testresults.Formats, s.suite.Format) {
			errs = append(errs, fmt.Errorf("%s.format %q is not one of %v", s.name, s.suite.Format, testresults.Formats))
		}
	}
	if b.Build != nil && b.Build.Command == "" {
		errs = append(errs, errors.New("build.command is empty"))
	}
	if b.CMakeBuildDir != "" {
		if b.Build == nil {
			errs = append(errs, errors.New("cmake_build_dir needs build: the tree is reconfigured only before a build"))
		}
		if !filepath.IsAbs(b.CMakeBuildDir) && !filepath.IsLocal(b.CMakeBuildDir) {
			errs = append(errs, fmt.Errorf("cmake_build_dir %q must be absolute or a path inside the workdir", b.CMakeBuildDir))
		}
	}
	for i, p := range b.OraclePristinePaths {
		if !filepath.IsLocal(p) {
			errs = append(errs, fmt.Errorf("oracle_pristine_paths[%d] %q must be a path inside the workdir, relative to it", i, p))
		}
	}
	if b.BuildJobs < 0 {
		errs = append(errs, fmt.Errorf("build_jobs is %d: give a positive number of parallel build jobs, or leave it out for %d", b.BuildJobs, DefaultBuildJobs))
	}
	if b.Setup != nil && b.Setup.Command == "" {
		errs = append(errs, errors.New("setup.command is empty"))
	}
	for _, p := range b.TestPaths {
		if _, err := compileGlob(p); err != nil {
			errs = append(errs, fmt.Errorf("test_paths: %w", err))
		}
	}
	errs = append(errs, inBundle(dir, "base_tests", b.BaseTests, true))
	if len(b.Bugs) == 0 {
		errs = append(errs, errors.New("bugs: at least one bug is required"))
	}
	seen := map[string]bool{}
	for i, bug := range b.Bugs {
		if bug.ID == "" || seen[bug.ID] {
			errs = append(errs, fmt.Errorf("bugs[%d]: id %q is empty or repeated", i, bug.ID))
		}
		seen[bug.ID] = true
		if len(bug.FailToPass) == 0 {
			errs = append(errs, fmt.Errorf("bug %s: fail_to_pass is empty", bug.ID))
		}
		errs = append(errs, inBundle(dir, "bug "+bug.ID+" test_patch", bug.TestPatch, true),
			inBundle(dir, "bug "+bug.ID+" oracle_patch", bug.OraclePatch, false))
	}
	return errors.Join(errs...)
}

// inBundle checks that rel names a file inside the bundle directory.
func inBundle(dir, field, rel string, required bool) error {
	if rel == "" {
		if required {
			return fmt.Errorf("%s is required", field)
		}
		return nil
	}
	if filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s %q must be a path inside the bundle", field, rel)
	}
	if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}

// BaseResults are the bundle's base results: the visible tests that pass at the base (the
// regression check) and the unreliable ones (SWE-sweep's base_tests.json.gz "ignored").
type BaseResults struct {
	Passing []string `json:"passing"`
	Ignored []string `json:"ignored,omitempty"`
}

// maxBaseTests bounds what a gzipped base_tests file may inflate to.
const maxBaseTests = 256 << 20

// baseTests reads base_tests: a JSON list of the passing tests, or SWE-sweep's object.
func (b *Bundle) baseTests(dir string) (BaseResults, error) {
	data, err := os.ReadFile(filepath.Join(dir, b.BaseTests))
	if err != nil {
		return BaseResults{}, err
	}
	if strings.HasSuffix(b.BaseTests, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return BaseResults{}, fmt.Errorf("%s: %w", b.BaseTests, err)
		}
		if data, err = io.ReadAll(io.LimitReader(zr, maxBaseTests+1)); err != nil {
			return BaseResults{}, fmt.Errorf("%s: %w", b.BaseTests, err)
		}
		if len(data) > maxBaseTests {
			return BaseResults{}, fmt.Errorf("%s inflates to more than %d bytes", b.BaseTests, maxBaseTests)
		}
	}
	wrong := func(err error) error {
		return fmt.Errorf(`%s: want a JSON list of test ids, or {"passing": [...], "ignored": [...]}: %w`, b.BaseTests, err)
	}
	var res BaseResults
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &res.Passing); err != nil {
			return BaseResults{}, wrong(err)
		}
		return res, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return BaseResults{}, wrong(err)
	}
	if res.Passing == nil {
		return BaseResults{}, wrong(errors.New(`"passing" is missing`))
	}
	return res, nil
}

// selectBugs returns the bugs named in ids (all when ids is empty), in the order given; an id
// named twice is graded once, at its first place.
func (b *Bundle) selectBugs(ids []string) ([]Bug, error) {
	if len(ids) == 0 {
		return b.Bugs, nil
	}
	byID := map[string]Bug{}
	for _, bug := range b.Bugs {
		byID[bug.ID] = bug
	}
	var out []Bug
	picked := map[string]bool{}
	for _, id := range ids {
		bug, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("no bug %q in the bundle", id)
		}
		if !picked[id] {
			picked[id] = true
			out = append(out, bug)
		}
	}
	return out, nil
}
