package logparse

import (
	"slices"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Instance is what a few official parsers read besides the log: the instance id
// (immutable-js and jekyll pick a runner by pull request number) and the version (next and
// lighthouse pick one by version).
type Instance struct {
	ID      string
	Version string
}

// For returns p reading logs of instance in; parsers that do not look at the instance ignore it.
func (p Parser) For(in Instance) Parser {
	p.inst = in
	return p
}

// NeedsInstance reports whether the parser reads the instance's id or version (see Instance):
// without For, such a parser finds no results.
func (p Parser) NeedsInstance() bool { return p.byInstance != nil }

// languageParser is one of SWE-bench's parsers for a language other than Python.
type languageParser struct {
	// in41 and in5: whether SWE-bench v4.1.0 / v5.0.1 has the function.
	in41, in5 bool
	parse     func(log string, d Dialect) Statuses
	// byInstance replaces parse for the parsers that read the instance.
	byInstance func(log string, d Dialect, in Instance) Statuses
}

// same is a parser that reads a log alike in every dialect.
func same(fn func(string) Statuses) func(string, Dialect) Statuses {
	return func(log string, _ Dialect) Statuses { return fn(log) }
}

// languageParsers are SWE-bench's non-Python parsers: v4.1.0's log_parsers/{c,go,java,
// javascript,php,ruby,rust}.py and v5.0.1's registry and repository maps of the same files. Full
// is 5.0.1's reading except for go test, cargo and Jest, whose Full readings are our own (see
// docs/swebench.md, "Parity: parsers for other languages").
var languageParsers = map[string]languageParser{
	// JavaScript, in both versions.
	"parse_log_calypso":   {in41: true, in5: true, parse: same(parseCalypso)},
	"parse_log_chart_js":  {in41: true, in5: true, parse: same(parseChartJS)},
	"parse_log_marked":    {in41: true, in5: true, parse: same(parseMarked)},
	"parse_log_p5js":      {in41: true, in5: true, parse: same(parseP5JS)},
	"parse_log_react_pdf": {in41: true, in5: true, parse: same(parseCarbon)},
	"parse_log_jest": {in41: true, in5: true, parse: func(log string, d Dialect) Statuses {
		if d == Full {
			return testresults.ParseJest(log, testresults.ConsoleOptions{StripANSI: true})
		}
		return parseJestOfficial(log, d == Official5)
	}},
	"parse_log_jest_json":    {in41: true, in5: true, parse: same(parseJestJSON)},
	"parse_log_vitest":       {in41: true, in5: true, parse: same(parseVitest)},
	"parse_log_karma":        {in41: true, in5: true, parse: same(parseKarma)},
	"parse_log_tap":          {in41: true, in5: true, parse: same(parseTap)},
	"parse_log_immutable_js": {in41: true, in5: true, byInstance: parseImmutableJS},
	// JavaScript, 5.0.1 only (the last three are in its repository map, not its registry).
	"parse_log_bpmn_js":     {in5: true, parse: same(parseBpmnJS)},
	"parse_log_carbon":      {in5: true, parse: same(parseCarbon)},
	"parse_log_eslint":      {in5: true, parse: same(parseESLint)},
	"parse_log_grommet":     {in5: true, parse: same(parseGrommet)},
	"parse_log_highlightjs": {in5: true, parse: same(parseHighlightJS)},
	"parse_log_lighthouse":  {in5: true, byInstance: parseLighthouse},
	"parse_log_next":        {in5: true, byInstance: parseNext},
	"parse_log_openlayers":  {in5: true, parse: same(parseOpenLayers)},
	"parse_log_prismjs":     {in5: true, parse: same(parsePrismJS)},
	"parse_log_quarto_cli":  {in5: true, parse: same(parseQuartoCLI)},
	"parse_log_cypress":     {in5: true, parse: same(parseCypress)},
	"parse_log_emotion":     {in5: true, parse: same(parseEmotion)},
	"parse_plotly_js":       {in5: true, parse: same(parsePlotlyJS)},
	// C and C++.
	"parse_log_redis":            {in41: true, in5: true, parse: same(parseRedis)},
	"parse_log_jq":               {in41: true, in5: true, parse: same(parseJQ)},
	"parse_log_doctest":          {in41: true, in5: true, parse: same(parseDoctest)},
	"parse_log_micropython_test": {in41: true, in5: true, parse: same(parseMicropython)},
	"parse_log_googletest":       {in41: true, in5: true, parse: same(parseGoogleTest)},
	// Go and Rust: Full is our own reading (colour codes removed; cargo's ignored tests SKIPPED).
	"parse_log_gotest": {in41: true, in5: true, parse: func(log string, d Dialect) Statuses {
		if d == Full {
			return testresults.ParseGoTestVerbose(log, testresults.ConsoleOptions{StripANSI: true})
		}
		return parseGoTestOfficial(log)
	}},
	"parse_log_cargo": {in41: true, in5: true, parse: func(log string, d Dialect) Statuses {
		if d == Full {
			return testresults.ParseCargo(log, testresults.CargoOptions{Lenient: true})
		}
		return parseCargoOfficial(log)
	}},
	// Java.
	"parse_log_maven":         {in41: true, in5: true, parse: parseMaven},
	"parse_log_ant":           {in41: true, in5: true, parse: same(parseAnt)},
	"parse_log_gradle_custom": {in41: true, in5: true, parse: parseGradle},
	// PHP.
	"parse_log_phpunit": {in41: true, in5: true, parse: same(parsePHPUnit)},
	// Ruby.
	"parse_log_minitest":               {in41: true, in5: true, parse: same(parseMinitest)},
	"parse_log_cucumber":               {in41: true, in5: true, parse: same(parseCucumber)},
	"parse_log_ruby_unit":              {in41: true, in5: true, parse: same(parseRubyUnit)},
	"parse_log_rspec_transformed_json": {in41: true, in5: true, parse: same(parseRspecTransformedJSON)},
	"parse_log_jekyll":                 {in41: true, in5: true, byInstance: parseJekyll},
}

// The aliases of parse_log_carbon in 5.0.1's javascript.py (the same function): prettier's,
// scratch-gui's and lighthouse's Jest parser.
func init() {
	for _, alias := range []string{"parse_log_prettier", "parse_log_scratch_gui", "parse_log_lighthouse_jest"} {
		languageParsers[alias] = languageParsers["parse_log_carbon"]
	}
	for name, lp := range languageParsers {
		var absent []Dialect
		if !lp.in41 {
			absent = append(absent, Official41)
		}
		if !lp.in5 {
			absent = append(absent, Official5)
		}
		if absent != nil {
			absentUpstream[name] = absent
		}
	}
}

// parseLanguage reads log with the language parser lp as dialect d; a dialect whose harness
// has no such function reads nothing (its grading has no parser to pick for the repository).
func parseLanguage(lp languageParser, log string, d Dialect, in Instance) Statuses {
	if (d == Official41 && !lp.in41) || (d == Official5 && !lp.in5) {
		return nil
	}
	if lp.byInstance != nil {
		return lp.byInstance(log, d, in)
	}
	return lp.parse(log, d)
}

// languageRepos is the repository → parser table of SWE-bench's non-Python repositories: 4.1's
// MAP_REPO_TO_PARSER entries and those 5.0.1's log_parsers files add (whose parsers 4.1 lacks, so
// that a 4.1 grade of them is refused by Exists).
var languageRepos = map[string]string{
	// C and C++ (SWE-bench Multilingual).
	"redis/redis":             "parse_log_redis",
	"jqlang/jq":               "parse_log_jq",
	"nlohmann/json":           "parse_log_doctest",
	"micropython/micropython": "parse_log_micropython_test",
	"valkey-io/valkey":        "parse_log_redis",
	"fmtlib/fmt":              "parse_log_googletest",
	// Go.
	"caddyserver/caddy":     "parse_log_gotest",
	"hashicorp/terraform":   "parse_log_gotest",
	"prometheus/prometheus": "parse_log_gotest",
	"gohugoio/hugo":         "parse_log_gotest",
	"gin-gonic/gin":         "parse_log_gotest",
	// Java.
	"google/gson":           "parse_log_maven",
	"apache/druid":          "parse_log_maven",
	"javaparser/javaparser": "parse_log_maven",
	"projectlombok/lombok":  "parse_log_ant",
	"apache/lucene":         "parse_log_gradle_custom",
	"reactivex/rxjava":      "parse_log_gradle_custom",
	// JavaScript and TypeScript (SWE-bench Multimodal and Multilingual).
	"Automattic/wp-calypso":     "parse_log_calypso",
	"chartjs/Chart.js":          "parse_log_chart_js",
	"markedjs/marked":           "parse_log_marked",
	"processing/p5.js":          "parse_log_p5js",
	"diegomura/react-pdf":       "parse_log_react_pdf",
	"babel/babel":               "parse_log_jest",
	"vuejs/core":                "parse_log_vitest",
	"facebook/docusaurus":       "parse_log_jest",
	"immutable-js/immutable-js": "parse_log_immutable_js",
	"mrdoob/three.js":           "parse_log_tap",
	"preactjs/preact":           "parse_log_karma",
	"axios/axios":               "parse_log_tap",
	// 5.0.1 only (its per-language maps; instances of 5 name their parser).
	"alibaba-fusion/next":           "parse_log_next",
	"bpmn-io/bpmn-js":               "parse_log_bpmn_js",
	"carbon-design-system/carbon":   "parse_log_carbon",
	"cypress-io/cypress":            "parse_log_cypress",
	"emotion-js/emotion":            "parse_log_emotion",
	"eslint/eslint":                 "parse_log_eslint",
	"GoogleChrome/lighthouse":       "parse_log_lighthouse",
	"grommet/grommet":               "parse_log_grommet",
	"highlightjs/highlight.js":      "parse_log_highlightjs",
	"openlayers/openlayers":         "parse_log_openlayers",
	"plotly/plotly.js":              "parse_plotly_js",
	"prettier/prettier":             "parse_log_prettier",
	"PrismJS/prism":                 "parse_log_prismjs",
	"quarto-dev/quarto-cli":         "parse_log_quarto_cli",
	"scratchfoundation/scratch-gui": "parse_log_scratch_gui",
	// PHP.
	"phpoffice/phpspreadsheet":  "parse_log_phpunit",
	"laravel/framework":         "parse_log_phpunit",
	"php-cs-fixer/php-cs-fixer": "parse_log_phpunit",
	"briannesbitt/carbon":       "parse_log_phpunit",
	// Ruby.
	"jekyll/jekyll":     "parse_log_jekyll",
	"fluent/fluentd":    "parse_log_ruby_unit",
	"fastlane/fastlane": "parse_log_rspec_transformed_json",
	"jordansissel/fpm":  "parse_log_rspec_transformed_json",
	"faker-ruby/faker":  "parse_log_ruby_unit",
	"rubocop/rubocop":   "parse_log_rspec_transformed_json",
	// Rust.
	"burntsushi/ripgrep": "parse_log_cargo",
	"sharkdp/bat":        "parse_log_cargo",
	"astral-sh/ruff":     "parse_log_cargo",
	"tokio-rs/tokio":     "parse_log_cargo",
	"uutils/coreutils":   "parse_log_cargo",
	"nushell/nushell":    "parse_log_cargo",
	"tokio-rs/axum":      "parse_log_cargo",
}

// Repos lists every repository ForRepo knows, sorted: the repositories SWE-bench 4.1's map or
// 5.0.1's log_parsers files give a parser.
func Repos() []string {
	repos := make([]string, 0, len(repoParsers)+len(languageRepos))
	for r := range repoParsers {
		repos = append(repos, r)
	}
	for r := range languageRepos {
		repos = append(repos, r)
	}
	slices.Sort(repos)
	return repos
}
