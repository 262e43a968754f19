// Package logparse is SWE-bench's parser table: it maps SWE-bench's parser names
// (parse_log_pytest, parse_log_django, ...) and repositories onto the parsers of
// internal/testresults, and each harness version (a Dialect) onto those parsers' options, so
// that a log is read either as the official harness of that version reads it or with everything
// our parsers can see.
package logparse

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Dialect chooses whose reading of a log a parser reproduces.
type Dialect int

const (
	// Full is our own reading: whole parametrized ids (spaces kept), verbose "<id> STATUS" lines,
	// ANSI colour removed, pytest's xfail(run=False) reported as SKIPPED (the test never ran),
	// cargo's ignored tests as SKIPPED.
	Full Dialect = iota
	// Official41 reproduces SWE-bench 4.1's parsers, quirks included, so that a grade under 4.1
	// equals the official one on the same log.
	Official41
	// Official5 reproduces SWE-bench 5's parsers.
	Official5
)

func (d Dialect) String() string {
	switch d {
	case Full:
		return "full"
	case Official41:
		return "official-4.1"
	case Official5:
		return "official-5"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// Statuses maps a test id to its outcome.
type Statuses = testresults.Results

// Parser reads one runner's log format.
type Parser struct {
	name  string
	parse func(log string, d Dialect) Statuses
	// byInstance is set for the language parsers (languages.go); inst is what For gave them.
	byInstance func(log string, d Dialect, in Instance) Statuses
	inst       Instance
}

// Name is the registry name, e.g. "parse_log_pytest".
func (p Parser) Name() string { return p.name }

// Parse reads log with everything our parser can see (the Full dialect).
func (p Parser) Parse(log string) Statuses { return p.ParseAs(log, Full) }

// ParseAs reads log the way dialect d does.
func (p Parser) ParseAs(log string, d Dialect) Statuses {
	if p.byInstance != nil {
		return p.byInstance(log, d, p.inst)
	}
	return p.parse(log, d)
}

// Exists reports whether SWE-bench's harness of dialect d has a parser of this name (Full:
// always). Where it has none, ParseAs under d reads the log as that version's grading would
// with the parser it picks instead (see absentUpstream).
func (p Parser) Exists(d Dialect) bool {
	return d == Full || !slices.Contains(absentUpstream[p.name], d)
}

// absentUpstream lists, per parser name, the official dialects whose harness has no function
// of that name (the goldens' upstream path is empty there). Every Python parser exists in
// both 4.1 and 5.
var absentUpstream = map[string][]Dialect{}

// JUnitName is the registry name of the JUnit XML reader, which SWE-bench does not have.
const JUnitName = "junit"

// The line grammars of SWE-bench's pytest parsers. Both versions cut an id at its first
// whitespace and read only lines that start with a status word; 5 drops "SKIPPED [N]" skip
// summaries. parse_log_pytest_v2 also reads lines that end with a status word, and under 5
// keeps every field after the status in the id.
var (
	fields41 = testresults.PytestOptions{Lines: testresults.PytestFields}
	fields5  = testresults.PytestOptions{Lines: testresults.PytestFields, SkipSummaries: true}
	v2of41   = testresults.PytestOptions{Lines: testresults.PytestFields, StripColourAndControl: true, TrailingStatus: true}
	v2of5    = testresults.PytestOptions{Lines: testresults.PytestFields, StripColourAndControl: true, TrailingStatus: true,
		JoinedFields: true, SkipSummaries: true}
	seaborn = testresults.PytestOptions{Lines: testresults.PytestSeaborn}
)

// The SWE-bench parsers that are another name of one of them (the same function in 4.1 and 5).
var (
	pytestParser        = pytestFamily(fields41, fields5)
	pytestOptionsParser = pytestFamily(withBasenameParams(fields41), withBasenameParams(fields5))
	pytestV2Parser      = pytestFamily(v2of41, v2of5)
)

// registry maps each SWE-bench parser name onto the testresults parser and the options that
// reproduce each dialect's reading.
var registry = map[string]func(string, Dialect) Statuses{
	"parse_log_pytest":         pytestParser,
	"parse_log_astroid":        pytestParser,
	"parse_log_flask":          pytestParser,
	"parse_log_marshmallow":    pytestParser,
	"parse_log_pvlib":          pytestParser,
	"parse_log_pyvista":        pytestParser,
	"parse_log_sqlfluff":       pytestParser,
	"parse_log_xarray":         pytestParser,
	"parse_log_pytest_options": pytestOptionsParser,
	"parse_log_pydicom":        pytestOptionsParser,
	"parse_log_requests":       pytestOptionsParser,
	"parse_log_pylint":         pytestOptionsParser,
	"parse_log_pytest_v2":      pytestV2Parser,
	"parse_log_astropy":        pytestV2Parser,
	"parse_log_scikit":         pytestV2Parser,
	"parse_log_sphinx":         pytestV2Parser,
	"parse_log_matplotlib":     pytestFamily(withMouseButtons(fields41), withMouseButtons(fields5)),
	"parse_log_seaborn":        pytestFamily(seaborn, seaborn),
	"parse_log_django": func(log string, d Dialect) Statuses {
		return testresults.ParseDjango(log, testresults.DjangoOptions{WholeHeaderNames: d == Full, ExpectedFailures: d == Full})
	},
	"parse_log_sympy": func(log string, d Dialect) Statuses {
		return testresults.ParseSympy(log, testresults.SympyOptions{ExpectedFailuresAndSkips: d == Full})
	},
	JUnitName: func(log string, _ Dialect) Statuses { return testresults.ParseJUnitLog(log, junitRules) },
}

func withBasenameParams(o testresults.PytestOptions) testresults.PytestOptions {
	o.BasenameParams = true
	return o
}

func withMouseButtons(o testresults.PytestOptions) testresults.PytestOptions {
	o.MouseButtons = true
	return o
}

// junitRules are the rules of the JUnit reader here (our own, the same in every dialect); the
// bundle grader reads JUnit by testresults' zero options, which differ from these.
var junitRules = testresults.JUnitOptions{
	XFail: testresults.XFailPytestRan, Repeats: testresults.LastTestcase, LastAttribute: true,
}

// fullPytest is our own reading of a pytest log, whatever the SWE-bench parser.
var fullPytest = testresults.PytestOptions{StripANSI: true, TrimCR: true, RealIDsOnly: true, NotRunXFailSkipped: true}

// pytestFamily reads a pytest log with v41 under Official41, v5 under Official5, and under Full
// as any pytest log (fullPytest), keeping only the id rewrites (BasenameParams, MouseButtons)
// that make its ids match the parser's dataset.
func pytestFamily(v41, v5 testresults.PytestOptions) func(string, Dialect) Statuses {
	full := fullPytest
	full.BasenameParams, full.MouseButtons = v5.BasenameParams, v5.MouseButtons
	return func(log string, d Dialect) Statuses {
		o := full
		switch d {
		case Official41:
			o = v41
		case Official5:
			o = v5
		}
		return testresults.ParsePytestLog(log, o)
	}
}

// Get returns the parser registered under name.
func Get(name string) (Parser, error) {
	if lp, ok := languageParsers[name]; ok {
		return Parser{name: name, byInstance: func(log string, d Dialect, in Instance) Statuses {
			return parseLanguage(lp, log, d, in)
		}}, nil
	}
	fn, ok := registry[name]
	if !ok {
		return Parser{}, fmt.Errorf("unknown log parser %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	return Parser{name: name, parse: fn}, nil
}

// Names lists the registered parser names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry)+len(languageParsers))
	for n := range registry {
		names = append(names, n)
	}
	for n := range languageParsers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// repoParsers is SWE-bench's repository → parser table, for instances that do not name their
// parser (everything before v5). For the Python repositories 4.1's and 5's tables are the same;
// they name the parser by an alias (parse_log_astropy), the same function as the name here.
var repoParsers = map[string]string{
	"pylint-dev/astroid":           "parse_log_pytest",
	"pallets/flask":                "parse_log_pytest",
	"marshmallow-code/marshmallow": "parse_log_pytest",
	"pvlib/pvlib-python":           "parse_log_pytest",
	"pyvista/pyvista":              "parse_log_pytest",
	"sqlfluff/sqlfluff":            "parse_log_pytest",
	"pydata/xarray":                "parse_log_pytest",
	"pytest-dev/pytest":            "parse_log_pytest",
	"pydicom/pydicom":              "parse_log_pytest_options",
	"psf/requests":                 "parse_log_pytest_options",
	"pylint-dev/pylint":            "parse_log_pytest_options",
	"astropy/astropy":              "parse_log_pytest_v2",
	"scikit-learn/scikit-learn":    "parse_log_pytest_v2",
	"sphinx-doc/sphinx":            "parse_log_pytest_v2",
	"django/django":                "parse_log_django",
	"sympy/sympy":                  "parse_log_sympy",
	"mwaskom/seaborn":              "parse_log_seaborn",
	"matplotlib/matplotlib":        "parse_log_matplotlib",
}

// ForRepo returns the parser name SWE-bench uses for repo ("owner/name").
func ForRepo(repo string) (string, bool) {
	if name, ok := repoParsers[repo]; ok {
		return name, true
	}
	name, ok := languageRepos[repo]
	return name, ok
}
