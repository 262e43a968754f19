package logparse

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// The parsers of SWE-bench's c.py, go.py, java.py, php.py, ruby.py and rust.py, reproduced step
// by step (see javascript.go). Each reads the line stripped of Python's whitespace unless noted.

// lineFilter passes over lines that cannot match a reader, without stripping them.
type lineFilter struct {
	// contains: text every match holds ("": none).
	contains string
	// starts: the ASCII bytes a match can start with once the line is stripped ("": any).
	starts string
}

// skips reports that line cannot match: its first character after spaces and tabs is ASCII,
// not whitespace and not one of starts, or it lacks contains.
func (f lineFilter) skips(line string) bool {
	if f.starts != "" {
		i := 0
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i < len(line) {
			if c := line[i]; c < utf8.RuneSelf && !isASCIIPySpace(c) && strings.IndexByte(f.starts, c) < 0 {
				return true
			}
		}
	}
	return f.contains != "" && !strings.Contains(line, f.contains)
}

// readerParser applies read to every stripped line that filter does not skip and records
// words[word] for the name it reads; a word words lacks records nothing.
func readerParser(read func(string) (word, name string, ok bool), filter lineFilter, words map[string]testresults.Status) func(string) Statuses {
	table := wordTableOf(words)
	return func(log string) Statuses {
		out := Statuses{}
		for line := range lineSeq(log) {
			if filter.skips(line) {
				continue
			}
			if word, name, ok := read(pyStrip(line)); ok {
				if s, known := table.status(word); known {
					out[name] = s
				}
			}
		}
		return out
	}
}

// wordTable is a few words and their statuses, looked up by comparing: cheaper than hashing the
// word of every result line.
type wordTable []wordStatus

type wordStatus struct {
	word   string
	status testresults.Status
}

func wordTableOf(words map[string]testresults.Status) wordTable {
	t := make(wordTable, 0, len(words))
	for w, s := range words {
		t = append(t, wordStatus{w, s})
	}
	return t
}

func (t wordTable) status(word string) (testresults.Status, bool) {
	for _, w := range t {
		if w.word == word {
			return w.status, true
		}
	}
	return "", false
}

var rubyUnitOutcomes = map[string]testresults.Status{".": passed, "E": failed, "F": failed, "O": skipped}

// redisWord is the status of a Redis result word.
func redisWord(word string) testresults.Status {
	switch word {
	case "ok":
		return passed
	case "err":
		return failed
	}
	return skipped // "skip", "ignore"
}

// parseRedis: "[ok]: name (12 ms)" lines of Redis' and Valkey's Tcl suite; a failure's
// " in <file>" suffix is dropped.
func parseRedis(log string) Statuses {
	out := Statuses{}
	for line := range lineSeq(log) {
		if redisFilter.skips(line) {
			continue
		}
		word, name, ok := redisLine(pyStrip(line))
		if !ok {
			continue
		}
		if word == "err" {
			name = withoutRedisFile(name)
		}
		out[name] = redisWord(word)
	}
	return out
}

// The filters of the readers whose matches start with a known character (TestLineFiltersPassEveryMatch).
var (
	jqFilter          = lineFilter{starts: "PF"}
	micropythonFilter = lineFilter{starts: "pFs"}
	vitestFilter      = lineFilter{starts: "\xe2\xc3"} // the first bytes of ✓, × and ↓: no ASCII start
	redisFilter       = lineFilter{contains: "]:", starts: "["}
)

var (
	parseJQ                   = readerParser(jqLine, jqFilter, map[string]testresults.Status{"PASS": passed, "FAIL": failed})
	parseMicropython          = readerParser(micropythonLine, micropythonFilter, map[string]testresults.Status{"pass": passed, "FAIL": failed, "skip": skipped})
	parseGoogleTest           = readerParser(googletestLine, lineFilter{contains: "]"}, map[string]testresults.Status{"OK": passed, "FAILED": failed})
	parseAnt                  = readerParser(antLine, lineFilter{contains: "[junit]"}, map[string]testresults.Status{"PASS": passed, "FAIL": failed, "ERR": failed})
	parseMinitest             = readerParser(minitestLine, lineFilter{contains: "="}, map[string]testresults.Status{".": passed, "F": failed, "E": failed})
	parseCucumber             = readerParser(cucumberLine, lineFilter{contains: " ."}, map[string]testresults.Status{".": passed, "F": failed})
	parseRubyUnit             = readerParser(rubyUnitLine, lineFilter{contains: ":"}, rubyUnitOutcomes)
	parseRspecTransformedJSON = readerParser(rspecLine, lineFilter{contains: " - "}, map[string]testresults.Status{"passed": passed, "failed": failed})
	parseGradle41             = readerParser(gradleResultLine, lineFilter{}, gradleStatus)
)

// parseJekyll picks minitest for PRs 9141, 8047 and 8167 and cucumber for 8761 and 8771 (the
// instance id's second "-" field); any other instance raises officially: no results here.
func parseJekyll(log string, _ Dialect, in Instance) Statuses {
	fields := strings.Split(in.ID, "-")
	if len(fields) < 2 {
		return nil
	}
	switch fields[1] {
	case "9141", "8047", "8167":
		return parseMinitest(log)
	case "8761", "8771":
		return parseCucumber(log)
	}
	return nil
}

// phpunitMark is the status of a testdox mark.
func phpunitMark(mark string) testresults.Status {
	switch mark {
	case "✔":
		return passed
	case "✘":
		return failed
	}
	return skipped // "↩"
}

// parsePHPUnit reads phpunit --testdox output, lines not stripped: "Suite (Class)" headers and
// "✔ test" results, ids "Suite > test" ("None > test" before any header).
func parsePHPUnit(log string) Statuses {
	out := Statuses{}
	var id []byte
	suite := "None"
	for line := range lineSeq(log) {
		if name, ok := phpunitSuiteLine(line); ok {
			suite = name
			continue
		}
		if mark, name, ok := phpunitTestLine(line); ok {
			id = append(append(append(id[:0], suite...), " > "...), name...)
			setStatus(out, id, phpunitMark(mark))
		}
	}
	return out
}

// mavenStatus is the status of a BUILD result.
func mavenStatus(result string) testresults.Status {
	if result == "SUCCESS" {
		return passed
	}
	return failed
}

// mavenTestName is the official `^.*-Dtest=(\S+).*$` on a stripped line: the run of
// non-whitespace after the last "-Dtest=" that has one.
func mavenTestName(line string) (name string, ok bool) {
	for end := len(line); ; {
		i := lastIndex(line[:end], "-Dtest=")
		if i < 0 {
			return "", false
		}
		rest := line[i+len("-Dtest="):]
		if n := indexPySpace(rest); n != 0 && rest != "" {
			if n < 0 {
				n = len(rest)
			}
			return rest[:n], true
		}
		end = i // "-Dtest=" cannot overlap itself, so an earlier one ends before i
	}
}

// mavenResult is the official `^.*BUILD (SUCCESS|FAILURE)$` on a stripped line.
func mavenResult(line string) (string, bool) {
	if strings.HasSuffix(line, "BUILD SUCCESS") || strings.HasSuffix(line, "BUILD FAILURE") {
		return line[len(line)-len("SUCCESS"):], true
	}
	return "", false
}

// parseMaven reads one "mvn test -Dtest=<id>" per test (echoed by set -x) and its BUILD result.
// 4.1 gives each result to the last command seen (a result before any command goes to
// "---NO TEST NAME FOUND YET---"); 5 pairs commands and results first in, first out, keeping
// results that came before any pending command for the commands that follow.
func parseMaven(log string, d Dialect) Statuses {
	out := Statuses{}
	current := "---NO TEST NAME FOUND YET---"
	var pending, unmatched []string
	for line := range lineSeq(log) {
		// A result line ends with "SUCCESS" or "FAILURE" once stripped.
		end := pyRstrip(line)
		hasTest := strings.Contains(line, "-Dtest=")
		if !hasTest && !strings.HasSuffix(end, "SUCCESS") && !strings.HasSuffix(end, "FAILURE") {
			continue
		}
		line = pyLstrip(end)
		if hasTest {
			if name, ok := mavenTestName(line); ok {
				current = name
				pending = append(pending, name)
			}
		}
		result, ok := mavenResult(line)
		if !ok {
			continue
		}
		switch {
		case d == Official41:
			out[current] = mavenStatus(result)
		case len(pending) > 0:
			out[pending[0]] = mavenStatus(result)
			pending = pending[1:]
		default:
			unmatched = append(unmatched, result)
		}
	}
	for d != Official41 && len(pending) > 0 && len(unmatched) > 0 {
		out[pending[0]] = mavenStatus(unmatched[0])
		pending, unmatched = pending[1:], unmatched[1:]
	}
	return out
}

var gradleStatus = map[string]testresults.Status{"PASSED": passed, "FAILED": failed}

// parseGradle reads "Class > method PASSED" lines (the project's gradle config prints them);
// 5 also joins a "Class > method" line with a later "PASSED"/"FAILED" line when output came in
// between.
func parseGradle(log string, d Dialect) Statuses {
	if d == Official41 {
		return parseGradle41(log)
	}
	out := Statuses{}
	pending := ""
	for line := range lineSeq(log) {
		line = pyStrip(line)
		if word, name, ok := gradleResultLine(line); ok {
			out[name] = gradleStatus[word]
			pending = ""
			continue
		}
		if gradleTestNameLine(line) {
			pending = line
			continue
		}
		if pending != "" && (line == "PASSED" || line == "FAILED") {
			out[pending] = gradleStatus[line]
			pending = ""
		}
	}
	return out
}

// parseDoctest reads the XML report of a doctest binary run with -r=xml: from the first
// "<doctest" to the first "</doctest>" after it. Each SubCase (at any depth) of each TestCase
// (at any depth) is "<TestCase name> > <SubCase name>" ("None" for a missing name), PASSED when
// every Expression under it has success="true". XML the official parser refuses raises there: no
// results here.
func parseDoctest(log string) Statuses {
	start := strings.Index(log, "<doctest")
	if start < 0 {
		return Statuses{}
	}
	end := len("</doctest>") - 1 // Python's find() gives -1 when the end tag is missing
	if i := strings.Index(log[start:], "</doctest>"); i >= 0 {
		end = start + i + len("</doctest>")
	}
	if end < start {
		return nil
	}
	root, err := parseXMLTree(log[start:end])
	if err != nil {
		return nil
	}
	out := Statuses{}
	for _, tc := range root.descendants("TestCase") {
		for _, sc := range tc.descendants("SubCase") {
			allTrue := true
			for _, e := range sc.descendants("Expression") {
				if v, ok := e.attrs["success"]; !ok || v != "true" {
					allTrue = false
				}
			}
			name := tc.attr("name") + " > " + sc.attr("name")
			if allTrue {
				out[name] = passed
			} else {
				out[name] = failed
			}
		}
	}
	return out
}

type xmlNode struct {
	name     string
	attrs    map[string]string
	children []*xmlNode
}

// attr is Python's element.get(name) formatted by an f-string: "None" when absent.
func (n *xmlNode) attr(name string) string {
	if v, ok := n.attrs[name]; ok {
		return v
	}
	return "None"
}

// descendants is ElementTree's findall(".//name"): every element below n with that tag, in
// document order.
func (n *xmlNode) descendants(name string) []*xmlNode {
	var out []*xmlNode
	var walk func(*xmlNode)
	walk = func(m *xmlNode) {
		for _, c := range m.children {
			if c.name == name {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// parseXMLTree reads one well-formed element (nothing but whitespace around it), as
// ElementTree.fromstring accepts it.
func parseXMLTree(s string) (*xmlNode, error) {
	dec := xml.NewDecoder(strings.NewReader(s))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root != nil && len(stack) == 0 {
				return nil, errors.New("junk after document element")
			}
			n := &xmlNode{name: xmlName(t.Name), attrs: map[string]string{}}
			for _, a := range t.Attr {
				key := xmlName(a.Name)
				if _, dup := n.attrs[key]; dup {
					return nil, errors.New("duplicate attribute")
				}
				n.attrs[key] = a.Value
			}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 0 || stack[len(stack)-1].name != xmlName(t.Name) {
				return nil, errors.New("mismatched tag")
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 && strings.TrimSpace(string(t)) != "" {
				return nil, errors.New("text outside the document element")
			}
		}
	}
	if root == nil || len(stack) > 0 {
		return nil, errors.New("no element found")
	}
	return root, nil
}

func xmlName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}
