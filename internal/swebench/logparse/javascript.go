package logparse

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// The JavaScript parsers of SWE-bench (log_parsers/javascript.py), each reproduced step by step:
// the same patterns (see pyRe), the same order of checks, the same line that wins for an id
// reported twice (the last one written, unless noted).

const (
	passed  = testresults.Passed
	failed  = testresults.Failed
	skipped = testresults.Skipped
)

// suiteStack is the indentation-driven suite path of the calypso, next and lighthouse parsers: an
// indented line that is not a result pops every suite at or deeper than its indent and pushes
// itself (the first one is pushed whatever its indent).
type suiteStack []suiteLevel

type suiteLevel struct {
	name   string
	indent int
}

func (s *suiteStack) adjust(line string) {
	indent := pyIndent(line)
	if indent == 0 {
		return
	}
	for len(*s) > 0 && (*s)[len(*s)-1].indent >= indent {
		*s = (*s)[:len(*s)-1]
	}
	*s = append(*s, suiteLevel{pyStrip(line), indent})
}

// appendJoin appends sep.join(suite names + [title]) to b.
func (s suiteStack) appendJoin(b []byte, title, sep string) []byte {
	for _, l := range s {
		b = append(b, l.name...)
		b = append(b, sep...)
	}
	return append(b, title...)
}

// parseCalypso: results after each " ./node_modules/.bin/jest " up to "Test Suites" or the
// first "  ● " failure detail; the id is the suite path and the title joined by " - ", so a test
// outside any suite is "- title". The suite path carries over from one jest run to the next. A
// result line the official pattern cannot match (no indentation) raises there: no results here.
func parseCalypso(log string) Statuses {
	out := Statuses{}
	var suite suiteStack
	var id []byte
	runs := pySplitString(log, " ./node_modules/.bin/jest ")
	for _, run := range runs[1:] {
		for line := range lineSeq(run) {
			if strings.HasPrefix(line, "Test Suites") || strings.HasPrefix(line, "  ● ") {
				break
			}
			stripped := pyLstrip(line)
			var mark string
			var status testresults.Status
			switch {
			case strings.HasPrefix(stripped, "✓"):
				mark, status = "✓", passed
			case strings.HasPrefix(stripped, "✕"):
				mark, status = "✕", failed
			default:
				suite.adjust(line)
				continue
			}
			title, ok := calypsoLine(line, mark)
			if !ok {
				return nil
			}
			// " - ".join([" - ".join(suite), title]).strip()
			if len(suite) > 0 {
				id = suite.appendJoin(id[:0], title, " - ")
			} else {
				id = append(append(id[:0], " - "...), title...)
			}
			setStatus(out, pyStripBytes(id), status)
		}
	}
	return out
}

var chartJSFailure = newLiteralRe(regexp.MustCompile(`(?m)Chrome` + `[` + pyWhitespace + `]` + `[\p{Nd}.]+[` + pyWhitespaceNoCRLF + `]\(.+?\)[` + pyWhitespaceNoCRLF + `](.*)FAILED$`)).withMatcher(matchChartJSFailure)

// pyWhitespaceNoCRLF is Python's [^\S\r\n]: whitespace other than CR and LF.
const pyWhitespaceNoCRLF = "\\t\\v\\f\\x{1c}-\\x{1f} \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"

// parseChartJS: only failures, from Karma's "Chrome <version> (<os>) <title> FAILED" lines
// after colour codes are removed.
func parseChartJS(log string) Statuses {
	out := Statuses{}
	log = ansiEscape(log)
	for m := range chartJSFailure.each(log) {
		out[log[m[2]:m[3]]] = failed
	}
	return out
}

// parseMarked: only failures, "<n>) <title>" at the start of a line.
func parseMarked(log string) Statuses {
	out := Statuses{}
	for line := range lineSeq(log) {
		if title, ok := markedLine(line); ok {
			out[pyStrip(title)] = failed
		}
	}
	return out
}

// p5jsFailures are the header texts of the official `(?ms)^\s*(\d+)\)(.{0,1000}?):` matches,
// found without a regexp (RE2 runs the counted repetition in time proportional to its bound at
// every line): at a line start, whitespace (newlines too), digits, ")", then the text up to the
// first ":" within 1000 characters; the next search starts after that ":".
func p5jsFailures(log string) []string {
	var out []string
	for pos := 0; pos <= len(log); {
		start := pos
		if start > 0 && log[start-1] != '\n' {
			i := strings.IndexByte(log[start:], '\n')
			if i < 0 {
				break
			}
			start += i + 1
		}
		pos = start + 1
		digits := start + len(log[start:]) - len(pyLstrip(log[start:]))
		end := digits
		for end < len(log) {
			r, size := utf8.DecodeRuneInString(log[end:])
			if !unicode.IsDigit(r) {
				break
			}
			end += size
		}
		if end == digits || end >= len(log) || log[end] != ')' {
			continue
		}
		header := log[end+1:]
		n := 0
		for i, r := range header {
			if r == ':' {
				out = append(out, header[:i])
				pos = end + 1 + i + 1
				break
			}
			if n++; n > 1000 {
				break
			}
		}
	}
	return out
}

// parseP5JS: only failures, mocha's numbered failure headers "<n>) suite\n   title:" whose lines
// indent further each line, after JSON-looking and XML blocks are removed; the id joins the
// header's lines with ":".
func parseP5JS(log string) Statuses {
	log = p5jsWithoutXML(p5jsWithoutJSON(ansiEscape(log)))
	out := Statuses{}
	for _, header := range p5jsFailures(log) {
		parts := lines(header)
		last, valid := 0, true
		for _, part := range parts {
			indent := pyIndent(part)
			if indent <= last {
				valid = false
				break
			}
			last = indent
		}
		if !valid {
			continue
		}
		for i, part := range parts {
			parts[i] = pyStrip(part)
		}
		out[strings.Join(parts, ":")] = failed
	}
	return out
}

// p5jsWithoutJSON drops lines from one ending in "{" (or "[") through the next line that is
// exactly "}" (or "]"), and one-line {...} and [...] lines.
func p5jsWithoutJSON(log string) string {
	var kept []string
	inObject, inList := false, false
	for line := range lineSeq(log) {
		s := strings.TrimRightFunc(line, isPySpace)
		switch {
		case strings.HasSuffix(s, "{"):
			inObject = true
		case strings.HasSuffix(s, "["):
			inList = true
		case s == "}" && inObject:
			inObject = false
		case s == "]" && inList:
			inList = false
		case inObject || inList:
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
		case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		default:
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

var xmlOpenTag = pyRe(`<(\w+)>`)

// p5jsWithoutXML repeatedly removes the first "<tag>...</tag>" (the official pattern
// `<(\w+)>[\s\S]*?<\/\1>`: the leftmost opening tag that has a closing one, up to its nearest
// closing tag), leaving one "<tag>" per extra "<tag>" inside it.
func p5jsWithoutXML(log string) string {
	for {
		start, end, name := -1, -1, ""
		for from := 0; from < len(log); {
			loc := xmlOpenTag.FindStringSubmatchIndex(log[from:])
			if loc == nil {
				break
			}
			open := from + loc[0]
			tag := log[from+loc[2] : from+loc[3]]
			body := from + loc[1]
			if c := strings.Index(log[body:], "</"+tag+">"); c >= 0 {
				start, end, name = open, body+c+len("</"+tag+">"), tag
				break
			}
			from = open + 1
		}
		if start < 0 {
			return log
		}
		opening := max(strings.Count(log[start:end], "<"+name+">")-1, 0)
		log = log[:start] + strings.Repeat("<"+name+">", opening) + log[end:]
	}
}

var carbonWords = map[string]testresults.Status{"PASS": passed, "FAIL": failed}

// parseCarbon (also react-pdf's, prettier's, scratch-gui's and lighthouse's jest parser): Jest's
// per-file "PASS <file> (1.2 s)" / "FAIL <file>" lines; the id is the file, timing dropped.
func parseCarbon(log string) Statuses {
	out := Statuses{}
	for line := range lineSeq(log) {
		if word, name, ok := carbonLine(line); ok {
			out[name] = carbonWords[word]
		}
	}
	return out
}

// jestMark is the status of a verbose Jest mark; false for another character.
func jestMark(mark rune) (testresults.Status, bool) {
	switch mark {
	case '✓':
		return passed, true
	case '✕':
		return failed, true
	case '○':
		return skipped, true
	}
	return "", false
}

// parseJestOfficial is parse_log_jest: verbose Jest marks on the stripped line, the title as the
// id. 5 strips the title; 4.1 keeps the space before a " (12 ms)" that follows two spaces.
func parseJestOfficial(log string, stripTitle bool) Statuses {
	out := Statuses{}
	for line := range lineSeq(log) {
		// Each mark is three bytes starting 0xE2: a cheaper filter than looking for the marks.
		if strings.IndexByte(line, 0xe2) < 0 {
			continue
		}
		mark, name, ok := jestLineOf(pyStrip(line))
		if !ok {
			continue
		}
		if stripTitle {
			name = pyStrip(name)
		}
		out[name], _ = jestMark(mark)
	}
	return out
}

// parseJestJSON: "[PASSED] title" / "[FAILED] title" lines written by a jq transform of
// jest --json.
var parseJestJSON = readerParser(jestJSONLine, lineFilter{}, map[string]testresults.Status{"PASSED": passed, "FAILED": failed})

var vitestMarks = map[string]testresults.Status{"✓": passed, "×": failed, "↓": skipped}

// parseVitest: vitest --reporter=verbose marks. A trailing " <number>" (with or without "ms") is
// taken for a duration and dropped from the title, as officially.
var parseVitest = readerParser(vitestLine, vitestFilter, vitestMarks)

var karmaLine = pyRe(`^(\s*)?([✔✖])?\s(.*)$`)

// parseKarma: the lines after "Starting browser" up to "SUMMARY:"; a deeper indented line
// without a mark opens a suite, a shallower one closes the innermost suite (and is not a result);
// "✔"/"✖" lines are results named "suite > ... > title". When a shallower line finds no suite to
// close, the official parser raises: no results here.
func parseKarma(log string) Statuses {
	out := Statuses{}
	indent := -1
	var suite []string
	started := false
	for line := range lineSeq(log) {
		if strings.HasPrefix(line, "SUMMARY:") {
			return out
		}
		if strings.Contains(line, "Starting browser") {
			started = true
			continue
		}
		if !started {
			continue
		}
		m := karmaLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lead, mark, name := m[1], m[2], m[3]
		if lead != "" && mark == "" {
			n := utf8.RuneCountInString(lead)
			switch {
			case n > indent:
				indent = n
				suite = append(suite, name)
			case n < indent:
				indent = n
				if len(suite) == 0 {
					return nil
				}
				suite = suite[:len(suite)-1]
				continue
			}
		}
		switch mark {
		case "✔":
			out[strings.Join(append(suite[:len(suite):len(suite)], name), " > ")] = passed
		case "✖":
			out[strings.Join(append(suite[:len(suite):len(suite)], name), " > ")] = failed
		}
	}
	return out
}

// parseTap: TAP "ok 1 title" / "not ok 2 title" lines; the title is the id.
var parseTap = readerParser(tapLine, lineFilter{contains: "ok "}, map[string]testresults.Status{"ok": passed, "not ok": failed})

// parseImmutableJS picks Jest's verbose reader for PR 2006 and the jq-transformed JSON reader
// for PR 2005 (the number after the instance id's last "-"); any other instance raises
// officially: no results here.
func parseImmutableJS(log string, d Dialect, in Instance) Statuses {
	pr := in.ID[strings.LastIndex(in.ID, "-")+1:]
	switch pr {
	case "2006":
		return parseJestOfficial(log, d != Official41)
	case "2005":
		return parseJestJSON(log)
	}
	return nil
}

var highlightSummary = pyRe(`\n[ \t]*\d+ passing`)
var highlightTiming = pyRe(`\(\d+ms\)`)
var highlightFailure = pyRe(`^\d+\)`)

// parseHighlightJS: mocha's spec reporter up to the "<n> passing" summary; a line indented by two
// spaces (or more) sets the suite, so the id is "suite.title" (one level only).
func parseHighlightJS(log string) Statuses {
	if loc := highlightSummary.FindStringIndex(log); loc != nil {
		log = log[:loc[0]]
	}
	out := Statuses{}
	var suite []string
	name := func(title string) string {
		title = pyStrip(highlightTiming.ReplaceAllLiteralString(title, ""))
		return strings.Join(append(suite[:len(suite):len(suite)], title), ".")
	}
	for line := range lineSeq(log) {
		stripped := pyStrip(line)
		switch {
		case strings.HasPrefix(stripped, "✓"):
			_, title, _ := strings.Cut(line, "✓")
			out[name(title)] = passed
		case strings.HasPrefix(stripped, "✔"):
			_, title, _ := strings.Cut(line, "✔")
			out[name(title)] = passed
		case highlightFailure.MatchString(stripped):
			_, title, _ := strings.Cut(line, ")")
			out[name(title)] = failed
		case strings.HasPrefix(line, "  "):
			suite = []string{stripped}
		}
	}
	return out
}

var mochaLists = map[string]testresults.Status{"failures": failed, "passes": passed}

const prismTestCommand = "./node_modules/.bin/mocha tests/run.js --reporter json"

// parsePrismJS: after each prism test command, the text from the first "{" to the last "}" is
// mocha's JSON report; "fullTitle" of failures, then of passes, is the id. Text the official
// json.loads refuses raises there: no results here.
func parsePrismJS(log string) Statuses {
	out := Statuses{}
	runs := pySplitString(log, prismTestCommand)
	for _, run := range runs[1:] {
		inner := pyRsplitFirst(pySplitLast(run, "{"), "}")
		if failures, passes, ok := mochaReportTitles(inner); ok {
			for _, t := range failures {
				out[t] = failed
			}
			for _, t := range passes {
				out[t] = passed
			}
			continue
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal([]byte("{"+inner+"}"), &fields) != nil {
			return nil
		}
		for _, key := range []string{"failures", "passes"} {
			titles, ok := mochaTitles(fields[key])
			if !ok {
				return nil
			}
			for _, t := range titles {
				out[t] = mochaLists[key]
			}
		}
	}
	return out
}

// mochaTitles reads the "fullTitle" of each entry of a mocha JSON list; false where the official
// parser would raise (no list, an entry without a string fullTitle).
func mochaTitles(raw json.RawMessage) ([]string, bool) {
	var entries []map[string]json.RawMessage
	if raw == nil || json.Unmarshal(raw, &entries) != nil {
		return nil, false
	}
	titles := make([]string, 0, len(entries))
	for _, e := range entries {
		var t string
		if json.Unmarshal(e["fullTitle"], &t) != nil {
			return nil, false
		}
		titles = append(titles, t)
	}
	return titles, true
}

// parseESLint: only failures, mocha's "  <n>) title ... Error" blocks, whitespace collapsed.
func parseESLint(log string) Statuses {
	out := Statuses{}
	for _, m := range eslintFailures(log) {
		out[collapseSpace(log[m[4]:m[5]])] = failed
	}
	return out
}

var bpmnFailures = []*literalRe{
	newLiteralRe(pyRe(`2KPhantomJS\s[\d\.]+\s\(Linux\s[\d\.]+\)\s(.*)FAILED\n`)).withMatcher(matchPhantomLinuxVersion),
	newLiteralRe(pyRe(`2KPhantomJS\s[\d\.]+\s\(Linux\sx86\_64\)\s(.*)FAILED\n`)).withMatcher(matchPhantomLinuxX86),
	newLiteralRe(pyRe(`Chrome\sHeadless\s(.*)\s\(Linux\sx86\_64\)\s(.*)FAILED\n`)).withMatcher(matchChromeHeadless),
	newLiteralRe(pyRe(`HeadlessChrome\s[\d\.]+\s\(Linux\s[\d\.]+\)\s(.*)FAILED\n`)).withMatcher(matchHeadlessChrome),
}

// parseBpmnJS: only failures, Karma's "<browser> (<os>) <title> FAILED" lines of PhantomJS or
// headless Chrome; the title is kept as written.
func parseBpmnJS(log string) Statuses {
	out := Statuses{}
	for _, re := range bpmnFailures {
		for m := range re.each(log) {
			out[log[m[len(m)-2]:m[len(m)-1]]] = failed
		}
	}
	return out
}

const pyNonSpace = "[^" + pyWhitespace + "]"

// openlayersFailures are the official patterns in order, as submatch indices: the Karma lines,
// mocha's numbered failures (`(?m)^\s{2}\d+\)((?s:.)*?)Error:`) and rendering mismatches.
var openlayersFailures = []func(string) [][]int{
	openlayersLiteralFailures[0].findAllIndex,
	openlayersLiteralFailures[1].findAllIndex,
	openlayersMochaFailures,
	openlayersLiteralFailures[2].findAllIndex,
}

var openlayersLiteralFailures = []*literalRe{
	newLiteralRe(pyRe(`(?m)Chrome\sHeadless\s[\d\.]+\s\(Linux\s` + pyNonSpace + `+\)\s(.*)\sFAILED\n`)).withMatcher(matchOpenLayersChromeHeadless),
	newLiteralRe(pyRe(`(?m)Chrome\s[\d\.]+\s\(Linux\s` + pyNonSpace + `+\)\s(.*)FAILED\n`)).withMatcher(matchOpenLayersChrome),
	newLiteralRe(pyRe(`(?m)^case\s(.*):\smismatch`)).withMatcher(matchOpenLayersCase),
}

// parseOpenLayers: only failures, from Karma's Chrome lines, mocha's numbered failures and
// rendering "case <name>: mismatch" lines; whitespace collapsed.
func parseOpenLayers(log string) Statuses {
	out := Statuses{}
	for _, findAll := range openlayersFailures {
		for _, m := range findAll(log) {
			out[collapseSpace(log[m[2]:m[3]])] = failed
		}
	}
	return out
}

// parseEmotion: Jest's per-file "FAIL <file>" and "PASS <file>" lines, passes written last (a
// file that both failed and passed is PASSED).
func parseEmotion(log string) Statuses {
	out := Statuses{}
	for name := range jestFileResults(log, "FAIL") {
		out[pyStrip(name)] = failed
	}
	for name := range jestFileResults(log, "PASS") {
		out[pyStrip(name)] = passed
	}
	return out
}

// parseGrommet is parseEmotion with a trailing " (1.2 s)" timing dropped.
func parseGrommet(log string) Statuses {
	out := Statuses{}
	for name := range jestFileResults(log, "FAIL") {
		out[withoutGrommetTime(pyStrip(name))] = failed
	}
	for name := range jestFileResults(log, "PASS") {
		out[withoutGrommetTime(pyStrip(name))] = passed
	}
	return out
}

// lowerContains is strings.Contains(strings.ToLower(s), word) for a lower-case ASCII word, without
// the copy when s is ASCII.
func lowerContains(s, word string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), word)
		}
		if c|0x20 == word[0] && hasASCIIPrefixFold(s[i:], word) {
			return true // lower-casing what follows cannot undo an ASCII match
		}
	}
	return false
}

// hasASCIIPrefixFold reports whether s starts with the lower-case ASCII letters of word in
// either case (c|0x20 is a lower-case letter only for that letter in either case).
func hasASCIIPrefixFold(s, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if s[i]|0x20 != word[i] {
			return false
		}
	}
	return true
}

var (
	nextSuites = newLiteralRe(pyRe(`Running\:(.*)\)\n{3}\s{2}(.*)\n`)).withMatcher(matchNextSuite)
)

// parseNext is alibaba-fusion/next's parser: version 1.27 reads mocha's spec output per
// "Running: <suite>)" block, ids "<suite>: <title>"; other versions read Karma's output after
// each " xvfb-run " (from the last "Starting browser Chrome"), ids "suite - ... - title".
func parseNext(log string, _ Dialect, in Instance) Statuses {
	if in.Version == "1.27" {
		return parseNextV2(log)
	}
	out := Statuses{}
	var suite suiteStack
	var id []byte
	log = ansiEscape(log)
	log = removeMatches(log, nextAssertions(log))
	runs := pySplitString(log, " xvfb-run ")
	for _, run := range runs[1:] {
		browser := strings.Split(run, "Starting browser Chrome")
		for line := range lineSeq(browser[len(browser)-1]) {
			if strings.HasPrefix(line, "TOTAL") {
				break
			}
			stripped := pyStrip(line)
			if strings.HasPrefix(stripped, "ERROR") || strings.HasPrefix(stripped, "LOG") || strings.HasPrefix(stripped, "WARN") ||
				strings.HasPrefix(stripped, "Check") || strings.HasPrefix(stripped, "in") {
				continue
			}
			// `.*?✗\s*(.*)`, then `.*?✓\s*(.*)`: the text after the first mark, less whitespace.
			if _, title, found := strings.Cut(line, "✗"); found {
				id = suite.appendJoin(id[:0], pyLstrip(title), " - ")
				setStatus(out, id, failed)
			} else if _, title, found := strings.Cut(line, "✓"); found {
				id = suite.appendJoin(id[:0], pyLstrip(title), " - ")
				setStatus(out, id, passed)
			} else {
				suite.adjust(line)
			}
		}
	}
	return out
}

// nextAssertions is the matches of `AssertionError:\s+#([\s\S]*?)\n\n` in s: from each
// "AssertionError:", whitespace, "#", and the text up to the first blank line.
func nextAssertions(s string) [][]int {
	var out [][]int
	for from := 0; ; {
		i := strings.Index(s[from:], "AssertionError:")
		if i < 0 {
			return out
		}
		at := from + i
		from = at + len("AssertionError:")
		body, ok := cutPySpaces(s[from:])
		if !ok || !strings.HasPrefix(body, "#") {
			continue
		}
		hash := len(s) - len(body)
		blank := strings.Index(s[hash+1:], "\n\n")
		if blank < 0 {
			return out // no later match can end either
		}
		from = hash + 1 + blank + 2
		out = append(out, []int{at, from, hash + 1, hash + 1 + blank})
	}
}

// removeMatches is s without the text of each match (re.sub(pattern, "", s)).
func removeMatches(s string, matches [][]int) string {
	if len(matches) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range matches {
		b.WriteString(s[last:m[0]])
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

func parseNextV2(log string) Statuses {
	out := Statuses{}
	matches := nextSuites.findAllIndex(log)
	pieces := pySplitAt(log, matches)
	var id []byte
	for i, m := range matches {
		suite, block := log[m[4]:m[5]], pieces[(i+1)*3]
		for _, f := range lineStartMatches(block, matchNextFailure) {
			id = append(append(append(id[:0], suite...), ": "...), pyStrip(block[f[2]:f[3]])...)
			setStatus(out, id, failed)
		}
		for _, p := range lineStartMatches(block, matchNextPass) {
			id = append(append(append(id[:0], suite...), ": "...), pyStrip(block[p[2]:p[3]])...)
			setStatus(out, id, passed)
		}
	}
	return out
}

var mochaFullTitle = newLiteralRe(pyRe(`(?m)\"fullTitle\"\:\s\"(.*)\",\n`)).withMatcher(matchMochaFullTitle)

// pySplitAfterLast is Python's s.split(sep)[-1]: the text after the last sep (s without one).
func pySplitAfterLast(s, sep string) string {
	if i := lastIndex(s, sep); i >= 0 {
		return s[i+len(sep):]
	}
	return s
}

// parseCypress: mocha JSON reports, one per "../.." piece but the last; the "fullTitle" lines of
// the passes, then of the failures.
func parseCypress(log string) Statuses {
	out := Statuses{}
	pieces := pySplitString(log, "../..")
	for _, piece := range pieces[:len(pieces)-1] {
		passes := pyRsplitFirst(pySplitAfterLast(piece, `  "passes": [`), "  }")
		for m := range mochaFullTitle.each(passes) {
			out[passes[m[2]:m[3]]] = passed
		}
		failures := pyRsplitFirst(pySplitAfterLast(piece, `  "failures": [`), "  ],")
		for m := range mochaFullTitle.each(failures) {
			out[failures[m[2]:m[3]]] = failed
		}
	}
	return out
}

// lighthouseRunMatches is the matches of `running\s\d+\stest\sfiles` in log, found from each
// "running".
func lighthouseRunMatches(log string) [][]int {
	var out [][]int
	for from := 0; ; {
		i := strings.Index(log[from:], "running")
		if i < 0 {
			return out
		}
		at := from + i
		from = at + len("running")
		p := pySpaces(log, from, 1)
		if p < 0 {
			continue
		}
		if p = pyDigitsEnd(log, p); p < 0 {
			continue
		}
		if p = pySpaces(log, p, 1); p < 0 || !strings.HasPrefix(log[p:], "test") {
			continue
		}
		if p = pySpaces(log, p+len("test"), 1); p < 0 || !strings.HasPrefix(log[p:], "files") {
			continue
		}
		from = p + len("files")
		out = append(out, []int{at, from})
	}
}

// lighthousePassing is the first match of `\d+\spassing` in s (nil if none): the digits before
// the whitespace before the first "passing" that has both.
func lighthousePassing(s string) []int {
	for from := 0; ; {
		i := strings.Index(s[from:], "passing")
		if i < 0 {
			return nil
		}
		at := from + i
		from = at + 1
		r, size := utf8.DecodeLastRuneInString(s[:at])
		if !isPySpace(r) {
			continue
		}
		digits := strings.TrimRightFunc(s[:at-size], unicode.IsDigit)
		if len(digits) < at-size {
			return []int{len(digits), at + len("passing")}
		}
	}
}

// parseLighthouse picks by the instance's version: 9.5, 10.0 and 10.2 read mocha's spec output,
// other versions from 3 on Jest's per-file lines (parseCarbon), older ones mocha's JSON report.
// A version that is not a number raises officially: no results here.
func parseLighthouse(log string, _ Dialect, in Instance) Statuses {
	switch in.Version {
	case "9.5", "10.0", "10.2":
		return parseLighthouseMocha(log)
	}
	v, err := strconv.ParseFloat(pyStrip(in.Version), 64)
	if err != nil {
		return nil
	}
	if v >= 3 {
		return parseCarbon(log)
	}
	out := Statuses{}
	runs := pySplitString(log, "./node_modules/.bin/mocha --reporter json")
	for _, run := range runs[1:] {
		passes := pyRsplitFirst(pySplitAfterLast(run, `"passes": [`), "]")
		for m := range mochaFullTitle.each(passes) {
			out[passes[m[2]:m[3]]] = passed
		}
		failures := pyRsplitFirst(pySplitAfterLast(run, `"failures": [`), "],")
		for m := range mochaFullTitle.each(failures) {
			out[failures[m[2]:m[3]]] = failed
		}
	}
	return out
}

func parseLighthouseMocha(log string) Statuses {
	out := Statuses{}
	var id []byte
	runs := pySplitAt(log, lighthouseRunMatches(log))
	for _, run := range runs[1:] {
		if m := lighthousePassing(run); m != nil {
			run = run[:m[0]]
		}
		run = pyStrip(run)
		var suite suiteStack
		for line := range lineSeq(run) {
			word, title, ok := lighthouseMochaLine(pyStrip(line))
			if !ok {
				suite.adjust(line)
				continue
			}
			id = suite.appendJoin(id[:0], title, " - ")
			if word == "✔" {
				setStatus(out, id, passed)
			} else {
				setStatus(out, id, failed)
			}
		}
	}
	return out
}

var (
	quartoCase     = pyRe(`\[(smoke|unit)\]`)
	quartoTmpFiles = []*regexp.Regexp{pyRe(`/tmp/(\w+)\.qmd`), pyRe(`/tmp/(\w+)/`)}
)

// parseQuartoCLI: Deno test lines "[smoke] name ... ok" (green) or "... FAILED" (red) until
// "ERRORS" or "failures:"; temporary paths are renumbered in order of appearance; a test line
// with no status is FAILED unless it is a summary ("passed ... failed ... steps"), an INFO line
// or starts with "test result:".
func parseQuartoCLI(log string) Statuses {
	out := Statuses{}
	tmpNumbers := map[string]int{}
	for line := range lineSeq(log) {
		if strings.Contains(line, "ERRORS") || strings.Contains(line, "failures:") {
			break
		}
		if !quartoCase.MatchString(line) {
			continue
		}
		for _, re := range quartoTmpFiles {
			m := re.FindString(line)
			if m == "" && !re.MatchString(line) {
				continue
			}
			n, seen := tmpNumbers[m]
			if !seen {
				n = len(tmpNumbers)
				tmpNumbers[m] = n
			}
			line = re.ReplaceAllLiteralString(line, "/tmp/"+strconv.Itoa(n))
		}
		name := pyStrip(strings.Split(line, "...")[0])
		rejected := strings.HasPrefix(line, "test result:") ||
			(strings.Contains(line, "passed") && strings.Contains(line, "failed") && strings.Contains(line, "steps")) ||
			strings.Contains(line, "34mINFO")
		if rejected {
			continue
		}
		switch {
		case strings.Contains(line, "32mok"):
			out[name] = passed
		case strings.Contains(line, "31mFAILED"):
			out[name] = failed
		default:
			if _, ok := out[name]; !ok {
				out[name] = failed
			}
		}
	}
	return out
}

// parsePlotlyJS: "  - suite :" lines and "    * test : ok" lines; a line indented no deeper
// than the last suite empties the suite path. A status without "ok", or with "failed", is
// FAILED.
func parsePlotlyJS(log string) Statuses {
	out := Statuses{}
	var suite []string
	var id []byte // the suite names, each followed by ".", then the test's name
	suiteIndent := 0
	for line := range lineSeq(log) {
		// `(\s+)-\s+(.*?)\s+:` and `(\s+)\*\s+(.*?)\s+:\s*(.*)`: an indented "-" or "*".
		rest := pyLstrip(line)
		if len(rest) == len(line) || rest == "" || rest[0] != '-' && rest[0] != '*' {
			continue
		}
		indent, name, after, ok := plotlyLine(line, rest[0])
		if !ok {
			continue
		}
		if utf8.RuneCountInString(indent) <= suiteIndent {
			suite = suite[:0]
		}
		if rest[0] == '-' {
			suite = append(suite, name)
			suiteIndent = utf8.RuneCountInString(indent)
			continue
		}
		id = id[:0]
		for _, s := range suite {
			id = append(append(id, s...), '.')
		}
		id = append(id, name...)
		if !lowerContains(after, "ok") || lowerContains(after, "failed") {
			setStatus(out, id, failed)
		} else {
			setStatus(out, id, passed)
		}
	}
	return out
}
