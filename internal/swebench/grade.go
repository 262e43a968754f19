package swebench

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// GradingVersion is the SWE-bench harness version whose rules a grade follows. There is no
// default: the version changes verdicts, so it is always chosen and recorded.
type GradingVersion string

const (
	V41 GradingVersion = "4.1"
	V5  GradingVersion = "5"
)

// ParseGradingVersion accepts "4.1", "4.1.x", "5", "5.x" and "5.x.y".
func ParseGradingVersion(s string) (GradingVersion, error) {
	switch {
	case s == "4.1" || strings.HasPrefix(s, "4.1."):
		return V41, nil
	case s == "5" || strings.HasPrefix(s, "5."):
		return V5, nil
	}
	return "", fmt.Errorf("grading version %q: use 4.1 or 5 (the two differ on skipped tests, truncated ids and exit-code checks)", s)
}

func (v GradingVersion) dialect() (logparse.Dialect, error) {
	switch v {
	case V41:
		return logparse.Official41, nil
	case V5:
		return logparse.Official5, nil
	}
	return 0, fmt.Errorf("grading version %q: use 4.1 or 5", string(v))
}

// ParseAsVersion reads log with p as version's official grading does (what grading sees): in
// text mode, as get_logs_eval reads the log file, then with that version's parser.
func ParseAsVersion(p logparse.Parser, log string, version GradingVersion) (logparse.Statuses, error) {
	dialect, err := version.dialect()
	if err != nil {
		return nil, err
	}
	return p.ParseAs(universalNewlines(log), dialect), nil
}

// ResolvedStatus is SWE-bench's resolution of one instance.
type ResolvedStatus string

const (
	ResolvedFull    ResolvedStatus = "FULL"
	ResolvedPartial ResolvedStatus = "PARTIAL"
	ResolvedNo      ResolvedStatus = "NO"
)

// TestOutcomes splits a test list into the tests that met their expectation and those that did not.
type TestOutcomes struct {
	Success []string `json:"success"`
	Failure []string `json:"failure"`
}

// TestsStatus is report.json's tests_status. FAIL_TO_FAIL and PASS_TO_FAIL are always empty, as
// in the official reports.
type TestsStatus struct {
	FailToPass TestOutcomes `json:"FAIL_TO_PASS"`
	PassToPass TestOutcomes `json:"PASS_TO_PASS"`
	FailToFail TestOutcomes `json:"FAIL_TO_FAIL"`
	PassToFail TestOutcomes `json:"PASS_TO_FAIL"`
}

// InstanceReport is the grade of one instance. It marshals to report.json's shape,
// {"<instance_id>": {...}}; the fields after TestsStatus are our record and stay out of it.
type InstanceReport struct {
	InstanceID               string
	PatchIsNone              bool
	PatchExists              bool
	PatchSuccessfullyApplied bool
	Resolved                 bool
	// TestsStatus is nil when the log could not be graded.
	TestsStatus *TestsStatus

	Version    GradingVersion
	Parser     string
	Resolution ResolvedStatus
	// Error, when set, makes the instance an error (no report in SWE-bench's terms): the patch did
	// not apply, the tests timed out, or (the hardened verdict) the run is invalid.
	Error string
	// LogProblem says why a completed instance's log could not be graded (it is then unresolved,
	// as in the official harness).
	LogProblem string
	// ExitCode is the test command's exit code, when the log records it.
	ExitCode *int
	// Statuses is what the version's parser read from the log.
	Statuses logparse.Statuses
}

// Completed reports whether the instance has a report (it is not an error).
func (r InstanceReport) Completed() bool { return r.Error == "" }

type reportBody struct {
	PatchIsNone              bool         `json:"patch_is_None"`
	PatchExists              bool         `json:"patch_exists"`
	PatchSuccessfullyApplied bool         `json:"patch_successfully_applied"`
	Resolved                 bool         `json:"resolved"`
	InfraFailure             *bool        `json:"infra_failure,omitempty"`
	InfraFailureReason       *string      `json:"infra_failure_reason,omitempty"`
	TestsStatus              *TestsStatus `json:"tests_status,omitempty"`
}

// MarshalJSON writes report.json: {"<instance_id>": {patch_is_None, patch_exists,
// patch_successfully_applied, resolved, [infra_failure under 5], tests_status}}.
func (r InstanceReport) MarshalJSON() ([]byte, error) {
	body := reportBody{
		PatchIsNone:              r.PatchIsNone,
		PatchExists:              r.PatchExists,
		PatchSuccessfullyApplied: r.PatchSuccessfullyApplied,
		Resolved:                 r.Resolved,
		TestsStatus:              r.TestsStatus,
	}
	if r.Version == V5 {
		noInfraFailure := false
		body.InfraFailure = &noInfraFailure
	}
	return json.Marshal(map[string]reportBody{r.InstanceID: body})
}

// UnmarshalJSON reads a report.json written by MarshalJSON or by the official harness.
func (r *InstanceReport) UnmarshalJSON(b []byte) error {
	var byID map[string]reportBody
	if err := json.Unmarshal(b, &byID); err != nil {
		return err
	}
	if len(byID) != 1 {
		return fmt.Errorf("want one instance id as the only key, found %d keys", len(byID))
	}
	for id, body := range byID {
		*r = InstanceReport{
			InstanceID:               id,
			PatchIsNone:              body.PatchIsNone,
			PatchExists:              body.PatchExists,
			PatchSuccessfullyApplied: body.PatchSuccessfullyApplied,
			Resolved:                 body.Resolved,
			TestsStatus:              body.TestsStatus,
		}
	}
	return nil
}

// ReadReport reads one report.json (written for completed instances only).
func ReadReport(path string) (InstanceReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return InstanceReport{}, fmt.Errorf("read report: %w", err)
	}
	var r InstanceReport
	if err := json.Unmarshal(data, &r); err != nil {
		return InstanceReport{}, fmt.Errorf("%s: not a SWE-bench report.json ({\"<instance_id>\": {...}}): %v", path, err)
	}
	return r, nil
}

// GradeOptions adjusts Grade.
type GradeOptions struct {
	// Parser overrides the log parser; "" means the instance's log_parser (5) or the repository's
	// parser (4.1), each falling back to the other.
	Parser string
}

// Grade grades the eval log of one instance whose prediction had a patch, under version's rules:
// the verdict is the one the official harness of that version gives on the same log
// (get_logs_eval, get_eval_tests_report, get_resolution_status). The log is the eval script's
// output, which the grader's log of the patch step may precede: a patch failure before the
// start marker, or a timeout marker on the last line, is an error instance (the official
// harness raises there and writes no report); every other rejection of the log is a completed,
// unresolved instance with LogProblem set, as the official report.json says.
func Grade(inst Instance, log string, version GradingVersion, opts GradeOptions) (InstanceReport, error) {
	dialect, err := version.dialect()
	if err != nil {
		return InstanceReport{}, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	parser, err := ParserFor(inst, version, opts.Parser)
	if err != nil {
		return InstanceReport{}, err
	}
	r := InstanceReport{
		InstanceID:  inst.InstanceID,
		PatchExists: true,
		Version:     version,
		Parser:      parser.Name(),
		Resolution:  ResolvedNo,
	}
	// The official harness opens the log in text mode: "\r\n" and a bare "\r" end a line.
	log = universalNewlines(log)

	if lastLineHas(log, MarkerTestsTimedOut) {
		r.Error = "the tests timed out"
		return r, nil
	}
	startAt := strings.Index(log, MarkerStartTestOutput)
	if startAt < 0 && strings.Contains(log, MarkerPatchApplyFail) {
		r.Error = "the model patch did not apply"
		return r, nil
	}
	for _, bad := range []string{MarkerPatchApplyFail, MarkerResetFailed, MarkerTestsErrored, MarkerTestsTimedOut} {
		if strings.Contains(log, bad) {
			r.LogProblem = fmt.Sprintf("the log contains %q", bad)
			return r, nil
		}
	}
	if startAt < 0 || !strings.Contains(log, MarkerEndTestOutput) {
		r.LogProblem = "the log lacks the start or end test-output marker (did the test patch apply?)"
		return r, nil
	}

	source := testSection(log, startAt)
	statuses := parser.ParseAs(source, dialect)
	if len(statuses) == 0 {
		// Runners that write results outside the markers (stderr captured apart) are read whole.
		source = log
		statuses = parser.ParseAs(source, dialect)
	}
	r.ExitCode = officialExitCode(log)
	r.Statuses = statuses
	if version == V5 {
		if problem := officialRunCheck5(statuses, log, r.ExitCode); problem != "" {
			r.LogProblem = "invalid run: " + problem
			return r, nil
		}
	}
	r.PatchSuccessfullyApplied = true
	return judgeRun(inst, r, statuses, officialRules(version, source, func(s string) logparse.Statuses { return parser.ParseAs(s, dialect) })), nil
}

// universalNewlines is Python's text-mode reading of a file: "\r\n" and a lone "\r" become "\n".
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// Python's str patterns: \s, \d and \w are Unicode classes.
const (
	pyWhitespace = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\p{Z}]`
	pyDigit      = `\p{Nd}`
	pyWord       = `[\p{L}\p{N}_]`
)

// officialExitCodeRecord is 5.0.1's reading of the exit-code record: the FIRST
// ">>>>> Test Exit Code:" anywhere in the log, any whitespace (newlines too) before the number.
var officialExitCodeRecord = regexp.MustCompile(regexp.QuoteMeta(strings.TrimSuffix(MarkerTestExitCode, ": ")) + `:` + pyWhitespace + `*(-?` + pyDigit + `+)`)

// officialExitCode is the exit code the official harness reads from log, or nil.
func officialExitCode(log string) *int {
	m := officialExitCodeRecord.FindStringSubmatch(log)
	if m == nil {
		return nil
	}
	code, ok := pyInt(m[1])
	if !ok {
		return nil
	}
	return &code
}

// pyInt is Python's int() of an optional "-" and decimal digits of any script.
func pyInt(s string) (int, bool) {
	neg := strings.HasPrefix(s, "-")
	n := 0
	for _, c := range strings.TrimPrefix(s, "-") {
		d, ok := digitValue(c)
		if !ok {
			return 0, false
		}
		// Python's int has no bound; a saturated value keeps what grading asks: zero or not.
		n = min(n*10+d, 1<<40)
	}
	if neg {
		n = -n
	}
	return n, true
}

// digitValue is the value of a Unicode decimal digit: Unicode allocates each script's digits as
// a contiguous run from zero, so the value is the distance from the run's start, modulo ten.
func digitValue(c rune) (int, bool) {
	if !unicode.IsDigit(c) {
		return 0, false
	}
	start := c
	for start > 0 && unicode.IsDigit(start-1) {
		start--
	}
	return int(c-start) % 10, true
}

// officialSuiteRan5 is 5.0.1's evidence that a runner executed when nothing was parsed: a
// NON-zero count of karma, mocha, jest, TAP or jasmine, or openlayers' "': ok" lines.
var officialSuiteRan5 = regexp.MustCompile(`(?m)Executed [1-9]` + pyDigit + `* of ` + pyDigit + `+` +
	`|TOTAL: [1-9]` + pyDigit + `* (?:SUCCESS|FAILED)` +
	`|[1-9]` + pyDigit + `* passing` +
	`|Tests:` + pyWhitespace + `+[1-9]` + pyDigit + `*` +
	`|Test Suites:` + pyWhitespace + `+(?:` + pyDigit + `+ ` + pyWord + `+, )*[1-9]` + pyDigit + `* total` +
	`|^# tests [1-9]` + pyDigit + `*` +
	`|[1-9]` + pyDigit + `* specs?, ` + pyDigit + `+ failures?` +
	`|': ok$`)

// officialRunCheck5 is 5.0.1's check that the log describes a run: with nothing parsed, the
// whole log must show a count; with results, a non-zero exit code needs a failed or errored test.
// The exit-code check is skipped when nothing was parsed.
func officialRunCheck5(statuses logparse.Statuses, log string, exitCode *int) string {
	if len(statuses) == 0 {
		if !officialSuiteRan5.MatchString(log) {
			return "no test results and no sign that the test suite ran"
		}
		return ""
	}
	return failingExitWithoutFailure(statuses, exitCode)
}

// failingExitWithoutFailure says why a non-zero exit code without any failed or errored test
// contradicts the results, or "".
func failingExitWithoutFailure(statuses logparse.Statuses, exitCode *int) string {
	if exitCode == nil || *exitCode == 0 {
		return ""
	}
	for _, s := range statuses {
		if s == testresults.Failed || s == testresults.Error {
			return ""
		}
	}
	return fmt.Sprintf("the test command exited %d but no test failed or errored", *exitCode)
}

// judgeRules are the differences between the official verdicts and the hardened one in judging
// parsed statuses.
type judgeRules struct {
	// prefixMatch: a truncated dataset id matches the parsed ids it begins (resolveCase).
	prefixMatch bool
	// order decides between prefix matches, as the parse map's insertion order does
	// officially.
	order matchOrder
	// failOnlyPrefix: fail-only tests are looked up with prefixMatch too (officially they
	// are looked up exactly).
	failOnlyPrefix bool
	// notRunXfail, when set, is our full reading of source: an XFAIL it reads as SKIPPED
	// (xfail(run=False)) is a failure, since the test never ran. fullParse is that reading
	// of any text.
	notRunXfail func() logparse.Statuses
	fullParse   func(string) logparse.Statuses
}

func officialRules(version GradingVersion, source string, parse func(string) logparse.Statuses) judgeRules {
	return judgeRules{prefixMatch: version == V5, order: matchOrder{source: source, parse: parse}}
}

// judgeRun grades statuses into r under rules.
func judgeRun(inst Instance, r InstanceReport, statuses logparse.Statuses, rules judgeRules) InstanceReport {
	version := r.Version
	r.Statuses = statuses
	failOnly := isFailOnly(inst, version)
	var full logparse.Statuses
	ts := &TestsStatus{
		FailToPass: TestOutcomes{Success: []string{}, Failure: []string{}},
		PassToPass: TestOutcomes{Success: []string{}, Failure: []string{}},
		FailToFail: TestOutcomes{Success: []string{}, Failure: []string{}},
		PassToFail: TestOutcomes{Success: []string{}, Failure: []string{}},
	}
	for _, group := range []struct {
		tests      TestList
		out        *TestOutcomes
		passToPass bool
	}{{inst.FailToPass, &ts.FailToPass, false}, {inst.PassToPass, &ts.PassToPass, true}} {
		for _, id := range group.tests {
			prefix := rules.prefixMatch && (!failOnly || rules.failOnlyPrefix)
			status, found := resolveCase(statuses, id, prefix, rules.order)
			o := judge(status, found, version, group.passToPass, failOnly)
			if o == success && status == testresults.XFail && rules.notRunXfail != nil {
				if full == nil {
					full = rules.notRunXfail()
				}
				if s, ok := resolveCase(full, id, true, matchOrder{source: rules.order.source, parse: rules.fullParse}); ok && s == testresults.Skipped {
					o = failure
				}
			}
			switch o {
			case success:
				group.out.Success = append(group.out.Success, id)
			case failure:
				group.out.Failure = append(group.out.Failure, id)
			}
		}
	}
	r.TestsStatus = ts
	r.Resolution = resolution(ts)
	r.Resolved = r.Resolution == ResolvedFull
	return r
}

// outcome is how one dataset test fares; "neither" leaves it out of the ratio.
type outcome int

const (
	neither outcome = iota
	success
	failure
)

// judge applies the version's rules to a dataset test's parsed status.
func judge(status testresults.Status, found bool, version GradingVersion, passToPass, failOnly bool) outcome {
	switch {
	case failOnly:
		if found && status == testresults.Failed {
			return failure
		}
		return success
	case !found:
		return failure
	}
	switch status {
	case testresults.Passed, testresults.XFail:
		return success
	case testresults.Failed, testresults.Error:
		return failure
	case testresults.Skipped:
		switch {
		case version == V41:
			return neither
		case passToPass:
			return success
		}
		return failure
	}
	// A status word the official parser kept as written ("PASSEDX" under 4.1).
	return neither
}

// ParserFor returns the log parser for inst: override when set, else the instance's log_parser
// under 5 or the repository's parser under 4.1, each falling back to the other.
func ParserFor(inst Instance, version GradingVersion, override string) (logparse.Parser, error) {
	name := override
	if name == "" {
		byRepo, known := logparse.ForRepo(inst.Repo)
		switch {
		case version == V5 && inst.LogParser != "":
			name = inst.LogParser
		case known:
			name = byRepo
		case inst.LogParser != "":
			name = inst.LogParser
		default:
			return logparse.Parser{}, fmt.Errorf("instance %s: no log parser for repository %q; set the instance's log_parser or pass a parser name (%s)",
				inst.InstanceID, inst.Repo, strings.Join(logparse.Names(), ", "))
		}
	}
	p, err := logparse.Get(name)
	if err != nil {
		return logparse.Parser{}, fmt.Errorf("instance %s: %w", inst.InstanceID, err)
	}
	if version == V41 && !p.Exists(logparse.Official41) {
		return logparse.Parser{}, fmt.Errorf("instance %s: log parser %s is not in SWE-bench 4.1 (its grading has no parser for %q): grade with version 5",
			inst.InstanceID, name, inst.Repo)
	}
	return p.For(logparse.Instance{ID: inst.InstanceID, Version: inst.Version}), nil
}

// testSection returns what the official harness parses: the text after the first start marker,
// up to the first end marker (or a second start marker).
func testSection(log string, startAt int) string {
	rest := log[startAt+len(MarkerStartTestOutput):]
	if i := strings.Index(rest, MarkerStartTestOutput); i >= 0 {
		rest = rest[:i]
	}
	if end := strings.Index(rest, MarkerEndTestOutput); end >= 0 {
		return rest[:end]
	}
	return rest
}

// resolveCase finds a dataset test id among the parsed ones. With prefixMatch (5), a truncated id
// (more "[" than "]") that is not present matches the parsed ids it begins when they agree on
// passing (PASSED or XFAIL) or not; it then takes the status of the first of them in the parse
// map's order (order.first).
func resolveCase(statuses logparse.Statuses, id string, prefixMatch bool, order matchOrder) (testresults.Status, bool) {
	if s, ok := statuses[id]; ok {
		return s, true
	}
	if !prefixMatch || strings.Count(id, "[") <= strings.Count(id, "]") {
		return "", false
	}
	var matches []string
	for k := range statuses {
		if strings.HasPrefix(k, id) {
			matches = append(matches, k)
		}
	}
	if len(matches) == 0 {
		return "", false
	}
	passing := func(s testresults.Status) bool { return s == testresults.Passed || s == testresults.XFail }
	same := true
	for _, k := range matches[1:] {
		if passing(statuses[k]) != passing(statuses[matches[0]]) {
			return "", false
		}
		same = same && statuses[k] == statuses[matches[0]]
	}
	if same {
		return statuses[matches[0]], true
	}
	// SKIPPED and FAILED, say: which one is first decides a pass-to-pass test.
	return statuses[order.first(matches)], true
}

// matchOrder recovers the order a parser inserted ids into its map, which Python's dict keeps
// and the official prefix match follows: source is the text the map was read from, parse (nil
// when unknown, e.g. for the grader's plugin results) the parser that read it.
type matchOrder struct {
	source string
	parse  func(string) logparse.Statuses
}

// first returns the key the parser inserted first. A parser's map only grows as it reads on,
// so the first key was inserted on the first line after which the parse of the text so far holds
// one of them; that line is found by bisection, in a few parses whatever the number of keys. Keys
// of that same line, or of a parser that fills its map only at the end, go by where they first
// appear in source, then by name.
func (o matchOrder) first(keys []string) string {
	candidates := keys
	if o.parse != nil {
		var lineEnds []int
		for i := 0; i < len(o.source); {
			n := strings.IndexByte(o.source[i:], '\n')
			if n < 0 {
				lineEnds = append(lineEnds, len(o.source))
				break
			}
			i += n + 1
			lineEnds = append(lineEnds, i)
		}
		holds := func(statuses logparse.Statuses) []string {
			var in []string
			for _, k := range keys {
				if _, ok := statuses[k]; ok {
					in = append(in, k)
				}
			}
			return in
		}
		line := sort.Search(len(lineEnds), func(i int) bool { return len(holds(o.parse(o.source[:lineEnds[i]]))) > 0 })
		if line < len(lineEnds) {
			candidates = holds(o.parse(o.source[:lineEnds[line]]))
		}
	}
	firstAt := func(k string) int {
		if i := strings.Index(o.source, k); i >= 0 {
			return i
		}
		return len(o.source)
	}
	return slices.MinFunc(candidates, func(a, b string) int {
		if c := cmp.Compare(firstAt(a), firstAt(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// failOnlyRepos are the repositories whose tests fail only on an explicit FAILED.
var failOnlyRepos = map[GradingVersion][]string{
	V41: {"chartjs/Chart.js", "processing/p5.js", "markedjs/marked"},
	V5:  {"chartjs/Chart.js", "processing/p5.js", "markedjs/marked", "bpmn-io/bpmn-js", "openlayers/openlayers", "eslint/eslint"},
}

func isFailOnly(inst Instance, version GradingVersion) bool {
	if version == V5 && inst.EvalType != "" {
		return inst.EvalType == FailOnly
	}
	return slices.Contains(failOnlyRepos[version], inst.Repo)
}

func resolution(ts *TestsStatus) ResolvedStatus {
	ratio := func(o TestOutcomes) float64 {
		total := len(o.Success) + len(o.Failure)
		if total == 0 {
			return 1
		}
		return float64(len(o.Success)) / float64(total)
	}
	f2p, p2p := ratio(ts.FailToPass), ratio(ts.PassToPass)
	switch {
	case f2p == 1 && p2p == 1:
		return ResolvedFull
	case f2p > 0 && f2p < 1 && p2p == 1:
		return ResolvedPartial
	}
	return ResolvedNo
}

// lastLineHas reports whether the last non-empty line of log contains marker; the verifier
// appends the timeout marker there, where test output cannot have put it.
func lastLineHas(log, marker string) bool {
	log = strings.TrimRight(log, " \t\r\n")
	return strings.Contains(log[strings.LastIndexByte(log, '\n')+1:], marker)
}

// TestOutput returns the text between the official start and end markers (the whole log when
// they are missing), for reading a log outside grading.
func TestOutput(log string) string {
	startAt := strings.Index(log, MarkerStartTestOutput)
	if startAt < 0 {
		return log
	}
	return testSection(log, startAt)
}
