package logparse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hand-written anchored matchers of the official Karma failure patterns (bpmn-js, Chart.js) and
// mocha's JSON "fullTitle" lines (cypress, lighthouse):
// each is literalRe's match for its pattern, so TestLiteralResEqualTheWholeLogSearch compares it
// with the pattern on whole logs. A matcher returns the pattern's submatch indices on s, the
// match starting at 0, or nil.

// karmaScan walks s from a position; a failed step leaves ok false and the rest no-ops.
type karmaScan struct {
	s  string
	at int
	ok bool
}

func scanKarma(s, literal string) karmaScan {
	return karmaScan{s: s, at: len(literal), ok: strings.HasPrefix(s, literal)}
}

// space is Python's \s (crlf false: [^\S\r\n]), one character.
func (k karmaScan) space(crlf bool) karmaScan {
	if !k.ok {
		return k
	}
	r, size := utf8.DecodeRuneInString(k.s[k.at:])
	k.ok = k.at < len(k.s) && isPySpace(r) && (crlf || r != '\r' && r != '\n')
	k.at += size
	return k
}

// version is `[\d\.]+` (Unicode digits).
func (k karmaScan) version() karmaScan {
	if !k.ok {
		return k
	}
	start := k.at
	for k.at < len(k.s) {
		r, size := utf8.DecodeRuneInString(k.s[k.at:])
		if r != '.' && !unicode.IsDigit(r) {
			break
		}
		k.at += size
	}
	k.ok = k.at > start
	return k
}

func (k karmaScan) literal(text string) karmaScan {
	if k.ok {
		k.ok = strings.HasPrefix(k.s[k.at:], text)
		k.at += len(text)
	}
	return k
}

// failedLine is `(.*)FAILED\n` (newline true) or (?m)`(.*)FAILED$` from at: the rest of the line
// ends with FAILED. It returns the match's end and the group's.
func failedLine(s string, at int, newline bool) (end, groupEnd int, ok bool) {
	lineEnd := len(s)
	if i := strings.IndexByte(s[at:], '\n'); i >= 0 {
		lineEnd = at + i
	} else if newline {
		return 0, 0, false
	}
	if lineEnd-at < len("FAILED") || s[lineEnd-len("FAILED"):lineEnd] != "FAILED" {
		return 0, 0, false
	}
	end = lineEnd
	if newline {
		end++
	}
	return end, lineEnd - len("FAILED"), true
}

// karmaFailed ends a matcher whose last group is `(.*)FAILED\n`.
func (k karmaScan) karmaFailed() []int {
	if !k.ok {
		return nil
	}
	end, groupEnd, ok := failedLine(k.s, k.at, true)
	if !ok {
		return nil
	}
	return []int{0, end, k.at, groupEnd}
}

// `2KPhantomJS\s[\d\.]+\s\(Linux\s[\d\.]+\)\s(.*)FAILED\n`
func matchPhantomLinuxVersion(s string) []int {
	return scanKarma(s, "2KPhantomJS").space(true).version().space(true).literal("(Linux").space(true).version().literal(")").space(true).karmaFailed()
}

// `2KPhantomJS\s[\d\.]+\s\(Linux\sx86\_64\)\s(.*)FAILED\n`
func matchPhantomLinuxX86(s string) []int {
	return scanKarma(s, "2KPhantomJS").space(true).version().space(true).literal("(Linux").space(true).literal("x86_64)").space(true).karmaFailed()
}

// `HeadlessChrome\s[\d\.]+\s\(Linux\s[\d\.]+\)\s(.*)FAILED\n`
func matchHeadlessChrome(s string) []int {
	return scanKarma(s, "HeadlessChrome").space(true).version().space(true).literal("(Linux").space(true).version().literal(")").space(true).karmaFailed()
}

// `Chrome\sHeadless\s(.*)\s\(Linux\sx86\_64\)\s(.*)FAILED\n`: the first group is greedy, so the
// last " (Linux x86_64) " of its line (or right after it) that the rest matches ends it.
func matchChromeHeadless(s string) []int {
	k := scanKarma(s, "Chrome").space(true).literal("Headless").space(true)
	if !k.ok {
		return nil
	}
	start := k.at
	lineEnd := len(s)
	if i := strings.IndexByte(s[start:], '\n'); i >= 0 {
		lineEnd = start + i
	}
	// The group ends at a space before "(Linux", at the latest the line's newline; a valid
	// character's first byte is always where RE2's decoding puts a character boundary.
	area := s[:min(len(s), lineEnd+1+len("(Linux"))]
	for j := len(area); ; {
		i := lastIndex(area[start:j], "(Linux")
		if i < 0 {
			return nil
		}
		j = start + i
		r, size := utf8.DecodeLastRuneInString(s[start:j])
		e := j - size
		if size == 0 || r == utf8.RuneError || !isPySpace(r) || e > lineEnd {
			continue
		}
		rest := karmaScan{s: s, at: j, ok: true}.literal("(Linux").space(true).literal("x86_64)").space(true)
		if m := rest.karmaFailed(); m != nil {
			return []int{0, m[1], start, e, m[2], m[3]}
		}
	}
}

// (?m)`Chrome\s[\d.]+[^\S\r\n]\(.+?\)[^\S\r\n](.*)FAILED$`: the lazy `.+?` ends at the first ")"
// of the line that the rest matches.
func matchChartJSFailure(s string) []int {
	k := scanKarma(s, "Chrome").space(true).version().space(false).literal("(")
	if !k.ok {
		return nil
	}
	open := k.at
	lineEnd := len(s)
	if i := strings.IndexByte(s[open:], '\n'); i >= 0 {
		lineEnd = open + i
	}
	if open < lineEnd {
		_, size := utf8.DecodeRuneInString(s[open:])
		for q := open + size; q < lineEnd; q++ {
			i := strings.IndexByte(s[q:lineEnd], ')')
			if i < 0 {
				break
			}
			q += i
			rest := karmaScan{s: s, at: q + 1, ok: true}.space(false)
			if !rest.ok {
				continue
			}
			if end, groupEnd, ok := failedLine(s, rest.at, false); ok {
				return []int{0, end, rest.at, groupEnd}
			}
		}
	}
	return nil
}

// (?m)`"fullTitle":\s"(.*)",\n`: the rest of the line after the quote ends with `",`.
func matchMochaFullTitle(s string) []int {
	k := scanKarma(s, `"fullTitle":`).space(true).literal(`"`)
	if !k.ok {
		return nil
	}
	i := strings.IndexByte(s[k.at:], '\n')
	if i < 2 || s[k.at+i-2:k.at+i] != `",` {
		return nil
	}
	return []int{0, k.at + i + 1, k.at, k.at + i - 2}
}

// linuxParen is `\S+\)\s` after "(Linux\s": the run of non-whitespace must end with ")" (a
// shorter run would leave a non-whitespace character where \s is needed).
func (k karmaScan) linuxParen() karmaScan {
	if !k.ok {
		return k
	}
	start := k.at
	for k.at < len(k.s) {
		r, size := utf8.DecodeRuneInString(k.s[k.at:])
		if isPySpace(r) {
			break
		}
		k.at += size
	}
	k.ok = k.at-start >= 2 && k.s[k.at-1] == ')'
	return k.space(true)
}

// (?m)`Chrome\s[\d\.]+\s\(Linux\s\S+\)\s(.*)FAILED\n`
func matchOpenLayersChrome(s string) []int {
	return scanKarma(s, "Chrome").space(true).version().space(true).literal("(Linux").space(true).linuxParen().karmaFailed()
}

// (?m)`Chrome\sHeadless\s[\d\.]+\s\(Linux\s\S+\)\s(.*)\sFAILED\n`: the greedy group takes its
// whole line when "FAILED\n" is the next line, else ends before the whitespace before "FAILED".
func matchOpenLayersChromeHeadless(s string) []int {
	k := scanKarma(s, "Chrome").space(true).literal("Headless").space(true).version().space(true).literal("(Linux").space(true).linuxParen()
	if !k.ok {
		return nil
	}
	i := strings.IndexByte(s[k.at:], '\n')
	if i < 0 {
		return nil
	}
	lineEnd := k.at + i
	if strings.HasPrefix(s[lineEnd+1:], "FAILED\n") {
		return []int{0, lineEnd + 1 + len("FAILED\n"), k.at, lineEnd}
	}
	if i < len("FAILED")+1 || s[lineEnd-len("FAILED"):lineEnd] != "FAILED" {
		return nil
	}
	r, size := utf8.DecodeLastRuneInString(s[k.at : lineEnd-len("FAILED")])
	if size == 0 || r == utf8.RuneError || !isPySpace(r) {
		return nil
	}
	return []int{0, lineEnd + 1, k.at, lineEnd - len("FAILED") - size}
}

// `Running\:(.*)\)\n{3}\s{2}(.*)\n`: the first group is the rest of the line up to a ")" that
// ends it, then two empty lines, two whitespace characters (newlines too) and a whole line.
func matchNextSuite(s string) []int {
	at := len("Running:")
	lineEnd := strings.IndexByte(s[at:], '\n')
	if lineEnd < 1 {
		return nil
	}
	lineEnd += at
	if s[lineEnd-1] != ')' || !strings.HasPrefix(s[lineEnd:], "\n\n\n") {
		return nil
	}
	p := pySpaces(s, lineEnd+3, 2)
	if p < 0 {
		return nil
	}
	end := strings.IndexByte(s[p:], '\n')
	if end < 0 {
		return nil
	}
	return []int{0, p + end + 1, at, lineEnd - 1, p, p + end}
}

// (?m)`^case\s(.*):\smismatch`: after "case" and one whitespace character (a newline too), the
// group runs on its line to the last ":" followed by one whitespace character (a newline too)
// and "mismatch".
func matchOpenLayersCase(s string) []int {
	start := pySpaces(s, len("case"), 1)
	if start < 0 {
		return nil
	}
	lineEnd := lineEndFrom(s, start)
	for end := lineEnd; ; {
		c := strings.LastIndexByte(s[start:end], ':')
		if c < 0 {
			return nil
		}
		c += start
		end = c
		if p := pySpaces(s, c+1, 1); p >= 0 && strings.HasPrefix(s[p:], "mismatch") {
			return []int{0, p + len("mismatch"), start, c}
		}
	}
}
