package swebench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Files of a grader directory (the task's grader ConfigMap, mounted at /sweep/grader in the
// verifier) and of the grader's output directory.
const (
	InstanceFile = "instance.json"
	GradingFile  = "grading.json"
)

// DefaultTimeoutSec is the official harness's timeout for one instance's tests.
const DefaultTimeoutSec = 1800

// GradingConfig is grading.json: how the verifier runs and grades the instance of instance.json.
// The optional fields are EvalScriptOptions and GradeOptions under their dataset-spec names.
type GradingConfig struct {
	// GradingVersion is "4.1" or "5" (required: the versions give different verdicts).
	GradingVersion string `json:"grading_version"`
	// TimeoutSec bounds the patch application and the eval script together; 0 means
	// DefaultTimeoutSec. A timeout is an error instance, as in the official harness.
	TimeoutSec float64 `json:"timeout_sec,omitempty"`
	// TestCommand replaces DefaultTestCommand(repo).
	TestCommand string `json:"test_command,omitempty"`
	// Directives replaces TestDirectives(instance); [] runs the test command without any.
	Directives *[]string `json:"directives,omitempty"`
	// EvalCommands and Install are the dataset specs' eval_commands and install.
	EvalCommands []string `json:"eval_commands,omitempty"`
	Install      string   `json:"install,omitempty"`
	// Setup replaces the official conda activation; [] means none (an image without conda).
	Setup *[]string `json:"setup,omitempty"`
	// LogParser overrides the parser the instance and version choose (logparse names).
	LogParser string `json:"log_parser,omitempty"`
	// AllowPatchConftest keeps conftest.py files the model patch changed (see EvalScriptOptions).
	AllowPatchConftest bool `json:"allow_patch_conftest,omitempty"`
	// Script is the official eval script's family: ScriptPython ("") or ScriptCommon.
	Script string `json:"script,omitempty"`
	// Build is the dataset specs' build (non-Python repositories): run after the test patch.
	Build []string `json:"build,omitempty"`
	// Spec says where test_command, eval_commands, install and build came from ("django/django
	// 3.0, v4.1.0:swebench/harness/constants/python.py"): a record for people, not read.
	Spec string `json:"spec,omitempty"`
	// PytestPlugins are the pytest plugin distributions the specs install in the image
	// (specs.Version.PytestPlugins): when the image's interpreter lists no pytest11 entry point
	// at all, plugin autoload stays on rather than the tests running without them.
	PytestPlugins []string `json:"pytest_plugins,omitempty"`
	// ReinstallNetwork says the specs' install downloads build requirements
	// (specs.Version.ReinstallNetwork): a failed install is then explained in eval.json.
	ReinstallNetwork bool `json:"reinstall_network,omitempty"`
	// ScoredVerdict is which verdict reward.json scores: ScoreHardened ("" means it) or
	// ScoreOfficial. Both are recorded whichever is scored.
	ScoredVerdict string `json:"scored_verdict,omitempty"`
}

// The verdicts a campaign can score (grading.json's scored_verdict).
const (
	// ScoreHardened scores the hardened verdict: what the grader itself captured, which the
	// tests cannot forge (docs/security.md).
	ScoreHardened = "hardened"
	// ScoreOfficial scores the verdict the official harness of the grading version gives on
	// the official-style log of the same run, forgeable markers and lines included.
	ScoreOfficial = "official"
)

// ParseScoredVerdict accepts "" (the hardened verdict), "hardened" and "official".
func ParseScoredVerdict(s string) (string, error) {
	switch s {
	case "", ScoreHardened:
		return ScoreHardened, nil
	case ScoreOfficial:
		return ScoreOfficial, nil
	}
	return "", fmt.Errorf("scored verdict %q: use %q (the default: what the grader captured, which the tests cannot forge) or %q (the official harness's verdict on the same run)", s, ScoreHardened, ScoreOfficial)
}

// GraderInput is a validated grader directory.
type GraderInput struct {
	Instance Instance
	Config   GradingConfig
	Version  GradingVersion
}

// Timeout is the configured timeout, or the official default.
func (g GraderInput) Timeout() time.Duration {
	sec := g.Config.TimeoutSec
	if sec == 0 {
		sec = DefaultTimeoutSec
	}
	return time.Duration(sec * float64(time.Second))
}

// ScriptOptions are the eval script options of the config, for the repository at workdir.
func (g GraderInput) ScriptOptions(workdir string) EvalScriptOptions {
	opts := EvalScriptOptions{
		Workdir:            workdir,
		TestCommand:        g.Config.TestCommand,
		EvalCommands:       g.Config.EvalCommands,
		Install:            g.Config.Install,
		Family:             g.Config.Script,
		Build:              g.Config.Build,
		AllowPatchConftest: g.Config.AllowPatchConftest,
	}
	if g.Config.Setup != nil {
		opts.Setup = append([]string{}, *g.Config.Setup...)
	}
	if g.Config.Directives != nil {
		opts.Directives = append([]string{}, *g.Config.Directives...)
	}
	return opts
}

// ReadGraderDir reads and checks dir/instance.json (one instance, official field names) and
// dir/grading.json. Errors name the file, the field and the fix.
func ReadGraderDir(dir string) (GraderInput, error) {
	var in GraderInput
	instPath := filepath.Join(dir, InstanceFile)
	insts, err := LoadInstances(instPath)
	if err != nil {
		return in, err
	}
	if len(insts) != 1 {
		return in, fmt.Errorf("%s holds %d instances: a grader directory holds exactly one (regenerate it with `sweep swebench import`)", instPath, len(insts))
	}
	in.Instance = insts[0]
	if in.Instance.TestPatch == "" && in.Instance.EvalScript == "" {
		return in, fmt.Errorf("%s: instance %s has neither test_patch nor eval_script: add the dataset's test_patch", instPath, in.Instance.InstanceID)
	}
	if in.Instance.BaseCommit == "" && in.Instance.EvalScript == "" {
		return in, fmt.Errorf("%s: instance %s has no base_commit: add the dataset's base_commit", instPath, in.Instance.InstanceID)
	}
	cfgPath := filepath.Join(dir, GradingFile)
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		return in, fmt.Errorf("read grading config: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in.Config); err != nil {
		return in, fmt.Errorf("%s: %v: see docs/swebench.md for its fields", cfgPath, err)
	}
	if in.Version, err = ParseGradingVersion(in.Config.GradingVersion); err != nil {
		return in, fmt.Errorf("%s: field grading_version: %w", cfgPath, err)
	}
	if _, err := ParseScoredVerdict(in.Config.ScoredVerdict); err != nil {
		return in, fmt.Errorf("%s: field scored_verdict: %w", cfgPath, err)
	}
	if in.Config.TimeoutSec < 0 {
		return in, fmt.Errorf("%s: field timeout_sec is %g: use a positive number of seconds, or leave it out for %d", cfgPath, in.Config.TimeoutSec, DefaultTimeoutSec)
	}
	if s := in.Config.Script; s != "" && s != ScriptPython && s != ScriptCommon {
		return in, fmt.Errorf("%s: field script is %q: want %q (the default) or %q", cfgPath, s, ScriptPython, ScriptCommon)
	}
	if in.Config.LogParser != "" {
		if _, err := logparse.Get(in.Config.LogParser); err != nil {
			return in, fmt.Errorf("%s: field log_parser: %w", cfgPath, err)
		}
	}
	if runner := pytestRunner(in.Config.TestCommand); runner != "" && setsPythonPath(in.Config.TestCommand) {
		return in, fmt.Errorf("%s: field test_command sets PYTHONPATH before pytest, which would hide the grader's result plugin: set it in eval_commands (export PYTHONPATH=...)", cfgPath)
	}
	// Checked before the tests run, so that a grader that cannot read the log fails at once.
	if _, err := ParserFor(in.Instance, in.Version, in.Config.LogParser); err != nil {
		return in, fmt.Errorf("%s: %w, or log_parser in %s", instPath, err, cfgPath)
	}
	return in, nil
}

// Reward keys the SWE-bench grader writes besides SWE-sweep's (internal/reward).
const (
	// RewardError is 1 for an error instance (patch did not apply, tests timed out, invalid
	// run): not resolved, and reported in the run report's error_ids.
	RewardError = "swebench_error"
	// RewardOfficialResolved and RewardOfficialError are the official verdict: 1 when
	// SWE-bench's own harness would resolve the instance from the same run, or make it an error
	// instance.
	RewardOfficialResolved = "swebench_official_resolved"
	RewardOfficialError    = "swebench_official_error"
	// RewardHardenedResolved and RewardHardenedError are the hardened verdict.
	RewardHardenedResolved = "swebench_hardened_resolved"
	RewardHardenedError    = "swebench_hardened_error"
	// RewardScoresOfficial is 1 when reward, n_resolved and swebench_error hold the official
	// verdict (scored_verdict "official"), 0 when they hold the hardened one.
	RewardScoresOfficial = "swebench_scores_official"
	// RewardVerdictsDiffer is 1 when the two verdicts differ (eval.json's verdict_difference
	// says how and why).
	RewardVerdictsDiffer = "swebench_verdicts_differ"
)

// GraderEvalSchema is the version of the SWE-bench grader's eval.json.
const GraderEvalSchema = "sweep-swebench-eval/1"

// GraderEval is the SWE-bench grader's eval.json: what the grading saw, for people and tools.
type GraderEval struct {
	Schema         string         `json:"schema"`
	InstanceID     string         `json:"instance_id,omitempty"`
	GradingVersion GradingVersion `json:"grading_version,omitempty"`
	Parser         string         `json:"parser,omitempty"`
	Patch          *GraderPatch   `json:"patch,omitempty"`
	// Run is RunCaptured or RunOpaque; OpaqueRisk says what an opaque run leaves open.
	Run        string `json:"run,omitempty"`
	OpaqueRisk string `json:"opaque_risk,omitempty"`
	// Guard is what was done to the runner's files the patch changed, BuildGuard to those the
	// install step wrote.
	Guard      *GuardRecord `json:"guard,omitempty"`
	BuildGuard *GuardRecord `json:"build_guard,omitempty"`
	// PluginAutoload says whether pytest's plugin autoload was off and which plugins were named.
	PluginAutoload string `json:"plugin_autoload,omitempty"`
	// InstallProblem explains a failed install step that needs the network (ReinstallNetwork).
	InstallProblem string `json:"install_problem,omitempty"`
	// VerdictSource is where the hardened verdict (the fields below) was read from.
	VerdictSource string `json:"verdict_source,omitempty"`
	// Resolution, Resolved, Error, LogProblem and StatusCounts are the hardened verdict: what
	// reward.json scores.
	Resolution ResolvedStatus `json:"resolution,omitempty"`
	Resolved   bool           `json:"resolved"`
	// Error makes the instance an error (no report.json), as in the official harness.
	Error string `json:"error,omitempty"`
	// LogProblem says why a completed instance's log could not be graded.
	LogProblem string `json:"log_problem,omitempty"`
	// TestExitCode is the test command's exit status as the grader collected it.
	TestExitCode *int `json:"test_exit_code,omitempty"`
	TimedOut     bool `json:"timed_out,omitempty"`
	// DeadlineCut: the verifier's deadline, not the instance's timeout, ended the tests; Rerun
	// is the run on the unpatched tree that decided whose the hang was.
	DeadlineCut  bool                       `json:"deadline_cut,omitempty"`
	Rerun        *RerunRecord               `json:"rerun,omitempty"`
	TestOutput   *OutputRecord              `json:"test_output,omitempty"`
	StatusCounts map[testresults.Status]int `json:"status_counts,omitempty"`
	// Official is the verdict SWE-bench's harness gives on the official-style log of the same
	// run (what a test's forged markers or lines may have fooled).
	Official *OfficialVerdict `json:"official,omitempty"`
	// ScoredVerdict is which of the two reward.json scores: ScoreHardened or ScoreOfficial.
	ScoredVerdict string `json:"scored_verdict,omitempty"`
	// VerdictDifference, when the two verdicts differ, says how and why.
	VerdictDifference string `json:"verdict_difference,omitempty"`
	// Verdict is verdict.json's content, when the result has a cause the trial shows.
	Verdict *reward.Verdict `json:"verdict,omitempty"`
	// GraderError is why the grader itself failed: the reward is then not a measurement.
	GraderError string             `json:"grader_error,omitempty"`
	Reward      map[string]float64 `json:"reward"`
	Timings     map[string]float64 `json:"timings"`
}

// VerdictsOf reads the two verdicts' agreement from a SWE-bench grader's eval.json: ok is
// false when evalJSON is not one (another grader's, or unreadable), and difference is empty
// when the verdicts agree.
func VerdictsOf(evalJSON []byte) (difference string, ok bool) {
	var ev GraderEval
	if json.Unmarshal(evalJSON, &ev) != nil || ev.Schema != GraderEvalSchema {
		return "", false
	}
	return ev.VerdictDifference, true
}

// OfficialVerdict is the official harness's verdict on the same run.
type OfficialVerdict struct {
	Resolution  ResolvedStatus `json:"resolution,omitempty"`
	Resolved    bool           `json:"resolved"`
	Error       string         `json:"error,omitempty"`
	LogProblem  string         `json:"log_problem,omitempty"`
	ExitCode    *int           `json:"test_exit_code,omitempty"`
	TestsStatus *TestsStatus   `json:"tests_status,omitempty"`
}

// OutputRecord is how much the test command printed and how much of it grading left out
// (boundedCapture).
type OutputRecord struct {
	Bytes        int64 `json:"bytes"`
	DroppedBytes int64 `json:"dropped_bytes,omitempty"`
}

// RerunRecord is the run of the tests on the unpatched tree after the deadline cut them.
type RerunRecord struct {
	Finished bool    `json:"finished"`
	ExitCode int     `json:"exit_code"`
	Seconds  float64 `json:"seconds"`
}

// GraderPatch describes the model patch and how it was applied.
type GraderPatch struct {
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256,omitempty"`
	// Method is the command that applied it ("git apply --verbose", ...), "already applied", or
	// "" when it did not apply.
	Method string `json:"method,omitempty"`
}

// GraderRun says what RunGrader grades and where.
type GraderRun struct {
	// ConfigDir holds instance.json and grading.json.
	ConfigDir string
	// PatchPath is the model patch; a missing or empty file is an error instance.
	PatchPath string
	// Workdir is the repository at the base commit; "" means /testbed.
	Workdir string
	// OutDir receives report.json (completed instances only), reward.json and eval.json.
	OutDir string
	// Log receives the patch application's and the eval script's merged output as it runs.
	Log io.Writer
	// Env is the environment of the scripts; nil means this process's.
	Env []string
	// TestUser is the identity the install step and the tests run as (sandbox.Test in a
	// verifier); the grader itself must be root to switch to it.
	TestUser sandbox.Identity
	// Deadline is when the results must be written; zero means none.
	Deadline time.Time
}

// RunGrader grades one instance (gradeInstance): the grader applies the model patch (four
// methods) and does every git step itself, the install step and the test command run as the
// test user, and the verdict comes from what the grader captured. It writes OutDir/reward.json
// and eval.json, report.json when the instance completed, and verdict.json when the result has
// a cause the trial shows. The error is set when the grader failed; reward.json then holds
// reward.GraderFailed().
func RunGrader(ctx context.Context, r GraderRun) (reward.Result, error) {
	if r.Log == nil {
		r.Log = io.Discard
	}
	if r.Workdir == "" {
		r.Workdir = DefaultWorkdir
	}
	ev := &GraderEval{Schema: GraderEvalSchema, Run: RunCaptured, Timings: map[string]float64{}}
	var result reward.Result
	var report *InstanceReport
	total, err := steps.Attempt(r.Log, func() (err error) {
		result, report, err = grade(ctx, r, ev)
		return err
	})
	if err != nil {
		result, report = reward.GraderFailed(), nil
		ev.GraderError = err.Error()
	}
	ev.Reward = result
	ev.Timings["total"] = total
	if werr := writeGraderOutputs(r.OutDir, result, ev, report); werr != nil && err == nil {
		err = werr
	}
	return result, err
}

// grade reads the grader directory (into memory, before any code of the patch runs) and
// grades the instance; the report is nil for an error instance.
func grade(ctx context.Context, r GraderRun, ev *GraderEval) (reward.Result, *InstanceReport, error) {
	in, err := ReadGraderDir(r.ConfigDir)
	if err != nil {
		return nil, nil, err
	}
	ev.InstanceID, ev.GradingVersion = in.Instance.InstanceID, in.Version
	if st, err := os.Stat(r.Workdir); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("workdir %q is not a directory: the verifier image must hold the repository there (the official images use /testbed)", r.Workdir)
	}
	o, err := gradeInstance(ctx, in, r, ev)
	if err != nil {
		return nil, nil, err
	}
	rep := o.hardened
	ev.Parser, ev.Resolution, ev.Resolved = rep.Parser, rep.Resolution, rep.Resolved
	ev.Error, ev.LogProblem = rep.Error, rep.LogProblem
	if ev.TestExitCode == nil {
		ev.TestExitCode = rep.ExitCode
	}
	ev.Official = &OfficialVerdict{Resolution: o.official.Resolution, Resolved: o.official.Resolved, Error: o.official.Error,
		LogProblem: o.official.LogProblem, ExitCode: o.official.ExitCode, TestsStatus: o.official.TestsStatus}
	ev.Verdict = o.verdict
	ev.ScoredVerdict, _ = ParseScoredVerdict(in.Config.ScoredVerdict) // checked by ReadGraderDir
	ev.VerdictDifference = verdictDifference(o.hardened, o.official)
	if len(rep.Statuses) > 0 {
		ev.StatusCounts = map[testresults.Status]int{}
		for _, s := range rep.Statuses {
			ev.StatusCounts[s]++
		}
	}
	result, report := scoredResult(rep, o.official, ev.ScoredVerdict)
	return result, report, nil
}

// scoredResult is reward.json and report.json (nil for an error instance) of the verdict
// scored, with both verdicts recorded under their own keys.
func scoredResult(hardened, official InstanceReport, scoredVerdict string) (reward.Result, *InstanceReport) {
	scored := hardened
	if scoredVerdict == ScoreOfficial {
		scored = official
	}
	var report *InstanceReport
	if scored.Completed() {
		report = &scored
	}
	result := graderReward(scored)
	result[RewardOfficialResolved] = boolNumber(official.Resolved)
	result[RewardOfficialError] = boolNumber(!official.Completed())
	result[RewardHardenedResolved] = boolNumber(hardened.Resolved)
	result[RewardHardenedError] = boolNumber(!hardened.Completed())
	result[RewardScoresOfficial] = boolNumber(scoredVerdict == ScoreOfficial)
	result[RewardVerdictsDiffer] = boolNumber(verdictDifference(hardened, official) != "")
	return result, report
}

// verdictWords is a verdict in a word or two, with its reason: "resolved", "unresolved (why)",
// "error (why)".
func verdictWords(r InstanceReport) string {
	switch {
	case !r.Completed():
		return "error (" + r.Error + ")"
	case r.Resolved:
		return "resolved"
	case r.LogProblem != "":
		return "unresolved (" + r.LogProblem + ")"
	}
	return "unresolved (" + strings.ToLower(string(r.Resolution)) + " resolution: " + failedTests(r.TestsStatus) + ")"
}

// failedTests names the dataset tests that did not meet their expectation.
func failedTests(ts *TestsStatus) string {
	if ts == nil {
		return "no tests status"
	}
	failed := append(append([]string{}, ts.FailToPass.Failure...), ts.PassToPass.Failure...)
	const shown = 5
	if len(failed) > shown {
		return strings.Join(failed[:shown], ", ") + fmt.Sprintf(" and %d more failed", len(failed)-shown)
	}
	return strings.Join(failed, ", ") + " failed"
}

// verdictDifference is the finding when the hardened and official verdicts of one run differ
// (resolved or not, error or not), or "".
func verdictDifference(hardened, official InstanceReport) string {
	if hardened.Resolved == official.Resolved && hardened.Completed() == official.Completed() {
		return ""
	}
	return "hardened verdict " + verdictWords(hardened) + ", official verdict " + verdictWords(official)
}

var appliedLine = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(MarkerAppliedPatch) + ` \((.*)\)\s*$`)

// applyMethod is the command PatchApplyScript reports having applied the patch with.
func applyMethod(log string) string {
	if m := appliedLine.FindStringSubmatch(log); m != nil {
		return m[1]
	}
	if strings.Contains(log, MarkerPatchApplied) {
		return "already applied"
	}
	return ""
}

// graderReward is reward.json for a graded instance: one bug, resolved or not; an error
// instance is marked so that it is told apart from an unresolved one.
func graderReward(rep InstanceReport) reward.Result {
	resolved := boolNumber(rep.Resolved)
	r := reward.Result{
		reward.KeyReward: resolved, reward.KeySubtasks: 1, reward.KeyResolved: resolved, reward.KeyVisibleOK: 1,
		reward.KeyGraderFailed: 0,
		reward.KeyPatchApplied: boolNumber(rep.PatchSuccessfullyApplied),
		RewardError:            boolNumber(!rep.Completed()),
	}
	if rep.Resolution == ResolvedPartial {
		r[reward.KeyPartial] = 1
	}
	return r
}

func boolNumber(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func writeGraderOutputs(dir string, result reward.Result, ev *GraderEval, report *InstanceReport) error {
	rb, err := reward.Encode(result)
	if err != nil {
		return err
	}
	eb, err := steps.IndentedJSON(ev)
	if err != nil {
		return err
	}
	// Without a report (or a verdict), one left by an earlier run is removed: it would count
	// this error instance as completed.
	reportFile := steps.File{Name: pc.RecordSWEBenchReport}
	if report != nil {
		if reportFile.Data, err = steps.IndentedJSON(report); err != nil {
			return err
		}
	}
	verdictFile := steps.File{Name: reward.FileVerdict}
	if ev.Verdict != nil {
		if verdictFile.Data, err = reward.EncodeVerdict(*ev.Verdict); err != nil {
			return err
		}
	}
	return steps.WriteResults(dir, steps.File{Name: reward.FileJSON, Data: rb}, steps.File{Name: pc.RecordEval, Data: eb}, reportFile, verdictFile)
}
