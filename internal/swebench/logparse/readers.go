package logparse

import (
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
	rest := strings.TrimLeftFunc(s, unicode.IsDigit)
	return rest, len(rest) < len(s)
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
	last := strings.LastIndexAny(s, ".FE")
	if last < 0 {
		return "", "", false
	}
	eq := strings.LastIndexByte(s[:last], '=')
	if eq < 0 {
		return "", "", false
	}
	dot := strings.LastIndex(s[:eq], ". ")
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
	at, word := -1, ""
	for _, w := range []string{"passed", "failed"} {
		if i := strings.LastIndex(s, " - "+w); i > at {
			at, word = i, w
		}
	}
	if at < 1 {
		return "", "", false
	}
	return word, s[:at], true
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
	for i, r := range s[first:] {
		if !isPySpace(r) {
			continue
		}
		at := first + i
		if isSuffix(s[at+utf8.RuneLen(r):]) { // a whitespace character is valid UTF-8
			return s[:at]
		}
	}
	return s
}

// isVitestSuffix is `(\d+\s*m?s?|\[skipped\])` on the whole of s.
func isVitestSuffix(s string) bool {
	if s == "[skipped]" {
		return true
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
func jestFileResults(log, word string) []string {
	var out []string
	for p := 0; p < len(log); {
		if strings.HasPrefix(log[p:], word) {
			if rest, ok := cutPySpace(log[p+len(word):]); ok {
				start := len(log) - len(rest)
				end := strings.IndexByte(rest, '\n')
				if end < 0 {
					end = len(rest)
				}
				out = append(out, rest[:end])
				p = start + end // the next line start is after the match
			}
		}
		i := strings.IndexByte(log[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return out
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
	r, size := utf8.DecodeRuneInString(line)
	if size == 0 || !isPyWord(r) || len(line) < 4 || line[len(line)-1] != ')' {
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
	mark, rest, ok := cutWord(pyLstrip(line), "✔", "✘", "↩")
	if !ok {
		return "", "", false
	}
	return mark, pyLstrip(rest), true
}
