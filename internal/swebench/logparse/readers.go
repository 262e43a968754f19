package logparse

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hand-written readers of more official line patterns (see fastlines.go). Each comment gives the
// pattern, in Python's syntax, that the reader reproduces; TestReadersEqualTheOfficialPatterns
// compares each with that pattern on every line of the goldens and on random lines. The readers
// whose comment says "stripped" are only given lines stripped of Python's whitespace.

// cutPySpace removes one leading Python whitespace character (`\s`).
func cutPySpace(s string) (string, bool) {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 || !isPySpace(r) {
		return s, false
	}
	return s[size:], true
}

// cutLastPySpace removes one final Python whitespace character.
func cutLastPySpace(s string) (string, bool) {
	r, size := utf8.DecodeLastRuneInString(s)
	if size == 0 || !isPySpace(r) {
		return s, false
	}
	return s[:len(s)-size], true
}

// cutWord removes the first of words that s starts with.
func cutWord(s string, words ...string) (word, rest string, ok bool) {
	for _, w := range words {
		if strings.HasPrefix(s, w) {
			return w, s[len(w):], true
		}
	}
	return "", s, false
}

// cutDigits removes a leading run of one or more Unicode decimal digits (`\d+`).
func cutDigits(s string) (string, bool) {
	i := 0
	for i < len(s) && s[i]-'0' <= 9 {
		i++
	}
	if i < len(s) && s[i] >= utf8.RuneSelf {
		rest := strings.TrimLeftFunc(s[i:], unicode.IsDigit)
		return rest, len(rest) < len(s)
	}
	return s[i:], i > 0
}

// jqLine is `^\s*(PASS|FAIL):\s(.+)$`, stripped.
func jqLine(s string) (word, name string, ok bool) {
	word, rest, ok := cutWord(s, "PASS:", "FAIL:")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpace(rest); !ok || rest == "" {
		return "", "", false
	}
	return word[:4], rest, true
}

// micropythonLine is `^(pass|FAIL|skip)\s+(.+)$`, stripped.
func micropythonLine(s string) (word, name string, ok bool) {
	word, rest, ok := cutWord(s, "pass", "FAIL", "skip")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpaces(rest); !ok || rest == "" {
		return "", "", false
	}
	return word, rest, true
}

// antLine is `^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$`, stripped.
func antLine(s string) (word, name string, ok bool) {
	rest, ok := strings.CutPrefix(s, "[junit]")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpaces(rest); !ok {
		return "", "", false
	}
	if word, rest, ok = cutWord(rest, "[PASS]", "[FAIL]", "[ERR]"); !ok {
		return "", "", false
	}
	if rest, ok = cutPySpaces(rest); !ok {
		return "", "", false
	}
	return word[1 : len(word)-1], rest, true
}

// googletestLine is `^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$`, stripped: the greedy `^.*` takes
// the last "[" after which the rest matches, and the name runs to the last " (" that leaves a
// ")" ending the line.
func googletestLine(s string) (word, name string, ok bool) {
	if !strings.HasSuffix(s, ")") {
		return "", "", false
	}
	for end := len(s); ; {
		i := strings.LastIndexByte(s[:end], '[')
		if i < 0 {
			return "", "", false
		}
		end = i
		word, rest, ok := cutWord(pyLstrip(s[i+1:]), "OK", "FAILED")
		if !ok {
			continue
		}
		rest, ok = strings.CutPrefix(pyLstrip(rest), "]")
		if !ok {
			continue
		}
		if rest, ok = cutPySpace(rest); !ok {
			continue
		}
		// `(.*)\s\(.*\)$` on rest (which ends with ")"): the last "(" before that ")" that
		// follows a whitespace character.
		for open := len(rest) - 1; open > 0; {
			open = strings.LastIndexByte(rest[:open], '(')
			if open < 0 {
				break
			}
			if before, ok := cutLastPySpace(rest[:open]); ok {
				return word, before, true
			}
		}
	}
}

// minitestLine is `^(.+)\. .*=.*(\.|F|E).*$`, stripped: the outcome is the last ".", "F" or "E"
// of the line, and the name runs to the last ". " before the last "=" that precedes it.
func minitestLine(s string) (outcome, name string, ok bool) {
	last := len(s) - 1
	for last >= 0 && s[last] != '.' && s[last] != 'F' && s[last] != 'E' {
		last--
	}
	if last < 0 {
		return "", "", false
	}
	eq := strings.LastIndexByte(s[:last], '=')
	if eq < 0 {
		return "", "", false
	}
	dot := eq
	for {
		if dot = strings.LastIndexByte(s[:dot], '.'); dot < 0 {
			return "", "", false
		}
		if dot+1 < eq && s[dot+1] == ' ' {
			break
		}
	}
	if dot < 1 {
		return "", "", false
	}
	return s[last : last+1], s[:dot], true
}

// cucumberLine is `^(.*) \.+(\.|F)`, stripped: the last " " followed by dots and an "F", or by
// two dots or more.
func cucumberLine(s string) (outcome, name string, ok bool) {
	for end := len(s); ; {
		sp := strings.LastIndexByte(s[:end], ' ')
		if sp < 0 {
			return "", "", false
		}
		end = sp
		after := s[sp+1:]
		dots := len(after) - len(strings.TrimLeft(after, "."))
		switch {
		case dots >= 1 && dots < len(after) && after[dots] == 'F':
			return "F", s[:sp], true
		case dots >= 2:
			return ".", s[:sp], true
		}
	}
}

// rspecLine is `^(.+) - (passed|failed)`, stripped: the last " - passed" or " - failed" that
// does not start the line.
func rspecLine(s string) (outcome, name string, ok bool) {
	for end := len(s); ; {
		dash := strings.LastIndexByte(s[:end], '-')
		if dash < 2 {
			return "", "", false
		}
		end = dash
		if s[dash-1] != ' ' || !strings.HasPrefix(s[dash+1:], " ") {
			continue
		}
		if word := s[dash+2:]; strings.HasPrefix(word, "passed") || strings.HasPrefix(word, "failed") {
			return word[:6], s[:dash-1], true
		}
	}
}

// jestJSONLine is `^\[(PASSED|FAILED)\]\s(.+)$`, stripped.
func jestJSONLine(s string) (word, name string, ok bool) {
	word, rest, ok := cutWord(s, "[PASSED]", "[FAILED]")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpace(rest); !ok || rest == "" {
		return "", "", false
	}
	return word[1 : len(word)-1], rest, true
}

// tapLine is `^(ok|not ok) (\d+) (.+)$`, stripped.
func tapLine(s string) (word, name string, ok bool) {
	word, rest, ok := cutWord(s, "ok ", "not ok ")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutDigits(rest); !ok {
		return "", "", false
	}
	if rest, ok = strings.CutPrefix(rest, " "); !ok || rest == "" {
		return "", "", false
	}
	return word[:len(word)-1], rest, true
}

// lazyTitle is `(.+?)(?:\s(<suffix>))?$` on s: s less the first whitespace character (after the
// first character) whose remainder isSuffix accepts, and what follows it.
func lazyTitle(s string, isSuffix func(string) bool) string {
	_, first := utf8.DecodeRuneInString(s)
	for at := first; at < len(s); {
		c := s[at]
		if c < utf8.RuneSelf {
			if isASCIIPySpace(c) && isSuffix(s[at+1:]) {
				return s[:at]
			}
			at++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[at:])
		if isPySpace(r) && isSuffix(s[at+size:]) {
			return s[:at]
		}
		at += size
	}
	return s
}

// isVitestSuffix is `(\d+\s*m?s?|\[skipped\])` on the whole of s.
func isVitestSuffix(s string) bool {
	if s == "" || s[0] < utf8.RuneSelf && s[0]-'0' > 9 {
		return s == "[skipped]"
	}
	rest, ok := cutDigits(s)
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(pyLstrip(rest), "m")
	return rest == "" || rest == "s"
}

// vitestLine is `^\s*(✓|×|↓)\s(.+?)(?:\s(\d+\s*m?s?|\[skipped\]))?$`, stripped.
func vitestLine(s string) (mark, name string, ok bool) {
	mark, rest, ok := cutWord(s, "✓", "×", "↓")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpace(rest); !ok || rest == "" {
		return "", "", false
	}
	return mark, lazyTitle(rest, isVitestSuffix), true
}

// isRedisDuration is `\((\d+\s*m?s)\)` on the whole of s.
func isRedisDuration(s string) bool {
	if !strings.HasSuffix(s, "s)") {
		return false
	}
	inner, ok := strings.CutPrefix(s, "(")
	if !ok {
		return false
	}
	if inner, ok = strings.CutSuffix(inner, "s)"); !ok {
		return false
	}
	rest, ok := cutDigits(inner)
	return ok && strings.TrimPrefix(pyLstrip(rest), "m") == ""
}

// redisLine is `^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$`, stripped.
func redisLine(s string) (word, name string, ok bool) {
	word, rest, ok := cutWord(s, "[ok]:", "[err]:", "[skip]:", "[ignore]:")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpace(rest); !ok || rest == "" {
		return "", "", false
	}
	return word[1 : len(word)-2], lazyTitle(rest, isRedisDuration), true
}

// withoutRedisFile is re.sub(r"\s+in\s+\S+$", "", s): a final " in <file>" removed.
func withoutRedisFile(s string) string {
	sp := strings.LastIndexFunc(s, isPySpace)
	if sp < 0 {
		return s
	}
	_, size := utf8.DecodeRuneInString(s[sp:])
	if sp+size == len(s) {
		return s // `\S+$` needs a final non-space
	}
	before, ok := strings.CutSuffix(strings.TrimRightFunc(s[:sp+size], isPySpace), "in")
	if !ok {
		return s
	}
	kept := strings.TrimRightFunc(before, isPySpace)
	if len(kept) == len(before) {
		return s
	}
	return kept
}

// carbonSuffixes are the timings of parse_log_carbon's first three patterns, in their order:
// `\s\([\d\.]+ms\)`, `\s\([\d\.]+\ss\)`, `\s\([\d\.]+s\)`; each is given what follows the
// "(" and reports whether the pattern's remainder matches there (the patterns are not anchored
// at the end).
var carbonSuffixes = []func(string) bool{
	func(s string) bool {
		return digitsDotsThen(s, func(r string) bool { return strings.HasPrefix(r, "ms)") })
	},
	func(s string) bool {
		return digitsDotsThen(s, func(r string) bool {
			r, ok := cutPySpace(r)
			return ok && strings.HasPrefix(r, "s)")
		})
	},
	func(s string) bool {
		return digitsDotsThen(s, func(r string) bool { return strings.HasPrefix(r, "s)") })
	},
}

// digitsDotsThen is `[\d\.]+` followed by what rest accepts, at the start of s.
func digitsDotsThen(s string, rest func(string) bool) bool {
	r := strings.TrimLeftFunc(s, func(r rune) bool { return r == '.' || unicode.IsDigit(r) })
	return len(r) < len(s) && rest(r)
}

// carbonLine is parse_log_carbon's patterns in their order on a line: `^(PASS|FAIL)\s(.*)` then
// one of carbonSuffixes (the name runs to the last whitespace character, at or after its
// start, that is followed by "(" and the suffix), else the rest of the line.
func carbonLine(line string) (word, name string, ok bool) {
	word, rest, ok := cutWord(line, "PASS", "FAIL")
	if !ok {
		return "", "", false
	}
	if rest, ok = cutPySpace(rest); !ok {
		return "", "", false
	}
	for _, suffix := range carbonSuffixes {
		for end := len(rest); ; {
			open := strings.LastIndexByte(rest[:end], '(')
			if open < 0 {
				break
			}
			end = open
			if before, ok := cutLastPySpace(rest[:open]); ok && suffix(rest[open+1:]) {
				return word, before, true
			}
		}
	}
	return word, rest, true
}

// jestFileResults is every match's group of `(?m)^<word>\s(.*)` in log, in order: at a line
// start, word and one whitespace character (a newline too, which makes the group the next line).
func jestFileResults(log, word string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for from := 0; ; {
			i := strings.Index(log[from:], word)
			if i < 0 {
				return
			}
			p := from + i
			from = p + 1
			if p > 0 && log[p-1] != '\n' {
				continue
			}
			rest, ok := cutPySpace(log[p+len(word):])
			if !ok {
				continue
			}
			start := len(log) - len(rest)
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			if !yield(rest[:end]) {
				return
			}
			from = start + end // the next match starts after this one
		}
	}
}

// withoutGrommetTime is re.sub(r"\s\([\d\.]+\s?(?:ms|s)\)$", "", s).
func withoutGrommetTime(s string) string {
	inner, ok := strings.CutSuffix(s, ")")
	if !ok {
		return s
	}
	open := strings.LastIndexByte(inner, '(')
	if open < 0 {
		return s
	}
	before, ok := cutLastPySpace(inner[:open])
	if !ok {
		return s
	}
	unit := strings.TrimLeftFunc(inner[open+1:], func(r rune) bool { return r == '.' || unicode.IsDigit(r) })
	if len(unit) == len(inner[open+1:]) {
		return s
	}
	unit, _ = cutPySpace(unit)
	if unit != "ms" && unit != "s" {
		return s
	}
	return before
}

// phpunitSuiteLine is `^(\w.+) \(.+\)$`: the name runs to the last " (" that leaves a character
// before the final ")".
func phpunitSuiteLine(line string) (string, bool) {
	if len(line) < 4 || line[len(line)-1] != ')' {
		return "", false
	}
	r, size := utf8.DecodeRuneInString(line)
	if !isPyWord(r) {
		return "", false
	}
	open := strings.LastIndex(line[:len(line)-2], " (")
	if open <= size {
		return "", false
	}
	return line[:open], true
}

// phpunitTestLine is `^\s*([✔✘↩])\s*(.*)$`.
func phpunitTestLine(line string) (mark, name string, ok bool) {
	rest := pyLstrip(line)
	if rest == "" || rest[0] != 0xe2 { // the first byte of every mark
		return "", "", false
	}
	mark, rest, ok = cutWord(rest, "✔", "✘", "↩")
	if !ok {
		return "", "", false
	}
	return mark, pyLstrip(rest), true
}

// rubyUnitLine is `^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)`, stripped: the name runs to the last
// ":" followed by whitespace and an outcome, after a leading "test: " if that gives a match.
func rubyUnitLine(s string) (outcome, name string, ok bool) {
	if rest, found := strings.CutPrefix(s, "test: "); found {
		if outcome, name, ok := rubyUnitOutcome(rest, 1); ok {
			return outcome, name, true
		}
	}
	return rubyUnitOutcome(s, 1)
}

// rubyUnitOutcome is `(.+):\s+(\.|E\b|F\b|O\b)` at the start of s, the name at least min bytes.
func rubyUnitOutcome(s string, min int) (outcome, name string, ok bool) {
	for end := len(s); ; {
		c := strings.LastIndexByte(s[:end], ':')
		if c < min {
			return "", "", false
		}
		end = c
		if outcome, ok := rubyUnitOutcomeAt(s[c+1:]); ok {
			return outcome, s[:c], true
		}
	}
}

// rubyUnitOutcomeAt is `\s+(\.|E\b|F\b|O\b)` at the start of s.
func rubyUnitOutcomeAt(s string) (string, bool) {
	rest, ok := cutPySpaces(s)
	if !ok || rest == "" {
		return "", false
	}
	switch rest[0] {
	case '.':
		return ".", true
	case 'E', 'F', 'O':
		if r, _ := utf8.DecodeRuneInString(rest[1:]); len(rest) == 1 || !isPyWord(r) {
			return rest[:1], true
		}
	}
	return "", false
}

// gradleResultLine is `^([^>].+)\s+(PASSED|FAILED)$`, stripped: the name is the line less the
// word and the one whitespace character before it, at least two characters, not starting ">".
func gradleResultLine(s string) (word, name string, ok bool) {
	if len(s) < 9 || s[0] == '>' {
		return "", "", false
	}
	word = s[len(s)-6:]
	if word != "PASSED" && word != "FAILED" {
		return "", "", false
	}
	name, ok = cutLastPySpace(s[:len(s)-6])
	if !ok || utf8.RuneCountInString(name) < 2 {
		return "", "", false
	}
	return word, name, true
}

// gradleTestNameLine is `^([^>]\S*\s+>\s+\S+)$`, stripped (the group is the line).
func gradleTestNameLine(s string) bool {
	if s == "" || s[0] == '>' {
		return false
	}
	_, size := utf8.DecodeRuneInString(s)
	rest := s[size:]
	if i := strings.IndexFunc(rest, isPySpace); i >= 0 {
		rest = rest[i:]
	} else {
		return false
	}
	rest, ok := cutPySpaces(rest)
	if !ok {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, ">"); !ok {
		return false
	}
	if rest, ok = cutPySpaces(rest); !ok || rest == "" {
		return false
	}
	return strings.IndexFunc(rest, isPySpace) < 0
}

// markedLine is `^\d+\)\s(.*)`.
func markedLine(line string) (string, bool) {
	rest, ok := cutDigits(line)
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutPrefix(rest, ")"); !ok {
		return "", false
	}
	return cutPySpace(rest)
}

// lighthouseTimedTitle is `(.*)\s\(\d+m+s\)` at the start of s: s up to the last whitespace
// character followed by "(", digits, "m"s, "s)"; false if there is none.
func lighthouseTimedTitle(s string) (string, bool) {
	for end := len(s); ; {
		open := strings.LastIndexByte(s[:end], '(')
		if open < 0 {
			return "", false
		}
		end = open
		before, ok := cutLastPySpace(s[:open])
		if !ok {
			continue
		}
		rest, ok := cutDigits(s[open+1:])
		if !ok {
			continue
		}
		ms := strings.TrimLeft(rest, "m")
		if len(ms) < len(rest) && strings.HasPrefix(ms, "s)") {
			return before, true
		}
	}
}

// lighthouseMochaLine is parse_log_lighthouse_mocha's patterns in their order on a stripped
// line: `✔\s(.*)\s\(\d+m+s\)`, `✔\s(.*)`, `\d+\)\s(.*)\s\(\d+m+s\)`, `\d+\)\s(.*)` (re.match:
// anchored at the start only). The word is "✔" or ")".
func lighthouseMochaLine(s string) (word, name string, ok bool) {
	var rest string
	if after, found := strings.CutPrefix(s, "✔"); found {
		word, rest = "✔", after
	} else if after, found := cutDigits(s); found && strings.HasPrefix(after, ")") {
		word, rest = ")", after[1:]
	} else {
		return "", "", false
	}
	if rest, ok = cutPySpace(rest); !ok {
		return "", "", false
	}
	if title, timed := lighthouseTimedTitle(rest); timed {
		return word, title, true
	}
	return word, rest, true
}

// calypsoLine is parse_log_calypso's reading of a line whose stripped form starts with mark:
// `^\s+<mark>\s(.*)\(\d+ms\)$` when the line holds a `\(\d+ms\)`, else `^\s+<mark>\s(.*)`;
// false where the chosen pattern does not match (the official parser raises).
func calypsoLine(line, mark string) (string, bool) {
	rest, ok := cutPySpaces(line)
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutPrefix(rest, mark); !ok {
		return "", false
	}
	if rest, ok = cutPySpace(rest); !ok {
		return "", false
	}
	if !hasCalypsoTiming(line) {
		return rest, true
	}
	// `(.*)\(\d+ms\)$`: the line ends with "(<digits>ms)".
	inner, ok := strings.CutSuffix(rest, "ms)")
	if !ok {
		return "", false
	}
	digits := strings.TrimRightFunc(inner, unicode.IsDigit)
	if len(digits) == len(inner) || !strings.HasSuffix(digits, "(") {
		return "", false
	}
	return digits[:len(digits)-1], true
}

// hasCalypsoTiming is re.search(r"\(\d+ms\)", line).
func hasCalypsoTiming(line string) bool {
	for from := 0; ; {
		i := strings.Index(line[from:], "ms)")
		if i < 0 {
			return false
		}
		at := from + i
		from = at + 1
		digits := strings.TrimRightFunc(line[:at], unicode.IsDigit)
		if len(digits) < at && strings.HasSuffix(digits, "(") {
			return true
		}
	}
}

// plotlyLine is `(\s+)<mark>\s+(.*?)\s+:` at the start of line (mark "-" for a suite, "*" for a
// test): the indent, the name and the text after the ":".
func plotlyLine(line string, mark byte) (indent, name, after string, ok bool) {
	rest, found := cutPySpaces(line)
	if !found || rest == "" || rest[0] != mark {
		return "", "", "", false
	}
	indent = line[:len(line)-len(rest)]
	rest = rest[1:]
	body, found := cutPySpaces(rest)
	if !found {
		return "", "", "", false
	}
	// The first `\s+` takes the whole run, and the name is the shortest text followed by a
	// whitespace run and ":": up to the run before the first ":" that follows whitespace. Failing
	// that, the run gives back one character and the name is empty, when a ":" follows the run.
	for from := 1; from < len(body); {
		c := strings.IndexByte(body[from:], ':')
		if c < 0 {
			break
		}
		c += from
		from = c + 1
		if before := pyRstrip(body[:c]); len(before) < c {
			return indent, before, body[c+1:], true
		}
	}
	if utf8.RuneCountInString(rest[:len(rest)-len(body)]) >= 2 && strings.HasPrefix(body, ":") {
		return indent, "", body[1:], true
	}
	return "", "", "", false
}
