package logparse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Official patterns read by hand: (?m)^ patterns at each line start, and ESLint's. At a line start each of these
// patterns can match one way or not at all, so a scan of the line starts finds what RE2's
// search over the whole text finds (TestScannersEqualThePatterns).

// lineStartMatches is re.FindAllStringSubmatchIndex(s, -1) for a (?m)^ pattern whose match at
// a line start is match(s, at) (nil: none); matches are never empty.
func lineStartMatches(s string, match func(s string, at int) []int) [][]int {
	var out [][]int
	for at := 0; at <= len(s); {
		if at > 0 && s[at-1] != '\n' {
			i := strings.IndexByte(s[at:], '\n')
			if i < 0 {
				break
			}
			at += i + 1
		}
		if m := match(s, at); m != nil {
			out = append(out, m)
			at = m[1]
			continue
		}
		at++
	}
	return out
}

// pySpaces is the end of n of Python's whitespace characters from at (newlines too), -1 if
// fewer.
func pySpaces(s string, at, n int) int {
	for range n {
		r, size := utf8.DecodeRuneInString(s[at:])
		if size == 0 || !isPySpace(r) {
			return -1
		}
		at += size
	}
	return at
}

// pyDigitsEnd is the end of `\d+` from at, -1 if absent.
func pyDigitsEnd(s string, at int) int {
	start := at
	for at < len(s) {
		r, size := utf8.DecodeRuneInString(s[at:])
		if !unicode.IsDigit(r) {
			break
		}
		at += size
	}
	if at == start {
		return -1
	}
	return at
}

// pyDigitsParen is the end of `\d+\)` from at, -1 if absent.
func pyDigitsParen(s string, at int) int {
	at = pyDigitsEnd(s, at)
	if at < 0 || at >= len(s) || s[at] != ')' {
		return -1
	}
	return at + 1
}

// lineEndFrom is the end of `.*` from at: the next newline or the end of s.
func lineEndFrom(s string, at int) int {
	if i := strings.IndexByte(s[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(s)
}

// matchNextFailure is `(?m)^\s{4}\d+\)\s(.*)` at a line start.
func matchNextFailure(s string, at int) []int {
	p := pySpaces(s, at, 4)
	if p < 0 {
		return nil
	}
	if p = pyDigitsParen(s, p); p < 0 {
		return nil
	}
	if p = pySpaces(s, p, 1); p < 0 {
		return nil
	}
	end := lineEndFrom(s, p)
	return []int{at, end, p, end}
}

// matchNextPass is `(?m)^\s{4}✓\s(.*)\(` at a line start: the group ends at the line's last "(".
func matchNextPass(s string, at int) []int {
	p := pySpaces(s, at, 4)
	if p < 0 || !strings.HasPrefix(s[p:], "✓") {
		return nil
	}
	if p = pySpaces(s, p+len("✓"), 1); p < 0 {
		return nil
	}
	open := strings.LastIndexByte(s[p:lineEndFrom(s, p)], '(')
	if open < 0 {
		return nil
	}
	return []int{at, p + open + 1, p, p + open}
}

// openlayersMochaFailures is `(?m)^\s{2}\d+\)((?s:.)*?)Error:` over s: the group runs to the
// first "Error:" after the number.
func openlayersMochaFailures(s string) [][]int {
	lastError := strings.LastIndex(s, "Error:")
	return lineStartMatches(s, func(s string, at int) []int {
		p := pySpaces(s, at, 2)
		if p < 0 {
			return nil
		}
		if p = pyDigitsParen(s, p); p < 0 || p > lastError {
			return nil
		}
		e := p + strings.Index(s[p:], "Error:")
		return []int{at, e + len("Error:"), p, e}
	})
}

// collapseSpace is Python's re.sub(r"\s+", " ", s).strip().
func collapseSpace(s string) string {
	s = pyStrip(s)
	if singleSpaced(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && !isASCIIPySpace(c) {
			b = append(b, c)
			i++
			continue
		}
		if r, size := utf8.DecodeRuneInString(s[i:]); !isPySpace(r) {
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		i = len(s) - len(pyLstrip(s[i:])) // a run of whitespace, inside s: it was stripped
		b = append(b, ' ')
	}
	return string(b)
}

// singleSpaced reports whether every whitespace character of s is a ' ' between two others.
func singleSpaced(s string) bool {
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIIPySpace(c) {
				if c != ' ' || prevSpace {
					return false
				}
				prevSpace = true
			} else {
				prevSpace = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isPySpace(r) {
			return false
		}
		prevSpace = false
		i += size - 1
	}
	return true
}

// eslintFailures is `(\s{2}\d+\))((?s:.)*?)\s+(?:(.*)Error)` over s: from the first
// "  <n>)" on, the title runs to the first whitespace run that the rest of its line after the
// run holds an "Error" in; the third group runs to the line's last "Error".
func eslintFailures(s string) [][]int {
	var out [][]int
	lastEnd := 0
	for from := 0; ; {
		c := strings.IndexByte(s[from:], ')')
		if c < 0 {
			return out
		}
		c += from
		from = c + 1
		// Back from ")": digits, then exactly the two whitespace characters the match starts with.
		d := c
		for {
			r, size := utf8.DecodeLastRuneInString(s[:d])
			if size == 0 || !unicode.IsDigit(r) {
				break
			}
			d -= size
		}
		if d == c {
			continue
		}
		p := d
		for range 2 {
			r, size := utf8.DecodeLastRuneInString(s[:p])
			if size == 0 || r == utf8.RuneError || !isPySpace(r) {
				p = -1
				break
			}
			p -= size
		}
		if p < lastEnd { // inside the last match, or no two whitespace characters
			continue
		}
		m := eslintTitle(s, c+1)
		if m == nil {
			return out // no later number has a run with an "Error" after it either
		}
		out = append(out, []int{p, m[1], p, c + 1, c + 1, m[0], m[2], m[3]})
		from, lastEnd = m[1], m[1]
	}
}

// eslintTitle is the end of the match from q (after the number's ")"): the title group
// s[q:e], the third group, as [e, end, groupStart, groupEnd]; nil if none.
func eslintTitle(s string, q int) []int {
	lineEnd, lastError := -1, -1 // the line of the last run looked at, and its last "Error"
	for e := q; e < len(s); {
		c := s[e]
		if c < utf8.RuneSelf && !isASCIIPySpace(c) {
			e++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[e:])
		if c >= utf8.RuneSelf && !isPySpace(r) {
			e += size
			continue
		}
		run := len(s) - len(pyLstrip(s[e:]))
		if run > lineEnd {
			lineEnd = lineEndFrom(s, run)
			lineStart := strings.LastIndexByte(s[:run], '\n') + 1
			lastError = lastIndex(s[lineStart:lineEnd], "Error")
			if lastError >= 0 {
				lastError += lineStart
			}
		}
		if lastError >= run {
			return []int{e, lastError + len("Error"), run, lastError}
		}
		e = run
	}
	return nil
}
