package logparse

import (
	"strings"
	"unicode"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// pytestVariant is what distinguishes SWE-bench's pytest-family parsers from one another; they
// share one line reader.
type pytestVariant struct {
	// stripControl removes "[NNm" colour codes and C0 control characters first (parse_log_pytest_v2).
	stripControl bool
	// endsWithStatus also reads old-style "<id> STATUS" lines under 4.1 (parse_log_pytest_v2).
	endsWithStatus bool
	// basenameOptions collapses a "[/abs/path/x]" parameter to "[/x]" (parse_log_pytest_options).
	basenameOptions bool
	// mouseButtons rewrites MouseButton.LEFT/RIGHT to 1/3 (parse_log_matplotlib).
	mouseButtons bool
	// alwaysLegacy keeps the 4.1 line reading under 5 too (matplotlib's parser did not change).
	alwaysLegacy bool
}

func pytestParser(v pytestVariant) func(string, Dialect) Statuses {
	return func(log string, d Dialect) Statuses {
		read := v.lineReader(d)
		out := Statuses{}
		eachLine(log, func(line string) {
			if v.mouseButtons && strings.Contains(line, "MouseButton.") {
				line = strings.ReplaceAll(line, "MouseButton.LEFT", "1")
				line = strings.ReplaceAll(line, "MouseButton.RIGHT", "3")
			}
			if v.stripControl && d != Full {
				line = stripColourAndControl(line)
			}
			id, status, ok := read(line)
			if !ok {
				return
			}
			if v.basenameOptions {
				id = basenameOption(id)
			}
			out[id] = status
		})
		return out
	}
}

func (v pytestVariant) lineReader(d Dialect) func(string) (string, testresults.Status, bool) {
	switch {
	case d == Full:
		return readPytestLineFull
	case d == Official41 || v.alwaysLegacy:
		return func(line string) (string, testresults.Status, bool) {
			return readPytestLine41(line, v.endsWithStatus)
		}
	default:
		return readPytestLine5
	}
}

// readPytestLine41 reads a line the way 4.1 did: a line starting with a status word gives
// (second field, first field); FAILED lines lose " - " first so the message is not the id. The
// "status" is the first field as written, which may be no status at all ("PASSEDx"); grading
// then treats it as neither pass nor fail, as 4.1 did.
func readPytestLine41(line string, endsWithStatus bool) (string, testresults.Status, bool) {
	for _, w := range statusWords {
		if strings.HasPrefix(line, w) {
			if w == "FAILED" {
				line = strings.ReplaceAll(line, " - ", " ")
			}
			first, rest := nextField(line)
			second, _ := nextField(rest)
			if second == "" {
				return "", "", false
			}
			return second, testresults.Status(first), true
		}
	}
	if endsWithStatus {
		for _, w := range statusWords {
			if strings.HasSuffix(line, w) {
				first, rest := nextField(line)
				second, _ := nextField(rest)
				if second == "" {
					return "", "", false
				}
				return first, testresults.Status(second), true
			}
		}
	}
	return "", "", false
}

// readPytestLine5 reads a line the way 5 does: "STATUS <id>[ - message]" (skip counts
// "SKIPPED [3] ..." ignored), else "<id> STATUS" followed by whitespace or the end of the line;
// ids are whole, "[a b]" parameters included.
func readPytestLine5(line string) (string, testresults.Status, bool) {
	return readPytestLineWhole(line, false)
}

// readPytestLineFull is readPytestLine5 plus what 5 does not do: ANSI colour removed, section
// rules and progress counters not taken for ids, a not-run xfail reported as SKIPPED.
func readPytestLineFull(line string) (string, testresults.Status, bool) {
	return readPytestLineWhole(stripANSI(line), true)
}

func readPytestLineWhole(line string, full bool) (string, testresults.Status, bool) {
	accept := func(id string) bool {
		if full {
			return plausibleTestID(id)
		}
		return id != ""
	}
	status := func(word, rest string) testresults.Status {
		if full {
			return notRunAsSkipped(word, rest)
		}
		return testresults.Status(word)
	}
	if word, rest := leadingStatus(line); word != "" && len(rest) > 0 && isSpaceByte(rest[0]) {
		if id := balancedToken(strings.TrimLeftFunc(rest, unicode.IsSpace)); id != "" {
			if (word == "SKIPPED" && isSkipCount(id)) || !accept(id) {
				return "", "", false
			}
			return id, status(word, rest), true
		}
	}
	if line == "" || isSpaceByte(line[0]) {
		return "", "", false
	}
	id := balancedToken(line)
	rest := line[len(id):]
	if len(rest) == 0 || !accept(id) {
		return "", "", false
	}
	word, after := leadingStatus(strings.TrimLeftFunc(rest, unicode.IsSpace))
	if word == "" || (len(after) > 0 && !isSpaceByte(after[0])) {
		return "", "", false
	}
	return id, status(word, after), true
}

// plausibleTestID rejects what the official parsers take for ids but are not: skip counts and
// progress ("[1]", "[100%]") and section rules ("_____ ERROR at setup of x _____").
func plausibleTestID(id string) bool {
	return id != "" && id[0] != '[' && strings.Trim(id, "_=-") != ""
}

// notRunAsSkipped reports xfail(run=False) tests, which pytest marks "[NOTRUN]", as SKIPPED:
// such a test never ran, so it cannot count as passing.
func notRunAsSkipped(word, rest string) testresults.Status {
	if word == "XFAIL" && strings.Contains(rest, "[NOTRUN]") {
		return testresults.Skipped
	}
	return testresults.Status(word)
}

// leadingStatus returns the status word s starts with, and what follows it.
func leadingStatus(s string) (string, string) {
	for _, w := range statusWords {
		if strings.HasPrefix(s, w) {
			return w, s[len(w):]
		}
	}
	return "", s
}

// balancedToken returns the leading token of s, where whitespace inside [...] does not end it.
// An unbalanced token (a truncated id) falls back to the first whitespace-separated field.
func balancedToken(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			depth++
		case c == ']':
			if depth > 0 {
				depth--
			}
		case isSpaceByte(c) && depth == 0:
			return s[:i]
		}
	}
	if depth > 0 {
		tok, _ := nextField(s)
		return tok
	}
	return s
}

// nextField returns the first whitespace-separated field of s and the text after it.
func nextField(s string) (string, string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	end := strings.IndexFunc(s, unicode.IsSpace)
	if end < 0 {
		return s, ""
	}
	return s[:end], s[end:]
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// isSkipCount reports whether id is pytest's "[N]" skip-count prefix, not a test.
func isSkipCount(id string) bool {
	if len(id) < 3 || id[0] != '[' {
		return false
	}
	i := 1
	for i < len(id) && id[i] >= '0' && id[i] <= '9' {
		i++
	}
	return i > 1 && i < len(id) && id[i] == ']'
}

// basenameOption collapses an absolute-path parameter to its last element, "t[/a/b/c.txt]" →
// "t[/c.txt]", as parse_log_pytest_options does ("//" and globs are left alone).
func basenameOption(id string) string {
	open := strings.IndexByte(id, '[')
	end := strings.LastIndexByte(id, ']')
	if open < 0 || end < open {
		return id
	}
	option := id[open+1 : end]
	if strings.HasPrefix(option, "/") && !strings.HasPrefix(option, "//") && !strings.Contains(option, "*") {
		option = "/" + option[strings.LastIndexByte(option, '/')+1:]
	}
	return id[:open] + "[" + option + "]"
}

// stripColourAndControl is parse_log_pytest_v2's clean-up: drop every "[digits m" and every
// byte from 1 to 31 (tabs included).
func stripColourAndControl(line string) string {
	if !strings.ContainsFunc(line, func(r rune) bool { return r < 32 || r == '[' }) {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '[' {
			j := i + 1
			for j < len(line) && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(line) && line[j] == 'm' {
				i = j
				continue
			}
		}
		if c >= 1 && c <= 31 {
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// stripANSI removes ESC [ ... letter sequences (colours, cursor moves) and a trailing CR.
func stripANSI(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if strings.IndexByte(line, 0x1b) < 0 {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); i++ {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] < '@' || line[j] > '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(line[i])
	}
	return b.String()
}
