package testresults

import (
	"strings"
	"unicode/utf8"
)

// djangoPassSuffixes are the endings Django's runner gives a passing test.
var djangoPassSuffixes = []string{" ... ok", " ... OK", " ...  OK"}

// djangoSplitResults are the three known ways Django's own output interrupts a result line; the
// test passed when "ok" follows on the next line. SWE-bench runs each pattern as
// `(?m)^(.*?)\s\.\.\.\s<literal><rest>` over the whole log (djangoSplitPatterns in the test
// spell them out); a match starts at a line start and holds its literal within that line and the
// two after it (its `\s` may be newlines), so ParseDjango tries the pattern, by hand, only at
// those line starts: the same matches, found in time proportional to the lines near each
// literal. ending: the match may run on past any number of lines up to the first ending that
// ends a line; without one it ends on the line after the literal's. rest is the end of the
// pattern after the literal, when the literal ends at r in window (-1: no match); `$` is a
// newline or window's end.
var djangoSplitResults = []struct {
	literal string
	rest    func(window string, r int) int
	ending  string
}{
	// ((?s:.*?)) silenced\)\.\nok$: the first ending that ends a line.
	{"Testing against Django installed in ", func(w string, r int) int {
		for from := r; ; {
			i := strings.Index(w[from:], " silenced).\nok")
			if i < 0 {
				return -1
			}
			if e := from + i + len(" silenced).\nok"); e == len(w) || w[e] == '\n' {
				return e
			}
			from += i + 1
		}
	}, " silenced).\nok"},
	// (.*)/\nok$: the literal's line ends with "/" and the next line is "ok".
	{"Internal Server Error: /", func(w string, r int) int {
		l := strings.IndexByte(w[r:], '\n')
		if l < 1 || w[r+l-1] != '/' || !strings.HasPrefix(w[r+l:], "\nok") {
			return -1
		}
		if e := r + l + len("\nok"); e == len(w) || w[e] == '\n' {
			return e
		}
		return -1
	}, ""},
	// $
	{"System check identified no issues (0 silenced)\nok", func(w string, r int) int {
		if r == len(w) || w[r] == '\n' {
			return r
		}
		return -1
	}, ""},
}

// djangoSplitMatch is `\A(.*?)\s\.\.\.\s<literal><rest>` on window: the shortest first group, on
// the first line, that the rest follows; end is where the match ends.
func djangoSplitMatch(window, literal string, rest func(string, int) int) (id string, end int, ok bool) {
	lineEnd := strings.IndexByte(window, '\n')
	if lineEnd < 0 {
		lineEnd = len(window)
	}
	for g := 0; g <= lineEnd && g < len(window); {
		r, size := utf8.DecodeRuneInString(window[g:])
		if PyIsSpace(r) {
			after := window[g+size:]
			if dots, found := strings.CutPrefix(after, "..."); found {
				if r2, size2 := utf8.DecodeRuneInString(dots); size2 > 0 && PyIsSpace(r2) && strings.HasPrefix(dots[size2:], literal) {
					at := len(window) - len(dots) + size2 + len(literal)
					if e := rest(window, at); e >= 0 {
						return window[:g], e, true
					}
				}
			}
		}
		g += size
	}
	return "", 0, false
}

// DjangoOptions choose how ParseDjango reads a log. The zero value is SWE-bench's
// parse_log_django (4.1 and 5 agree), quirk for quirk.
type DjangoOptions struct {
	// WholeHeaderNames takes the whole name of a "FAIL: test_x (mod.Class)" header, as the
	// result line spells it; SWE-bench keeps its first word ("test_x").
	WholeHeaderNames bool
	// ExpectedFailures reads "... expected failure" as XFAIL and "... unexpected success" as
	// FAILED; SWE-bench ignores both.
	ExpectedFailures bool
}

// ParseDjango reads unittest's verbose lines as Django's runner prints them: "<test> ... ok",
// "... skipped 'why'", "... FAIL", "... ERROR", the "FAIL: <test>" / "ERROR: <test>" headers,
// and an "ok" on a later line for the last "<test> ... " seen. The id is the test as printed,
// "test_x (mod.Class)". A test reported twice keeps its last status.
func ParseDjango(log string, o DjangoOptions) Results {
	out := Results{}
	prevTest, havePrev := "", false
	eachLine(log, func(line string) {
		line = pyTrim(line)
		if strings.Contains(line, "--version is equivalent to version") {
			out["--version is equivalent to version"] = Passed
		}
		if i := strings.Index(line, " ... "); i >= 0 {
			prevTest, havePrev = line[:i], true
		}
		for _, suffix := range djangoPassSuffixes {
			if strings.HasSuffix(line, suffix) {
				// Django 1.x prints a migration line and the result of the next test on one line.
				if strings.HasPrefix(line, "Applying sites.0002_alter_domain_unique...test_no_migrations") {
					line = pyTrim(line[strings.Index(line, "...")+3:])
				}
				out[line[:strings.LastIndex(line, suffix)]] = Passed
				break
			}
		}
		if i := strings.Index(line, " ... skipped"); i >= 0 {
			out[line[:i]] = Skipped
		}
		if strings.HasSuffix(line, " ... FAIL") {
			out[line[:strings.Index(line, " ... FAIL")]] = Failed
		}
		if strings.HasPrefix(line, "FAIL:") {
			if id := djangoHeaderID(line, o.WholeHeaderNames); id != "" {
				out[id] = Failed
			}
		}
		if strings.HasSuffix(line, " ... ERROR") {
			out[line[:strings.Index(line, " ... ERROR")]] = Error
		}
		if strings.HasPrefix(line, "ERROR:") {
			if id := djangoHeaderID(line, o.WholeHeaderNames); id != "" {
				out[id] = Error
			}
		}
		if o.ExpectedFailures {
			if id, ok := strings.CutSuffix(line, " ... expected failure"); ok {
				out[id] = XFail
			}
			if id, ok := strings.CutSuffix(line, " ... unexpected success"); ok {
				out[id] = Failed
			}
		}
		if strings.HasPrefix(line, "ok") && havePrev {
			out[prevTest] = Passed
		}
	})
	for _, split := range djangoSplitResults {
		for _, id := range djangoSplitMatches(log, split.literal, split.rest, split.ending) {
			out[id] = Passed
		}
	}
	return out
}

// djangoSplitMatches is the first group of every match of `(?m)^<pattern>` in log, in order,
// as FindAllStringSubmatch gives them, for a pattern (anchored) that reads
// `(.*?)\s\.\.\.\s<literal>...`: each match holds an occurrence of literal that follows a
// whitespace character, "..." and another, and starts at the line start before the first of
// those. It tries each such line start once, in order, none inside an earlier match, on the text
// up to the first ending after the literal that ends a line (the pattern's lazy `(?s:.*?)`
// stops there), or, without an ending, up to the end of the fourth line.
func djangoSplitMatches(log, literal string, rest func(string, int) int, ending string) []string {
	var ids []string
	tried, end := -1, 0 // the last line start tried; where the last match ended
	for from := 0; ; {
		i := strings.Index(log[from:], literal)
		if i < 0 {
			return ids
		}
		q := from + i
		from = q + 1
		before, ok := cutPySpaceSuffix(log[:q])
		if !ok {
			continue
		}
		if before, ok = strings.CutSuffix(before, "..."); !ok {
			continue
		}
		if before, ok = cutPySpaceSuffix(before); !ok {
			continue
		}
		p := strings.LastIndexByte(before, '\n') + 1
		if p <= tried || p < end {
			continue
		}
		tried = p
		window := log[p:]
		if ending == "" {
			window = window[:lineEnds(window, 4)]
		} else if e := endingAt(log, q+len(literal), ending); e >= 0 {
			window = log[p:e]
		} else {
			continue
		}
		if id, e, ok := djangoSplitMatch(window, literal, rest); ok {
			ids = append(ids, id)
			end = p + e
		}
	}
}

// endingAt is where the first ending at or after from that ends a line (a newline or the end of
// log follows it) ends, or -1.
func endingAt(log string, from int, ending string) int {
	for {
		i := strings.Index(log[from:], ending)
		if i < 0 {
			return -1
		}
		e := from + i + len(ending)
		if e == len(log) || log[e] == '\n' {
			return e
		}
		from += i + 1
	}
}

// cutPySpaceSuffix removes one final Python whitespace character from s.
func cutPySpaceSuffix(s string) (string, bool) {
	r, size := utf8.DecodeLastRuneInString(s)
	if size == 0 || !PyIsSpace(r) {
		return s, false
	}
	return s[:len(s)-size], true
}

// lineEnds is the length of s's first n lines, the newline ending the last of them excluded.
func lineEnds(s string, n int) int {
	at := 0
	for ; n > 0; n-- {
		i := strings.IndexByte(s[at:], '\n')
		if i < 0 {
			return len(s)
		}
		if n == 1 {
			return at + i
		}
		at += i + 1
	}
	return at
}

// djangoHeaderID is the test named by a "FAIL: test_x (mod.Class)" header (WholeHeaderNames).
func djangoHeaderID(line string, wholeName bool) string {
	_, rest := pyNextField(line)
	if wholeName {
		return pyTrim(rest)
	}
	id, _ := pyNextField(rest)
	return id
}
