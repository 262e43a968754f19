package logparse

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// Hand-written readers of the most common official line patterns, on a line already stripped
// of Python's whitespace: each gives the groups the official regexp gives (the goldens check
// it), several times faster than running the pattern through RE2.

var goTestWords = map[string]testresults.Status{"PASS": passed, "FAIL": failed, "SKIP": skipped}

// goTestLine is `^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$`: the name runs to the last " (" that
// leaves a non-empty duration before the final ")".
func goTestLine(line string) (string, testresults.Status, bool) {
	if len(line) < 14 || !strings.HasPrefix(line, "--- ") || line[8:10] != ": " || line[len(line)-1] != ')' {
		return "", "", false
	}
	status, ok := goTestWords[line[4:8]]
	if !ok {
		return "", "", false
	}
	open := strings.LastIndex(line[:len(line)-2], " (")
	if open < 11 {
		return "", "", false
	}
	return line[10:open], status, true
}

func parseGoTestOfficial(log string) Statuses {
	out := Statuses{}
	for line := range lineSeq(log) {
		if !strings.Contains(line, "--- ") {
			continue
		}
		if name, status, ok := goTestLine(pyStrip(line)); ok {
			out[name] = status
		}
	}
	return out
}

// isPyWord is Python's \w on str: a letter, a number or "_".
func isPyWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// cutPySpaces removes one or more leading Python whitespace characters; false if there is none.
func cutPySpaces(s string) (string, bool) {
	rest := pyLstrip(s)
	return rest, len(rest) < len(s)
}

// cargoLine is `^test\s+(\S+)\s+\.\.\.\s+(\w+)$`.
func cargoLine(line string) (name, outcome string, ok bool) {
	rest, found := strings.CutPrefix(line, "test")
	if !found {
		return "", "", false
	}
	if rest, ok = cutPySpaces(rest); !ok {
		return "", "", false
	}
	end := indexPySpace(rest)
	if end <= 0 {
		return "", "", false
	}
	name = rest[:end]
	rest, _ = cutPySpaces(rest[end:])
	if rest, found = strings.CutPrefix(rest, "..."); !found {
		return "", "", false
	}
	if outcome, ok = cutPySpaces(rest); !ok || !isPyWordString(outcome) {
		return "", "", false
	}
	return name, outcome, true
}

func parseCargoOfficial(log string) Statuses {
	out := Statuses{}
	for line := range lineSeq(log) {
		// The stripped line starts with "test".
		if !strings.HasPrefix(pyLstrip(line), "test") {
			continue
		}
		if name, outcome, ok := cargoLine(pyStrip(line)); ok {
			switch outcome {
			case "ok":
				out[name] = passed
			case "FAILED":
				out[name] = failed
			}
		}
	}
	return out
}

// jestLineOf is `^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$`: a mark, one whitespace character,
// and the title, less a final " (12 ms)" when the title keeps at least one character.
func jestLineOf(line string) (mark rune, title string, ok bool) {
	mark, size := utf8.DecodeRuneInString(line)
	if _, known := jestMark(mark); !known {
		return 0, "", false
	}
	space, spaceSize := utf8.DecodeRuneInString(line[size:])
	if !isPySpace(space) {
		return 0, "", false
	}
	title = line[size+spaceSize:]
	if title == "" {
		return 0, "", false
	}
	if open := strings.LastIndex(title, "("); open > 0 && isJestDuration(title[open:]) {
		sp, spSize := utf8.DecodeLastRuneInString(title[:open])
		if isPySpace(sp) && open-spSize >= 1 {
			title = title[:open-spSize]
		}
	}
	return mark, title, true
}

// isJestDuration is `\(\d+\s*m?s\)` on the whole of s.
func isJestDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	if s, ok = strings.CutSuffix(s, "s)"); !ok {
		return false
	}
	s = strings.TrimRightFunc(strings.TrimSuffix(s, "m"), isPySpace)
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}
