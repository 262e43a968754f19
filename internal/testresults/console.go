package testresults

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ConsoleOptions choose how a parser of plain result lines (go test -v, Jest) reads a log. The
// zero value is SWE-bench's parser (4.1 and 5 agree).
type ConsoleOptions struct {
	// StripANSI removes a trailing CR and CSI escape sequences before reading a line.
	StripANSI bool
}

// cargoResultOfficial reads a "test a::b ... ok" line (already trimmed) as SWE-bench's pattern
// `^test\s+(\S+)\s+\.\.\.\s+(\w+)$` does.
func cargoResultOfficial(line string) (name, outcome string, ok bool) {
	rest, found := strings.CutPrefix(line, "test")
	if !found || rest == "" || !isSpaceByte(rest[0]) {
		return "", "", false
	}
	name, rest = nextField(rest)
	if rest == "" || !isSpaceByte(rest[0]) {
		return "", "", false
	}
	rest, found = strings.CutPrefix(strings.TrimLeftFunc(rest, unicode.IsSpace), "...")
	if !found || rest == "" || !isSpaceByte(rest[0]) {
		return "", "", false
	}
	outcome = strings.TrimLeftFunc(rest, unicode.IsSpace)
	if outcome == "" || strings.ContainsFunc(outcome, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		return "", "", false
	}
	return name, outcome, true
}

// CargoOptions choose how ParseCargo reads a log. The zero value is SWE-bench's parse_log_cargo
// (4.1 and 5 agree): only "ok" and "FAILED", single-token names.
type CargoOptions struct {
	// Lenient cuts a line at " ... " instead of SWE-bench's pattern and so also reads colour
	// codes after the leading "test", "ignored" (SKIPPED), names followed by " - should panic"
	// and outcomes followed by more words ("ignored, slow").
	Lenient bool
}

// ParseCargo reads cargo test / libtest result lines, "test a::b ... ok". A test reported twice
// keeps its last status.
func ParseCargo(log string, o CargoOptions) Results {
	out := Results{}
	eachLine(log, func(line string) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "test") {
			return
		}
		if !o.Lenient {
			if name, outcome, ok := cargoResultOfficial(line); ok {
				switch outcome {
				case "ok":
					out[name] = Passed
				case "FAILED":
					out[name] = Failed
				}
			}
			return
		}
		name, outcome, ok := strings.Cut(strings.TrimPrefix(withoutANSI(line), "test "), " ... ")
		if !ok || name == "" || strings.HasPrefix(line, "test result:") {
			return
		}
		name = strings.TrimSuffix(name, " - should panic")
		word, _ := nextField(outcome)
		switch strings.TrimSuffix(word, ",") {
		case "ok":
			out[name] = Passed
		case "FAILED":
			out[name] = Failed
		case "ignored":
			out[name] = Skipped
		}
	})
	return out
}

var jestStatus = map[rune]Status{
	'✓': Passed, '✕': Failed, '○': Skipped,
}

// jestResult reads a verbose Jest line (already trimmed) as SWE-bench's pattern
// `^\s*(✓|✕|○)\s(.+?)(?:\s\((\d+\s*m?s)\))?$` does: a mark, one space, the title, and a
// " (12 ms)" duration dropped when there is one.
func jestResult(line string) (string, Status, bool) {
	mark, size := utf8.DecodeRuneInString(line)
	status, ok := jestStatus[mark]
	if !ok || len(line) <= size {
		return "", "", false
	}
	space, spaceSize := utf8.DecodeRuneInString(line[size:])
	if !unicode.IsSpace(space) {
		return "", "", false
	}
	title := line[size+spaceSize:]
	if title == "" {
		return "", "", false
	}
	if open := strings.LastIndex(title, "("); open > 1 && isSpaceByte(title[open-1]) && isJestDuration(title[open:]) {
		title = title[:open-1]
	}
	return title, status, true
}

// isJestDuration reports whether s is "(<digits><spaces>[m]s)".
func isJestDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	s, ok = strings.CutSuffix(s, "s)")
	if !ok {
		return false
	}
	s = strings.TrimSuffix(s, "m")
	digits := strings.TrimRightFunc(s, unicode.IsSpace)
	return digits != "" && strings.Trim(digits, "0123456789") == ""
}

// ParseJest reads Jest --verbose output; the titles are the ids. A test reported twice keeps
// its last status.
func ParseJest(log string, o ConsoleOptions) Results {
	return markedLines(log, o.StripANSI, func(line string) bool { return strings.ContainsAny(line, "✓✕○") }, jestResult)
}
