package swebench

import (
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/swebench/specs"
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
	// Family is ScriptPython ("") or ScriptCommon: which official builder the script follows.
	Family string
	// Build runs after the test patch is applied, before the tests (the specs' build of a
	// non-Python repository), as the test user.
	Build []string
	// AllowPatchConftest leaves conftest.py files that the model patch added or changed in place.
	// By default they are put back to the base commit before the tests run (runnerFiles), so that
	// a patch cannot rewrite how pytest reports results; the official script does not do this.
	AllowPatchConftest bool
}

// PatchApplyScript returns a bash script that applies the patch at patchPath to the repository
// in the current directory as the harness of the grading version does: 5 tries the four methods
// of v5.0.1, resetting the tree between attempts, and takes a patch that applies in reverse as
// already applied (steps.FallbackApplyScript); 4.1 tries v4.1.0's three methods in order on the
// tree as the last attempt left it. The methods are the spec data's (specs.All().PatchApply). It
// prints ">>>>> Applied Patch (<method>)" or ">>>>> Patch Already Applied" and exits 0, or
// ">>>>> Patch Apply Failed" and exits 1.
func PatchApplyScript(patchPath string, v GradingVersion) string {
	if v != V41 {
		return steps.FallbackApplyScript(patchPath, steps.ApplyMarkers{
			Applied: MarkerAppliedPatch, AlreadyApplied: MarkerPatchApplied, Failed: MarkerPatchApplyFail})
	}
	methods := make([]string, 0, 3)
	for _, m := range specs.All().PatchApply[specs.Tag41].Methods {
		methods = append(methods, steps.ShellQuote(m))
	}
	return `#!/bin/bash
# Applies a model patch the way SWE-bench 4.1 does. Run it in the repository.
set -uo pipefail
patch_copy="$(mktemp)"
trap 'rm -f "$patch_copy"' EXIT
cp -- ` + steps.ShellQuote(patchPath) + ` "$patch_copy" || { echo "` + MarkerPatchApplyFail + `: cannot read "` + steps.ShellQuote(patchPath) + `; exit 1; }
for method in ` + strings.Join(methods, " ") + `; do
  if $method "$patch_copy"; then
    echo "` + MarkerAppliedPatch + ` ($method)"
    exit 0
  fi
done
echo "` + MarkerPatchApplyFail + `"
exit 1
`
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

// quoteEach shell-quotes the items that need it (steps.ShellQuote); the official script writes
// directives bare, which is the same for every path made of [A-Za-z0-9_-./:=@+,%].
func quoteEach(items []string) []string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = steps.ShellQuote(s)
	}
	return quoted
}

// Script families of grading.json's script field: which of the official builders the eval
// script follows (v4.1.0's make_eval_script_list picks it by the repository's language).
const (
	// ScriptPython (also ""): make_eval_script_list_py, the conda environment activated, the
	// eval commands, the informational git lines, the reinstall, the test command with the
	// test patch's directives, the test patch applied with `git apply -v`.
	ScriptPython = "python"
	// ScriptCommon: make_eval_script_list_common (every other language): no environment
	// activation, the test patch applied with `git apply --verbose --reject`, the build
	// commands after it, the test commands as they are (no directives).
	ScriptCommon = "common"
)

// ExitCodeVar is the shell variable v5.0.1's eval script keeps the test command's status in.
const ExitCodeVar = "SWEBENCH_TEST_EXIT_CODE"

// Guard lines: what the grader's run adds to the official eval script. Each is a no-op line
// (": '...'") in EvalScript's rendering, standing where the grader does that step; every
// other line of the rendering is the official script's. docs/swebench.md lists them.
const (
	// GuardPatch: before the script, the runner files the model patch changed were put back;
	// the lines run as the test user, the git lines are the grader's own git as root.
	GuardPatch = "patch"
	// GuardPlugins: pytest's plugin autoload is off and the image's plugins are named.
	GuardPlugins = "plugins"
	// GuardBuild: the runner files the install or build step wrote are put back.
	GuardBuild = "build"
	// GuardTestFiles: the files the test patch creates are removed with the reset.
	GuardTestFiles = "test-files"
	// GuardExitCode: under 4.1, the grader records the test command's exit status after the
	// end marker (v5.0.1's script does it itself).
	GuardExitCode = "exit-code"
)

// GuardLinePrefix starts every guard line.
const GuardLinePrefix = ": 'sweep-guard "

var guardText = map[string]string{
	GuardPatch:     "runner files the model patch changed are back at the base commit; the lines run as the test user, git as the grader (root)",
	GuardPlugins:   "pytest plugin autoload off, the plugins of the image and the result plugin named in PYTEST_PLUGINS",
	GuardBuild:     "runner files the step above wrote are put back",
	GuardTestFiles: "the files the test patch creates are removed:",
	GuardExitCode:  "the grader records " + MarkerTestExitCode + "N after the end marker",
}

// GuardNames lists the guard lines EvalScript may add.
func GuardNames() []string {
	return []string{GuardPatch, GuardPlugins, GuardBuild, GuardTestFiles, GuardExitCode}
}

func guardLine(name string, detail ...string) string {
	text := strings.Join(append([]string{guardText[name]}, detail...), " ")
	return GuardLinePrefix + name + ": " + strings.ReplaceAll(text, "'", "") + "'"
}

// evalPlan is one instance's eval script: what the grader runs, in the official order. The
// grader's steps (flow) and EvalScript's rendering are both read from it.
type evalPlan struct {
	family  string
	workdir string
	base    string
	// setup activates the environment; prelude is setup, cd and the eval commands: what every
	// script of the test user starts with.
	setup, evalCommands []string
	install             string
	build               []string
	// testCommand is the test command with its directives (a common script's commands, one a
	// line).
	testCommand     string
	modified, added []string
	testPatch       string
	// applyTestPatch are the git arguments that apply the test patch (read from stdin or a file).
	applyTestPatch []string
	version        GradingVersion
}

func newEvalPlan(inst Instance, opts EvalScriptOptions, v GradingVersion) evalPlan {
	p := evalPlan{family: opts.Family, workdir: opts.Workdir, base: inst.BaseCommit, evalCommands: opts.EvalCommands,
		install: opts.Install, build: opts.Build, testPatch: inst.TestPatch, version: v}
	if p.family == "" {
		p.family = ScriptPython
	}
	if p.workdir == "" {
		p.workdir = DefaultWorkdir
	}
	p.setup = opts.Setup
	if p.setup == nil {
		p.setup = officialSetup
	}
	testCmd := opts.TestCommand
	if testCmd == "" {
		testCmd = DefaultTestCommand(inst.Repo)
	}
	directives := opts.Directives
	if directives == nil {
		directives = TestDirectives(inst)
	}
	p.testCommand = strings.Join(append([]string{testCmd}, quoteEach(directives)...), " ")
	p.modified, p.added = patchFiles(inst.TestPatch)
	p.applyTestPatch = []string{"apply", "-v"}
	if p.family == ScriptCommon {
		p.applyTestPatch = []string{"apply", "--verbose", "--reject"}
	}
	return p
}

// prelude is what every script of the test user starts with: the setup, cd dir, the eval
// commands.
func (p evalPlan) prelude(dir string) []string {
	out := append([]string{}, p.setup...)
	out = append(out, "cd "+steps.ShellQuote(dir))
	return append(out, p.evalCommands...)
}

// userScript is a script of the test user in dir: the prelude, then last.
func (p evalPlan) userScript(dir, last string) string {
	var b strings.Builder
	b.WriteString("#!/bin/bash\nset -uo pipefail\n")
	for _, l := range p.prelude(dir) {
		b.WriteString(l + "\n")
	}
	b.WriteString(last + "\n")
	return b.String()
}

// informationalGit are the git commands the official Python script runs for the record.
func (p evalPlan) informationalGit() [][]string {
	return [][]string{{"status"}, {"show"}, {"-c", "core.fileMode=false", "diff", p.base}}
}

// resetLines are the official reset of the test files and the guard's removal of the files the
// test patch creates.
func (p evalPlan) resetLines() []string {
	var out []string
	switch {
	case p.family == ScriptCommon && len(p.modified) == 0:
		out = append(out, `echo "No test files to reset"`)
	default:
		out = append(out, strings.Join(append([]string{"git checkout", p.base}, p.modified...), " "))
	}
	if len(p.added) > 0 {
		out = append(out, guardLine(GuardTestFiles, p.added...))
	}
	return out
}

// script renders the plan as the official eval script with the guard lines in place.
func (p evalPlan) script(pytest bool) string {
	lines := []string{"#!/bin/bash", "set -uxo pipefail", guardLine(GuardPatch)}
	safeDir := []string{"git config --global --add safe.directory " + p.workdir, "cd " + p.workdir}
	if p.family == ScriptCommon {
		lines = append(lines, "cd "+p.workdir)
		lines = append(lines, safeDir...)
	} else {
		lines = append(lines, p.prelude(p.workdir)...)
		lines = append(lines, safeDir...)
		for _, args := range p.informationalGit() {
			lines = append(lines, "git "+strings.Join(args, " "))
		}
		lines = append(lines, p.setup...)
	}
	if p.install != "" {
		lines = append(lines, p.install, guardLine(GuardBuild))
	}
	lines = append(lines, p.resetLines()...)
	lines = append(lines, "git "+strings.Join(p.applyTestPatch, " ")+" - <<'"+heredocDelimiter(p.testPatch)+"'\n"+p.testPatch+"\n"+heredocDelimiter(p.testPatch))
	if len(p.build) > 0 {
		lines = append(lines, p.build...)
		lines = append(lines, guardLine(GuardBuild))
	}
	if pytest {
		lines = append(lines, guardLine(GuardPlugins))
	}
	lines = append(lines, ": '"+MarkerStartTestOutput+"'", p.testCommand)
	if p.version == V41 {
		lines = append(lines, ": '"+MarkerEndTestOutput+"'", guardLine(GuardExitCode))
	} else {
		lines = append(lines, ExitCodeVar+"=$?", ": '"+MarkerEndTestOutput+"'", `echo "`+MarkerTestExitCode+`$`+ExitCodeVar+`"`)
	}
	lines = append(lines, p.resetLines()...)
	return strings.Join(lines, "\n") + "\n"
}

// EvalScript is the eval script of the grader directory's instance as the grader runs it in
// workdir: the script the official harness of the grading version runs, with the guard lines
// (GuardNames) in place. For a 5.x instance with its own eval_script that is the script with
// v5.0.1's exit-code record (RecordTestExitCode).
func (g GraderInput) EvalScript(workdir string) string {
	if g.Instance.EvalScript != "" {
		return g.opaqueScript()
	}
	opts := g.ScriptOptions(workdir)
	cmd := opts.TestCommand
	if cmd == "" {
		cmd = DefaultTestCommand(g.Instance.Repo)
	}
	return newEvalPlan(g.Instance, opts, g.Version).script(pytestRunner(cmd) != "")
}

// opaqueScript is the instance's own eval_script as the grading version runs it: 5 records the
// test command's exit code in it, 4.1 runs it as it is.
func (g GraderInput) opaqueScript() string {
	if g.Version == V41 {
		return g.Instance.EvalScript
	}
	return RecordTestExitCode(g.Instance.EvalScript)
}

// RecordTestExitCode is v5.0.1's treatment of a dataset's eval_script: the "#!/bin/bash" and
// "set -uxo pipefail" lines are taken out and put back on top, and around the first line that
// holds the end marker the script keeps the test command's status in ExitCodeVar and prints
// ">>>>> Test Exit Code: N" after the marker. A script without an end marker is left as it is
// (between the same header lines).
func RecordTestExitCode(script string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(script), "\n") {
		if l != "#!/bin/bash" && l != "set -uxo pipefail" {
			lines = append(lines, l)
		}
	}
	for i, l := range lines {
		if strings.Contains(l, MarkerEndTestOutput) {
			rec := []string{ExitCodeVar + "=$?", l, `echo "` + MarkerTestExitCode + `$` + ExitCodeVar + `"`}
			lines = append(lines[:i:i], append(rec, lines[i+1:]...)...)
			break
		}
	}
	return strings.Join(append([]string{"#!/bin/bash", "set -uxo pipefail"}, lines...), "\n") + "\n"
}
