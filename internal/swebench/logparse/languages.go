package logparse

import "github.com/swe-sweep/sweep-operator/internal/testresults"

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
// MAP_REPO_TO_PARSER entries and, marked in5Only, those 5.0.1's log_parsers files add.
var languageRepos = map[string]struct {
	parser  string
	in5Only bool
}{
	// C and C++ (SWE-bench Multilingual).
	"redis/redis":             {parser: "parse_log_redis"},
	"jqlang/jq":               {parser: "parse_log_jq"},
	"nlohmann/json":           {parser: "parse_log_doctest"},
	"micropython/micropython": {parser: "parse_log_micropython_test"},
	"valkey-io/valkey":        {parser: "parse_log_redis"},
	"fmtlib/fmt":              {parser: "parse_log_googletest"},
	// Go.
	"caddyserver/caddy":     {parser: "parse_log_gotest"},
	"hashicorp/terraform":   {parser: "parse_log_gotest"},
	"prometheus/prometheus": {parser: "parse_log_gotest"},
	"gohugoio/hugo":         {parser: "parse_log_gotest"},
	"gin-gonic/gin":         {parser: "parse_log_gotest"},
	// Java.
	"google/gson":           {parser: "parse_log_maven"},
	"apache/druid":          {parser: "parse_log_maven"},
	"javaparser/javaparser": {parser: "parse_log_maven"},
	"projectlombok/lombok":  {parser: "parse_log_ant"},
	"apache/lucene":         {parser: "parse_log_gradle_custom"},
	"reactivex/rxjava":      {parser: "parse_log_gradle_custom"},
	// JavaScript and TypeScript (SWE-bench Multimodal and Multilingual).
	"Automattic/wp-calypso":     {parser: "parse_log_calypso"},
	"chartjs/Chart.js":          {parser: "parse_log_chart_js"},
	"markedjs/marked":           {parser: "parse_log_marked"},
	"processing/p5.js":          {parser: "parse_log_p5js"},
	"diegomura/react-pdf":       {parser: "parse_log_react_pdf"},
	"babel/babel":               {parser: "parse_log_jest"},
	"vuejs/core":                {parser: "parse_log_vitest"},
	"facebook/docusaurus":       {parser: "parse_log_jest"},
	"immutable-js/immutable-js": {parser: "parse_log_immutable_js"},
	"mrdoob/three.js":           {parser: "parse_log_tap"},
	"preactjs/preact":           {parser: "parse_log_karma"},
	"axios/axios":               {parser: "parse_log_tap"},
	// 5.0.1 only.
	"alibaba-fusion/next":           {parser: "parse_log_next", in5Only: true},
	"bpmn-io/bpmn-js":               {parser: "parse_log_bpmn_js", in5Only: true},
	"carbon-design-system/carbon":   {parser: "parse_log_carbon", in5Only: true},
	"cypress-io/cypress":            {parser: "parse_log_cypress", in5Only: true},
	"emotion-js/emotion":            {parser: "parse_log_emotion", in5Only: true},
	"eslint/eslint":                 {parser: "parse_log_eslint", in5Only: true},
	"GoogleChrome/lighthouse":       {parser: "parse_log_lighthouse", in5Only: true},
	"grommet/grommet":               {parser: "parse_log_grommet", in5Only: true},
	"highlightjs/highlight.js":      {parser: "parse_log_highlightjs", in5Only: true},
	"openlayers/openlayers":         {parser: "parse_log_openlayers", in5Only: true},
	"plotly/plotly.js":              {parser: "parse_plotly_js", in5Only: true},
	"prettier/prettier":             {parser: "parse_log_prettier", in5Only: true},
	"PrismJS/prism":                 {parser: "parse_log_prismjs", in5Only: true},
	"quarto-dev/quarto-cli":         {parser: "parse_log_quarto_cli", in5Only: true},
	"scratchfoundation/scratch-gui": {parser: "parse_log_scratch_gui", in5Only: true},
	// PHP.
	"phpoffice/phpspreadsheet":  {parser: "parse_log_phpunit"},
	"laravel/framework":         {parser: "parse_log_phpunit"},
	"php-cs-fixer/php-cs-fixer": {parser: "parse_log_phpunit"},
	"briannesbitt/carbon":       {parser: "parse_log_phpunit"},
	// Ruby.
	"jekyll/jekyll":     {parser: "parse_log_jekyll"},
	"fluent/fluentd":    {parser: "parse_log_ruby_unit"},
	"fastlane/fastlane": {parser: "parse_log_rspec_transformed_json"},
	"jordansissel/fpm":  {parser: "parse_log_rspec_transformed_json"},
	"faker-ruby/faker":  {parser: "parse_log_ruby_unit"},
	"rubocop/rubocop":   {parser: "parse_log_rspec_transformed_json"},
	// Rust.
	"burntsushi/ripgrep": {parser: "parse_log_cargo"},
	"sharkdp/bat":        {parser: "parse_log_cargo"},
	"astral-sh/ruff":     {parser: "parse_log_cargo"},
	"tokio-rs/tokio":     {parser: "parse_log_cargo"},
	"uutils/coreutils":   {parser: "parse_log_cargo"},
	"nushell/nushell":    {parser: "parse_log_cargo"},
	"tokio-rs/axum":      {parser: "parse_log_cargo"},
}
