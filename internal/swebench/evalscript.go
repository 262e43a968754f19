package swebench

import (
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
)

// Log markers of the official harness. Its start and end markers reach the log through bash's
// xtrace ("+ : '>>>>> Start Test Output'"); the grader writes them itself, in the same form,
// around the output it captured of the test command.
const (
	MarkerStartTestOutput = ">>>>> Start Test Output"
	MarkerEndTestOutput   = ">>>>> End Test Output"
	MarkerTestExitCode    = ">>>>> Test Exit Code: "
	MarkerPatchApplyFail  = ">>>>> Patch Apply Failed"
	MarkerResetFailed     = ">>>>> Reset Failed"
	MarkerTestsErrored    = ">>>>> Tests Errored"
	MarkerTestsTimedOut   = ">>>>> Tests Timed Out"
	MarkerAppliedPatch    = ">>>>> Applied Patch"
	MarkerPatchApplied    = ">>>>> Patch Already Applied"
)

// DefaultWorkdir is where the official images keep the repository.
const DefaultWorkdir = "/testbed"

// officialSetup activates the conda environment of the official images.
var officialSetup = []string{"source /opt/miniconda3/bin/activate", "conda activate testbed"}

// EvalScriptOptions are how the grader runs an instance's tests (grading.json's fields); the
// zero value runs them as the official script does in the official images.
type EvalScriptOptions struct {
	// Workdir is the repository; "" means /testbed.
	Workdir string
	// Setup runs before anything else (environment activation). nil means the official conda
	// activation; an empty, non-nil slice means none.
	Setup []string
	// TestCommand is the runner invocation without directives; "" means DefaultTestCommand.
	// The official command depends on the repository and version; set it from the dataset's
	// specs when the default is not the one.
	TestCommand string
	// Directives are the test files or modules to run; nil means TestDirectives(inst).
	Directives []string
	// EvalCommands are the repository's own preparations (the dataset specs' eval_commands, e.g.
	// locale or environment variables), run after entering the repository.
	EvalCommands []string
	// Install, when set, reinstalls the package on the patched tree (the specs' install), so that
	// compiled code is rebuilt before the tests.
	Install string
	// AllowPatchConftest leaves conftest.py files that the model patch added or changed in place.
	// By default they are put back to the base commit before the tests run (runnerFiles), so that
	// a patch cannot rewrite how pytest reports results; the official script does not do this.
	AllowPatchConftest bool
}

// PatchApplyScript returns a bash script that applies the patch at patchPath to the repository
// in the current directory as SWE-bench 5 does (steps.FallbackApplyScript). It prints ">>>>>
// Applied Patch (<method>)" or ">>>>> Patch Already Applied" and exits 0, or ">>>>> Patch Apply
// Failed" and exits 1.
func PatchApplyScript(patchPath string) string {
	return steps.FallbackApplyScript(patchPath, steps.ApplyMarkers{
		Applied: MarkerAppliedPatch, AlreadyApplied: MarkerPatchApplied, Failed: MarkerPatchApplyFail})
}

// defaultTestCommands are the official test commands for the repositories whose command does not
// vary by version in a way that matters here; anything else runs pytest -rA.
var defaultTestCommands = map[string]string{
	"django/django":     "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1",
	"sympy/sympy":       "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
	"astropy/astropy":   "pytest -rA -vv -o console_output_style=classic --tb=no",
	"sphinx-doc/sphinx": "tox --current-env -epy39 -v --",
	"mwaskom/seaborn":   "pytest --no-header -rA",
}

// DefaultTestCommand is the test command used for repo when none is given.
func DefaultTestCommand(repo string) string {
	if cmd, ok := defaultTestCommands[repo]; ok {
		return cmd
	}
	return "pytest -rA"
}

// nonTestExtensions end paths in a test patch that are data, not tests to run.
var nonTestExtensions = []string{".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"}

// TestDirectives are the test files the test patch touches, minus data files; for Django they are
// dotted module names relative to tests/, as its runner wants them.
func TestDirectives(inst Instance) []string {
	var out []string
	for _, f := range diffTargets(inst.TestPatch) {
		if hasAnySuffix(f, nonTestExtensions) {
			continue
		}
		if inst.Repo == "django/django" {
			f = strings.TrimPrefix(f, "tests/")
			f = strings.TrimSuffix(f, ".py")
			f = strings.ReplaceAll(f, "/", ".")
		}
		out = append(out, f)
	}
	return out
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

// diffTargets lists the "b/" path of every "diff --git" header in patch.
func diffTargets(patch string) []string {
	var out []string
	for _, l := range strings.Split(patch, "\n") {
		if target, ok := diffTarget(l); ok {
			out = append(out, target)
		}
	}
	return out
}

// diffTarget returns the "b/" path of a "diff --git a/x b/y" header line.
func diffTarget(line string) (string, bool) {
	if !strings.HasPrefix(line, "diff --git a/") {
		return "", false
	}
	i := strings.LastIndex(line, " b/")
	if i < 0 {
		return "", false
	}
	return line[i+3:], true
}

// patchFiles splits the files a patch touches into those that exist before it (modified or
// deleted) and those it creates ("new file mode" or "--- /dev/null" in the file's header).
func patchFiles(patch string) (modified, added []string) {
	var current string
	created, inFile, inHunk := false, false, false
	flush := func() {
		switch {
		case !inFile:
		case created:
			added = append(added, current)
		default:
			modified = append(modified, current)
		}
	}
	for _, l := range strings.Split(patch, "\n") {
		target, isHeader := diffTarget(l)
		switch {
		case isHeader:
			flush()
			current, created, inFile, inHunk = target, false, true, false
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case inFile && !inHunk && (strings.HasPrefix(l, "new file mode ") || l == "--- /dev/null"):
			created = true
		}
	}
	flush()
	return modified, added
}

// heredocDelimiter is the official delimiter, lengthened if the patch contains it as a line.
func heredocDelimiter(patch string) string {
	delim := "EOF_114329324912"
	for strings.Contains("\n"+patch+"\n", "\n"+delim+"\n") {
		delim += "_"
	}
	return delim
}

func quoteAll(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = steps.ShellQuote(s)
	}
	return strings.Join(quoted, " ")
}
