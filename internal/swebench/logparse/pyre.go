package logparse

import (
	"iter"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// The official parsers are Python: their regular expressions run on str, where \s, \d and \w are
// Unicode classes, and str.strip() removes Unicode whitespace. Go's are ASCII. pyRe rewrites a
// pattern written in Python's syntax so that RE2 gives the same matches.

// pyWhitespace is the set of characters for which Python's str.isspace() (and so re's \s and
// str.strip()) is true.
const pyWhitespace = "\\t\\n\\v\\f\\r\\x{1c}-\\x{1f} \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"

// pyWord is Python's \w on str: letters, numbers and the underscore.
const pyWord = `\p{L}\p{N}_`

// pyRe compiles a Python-syntax pattern, with \s \S \d \D \w \W read as Python reads them on
// str. A negated class inside brackets ([^\S...]) must be written out by hand.
func pyRe(pattern string) *regexp.Regexp {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '\\' && i+1 < len(pattern) {
			next := pattern[i+1]
			i++
			switch {
			case next == 's' && inClass:
				b.WriteString(pyWhitespace)
			case next == 's':
				b.WriteString("[" + pyWhitespace + "]")
			case next == 'S' && !inClass:
				b.WriteString("[^" + pyWhitespace + "]")
			case next == 'd':
				b.WriteString(`\p{Nd}`)
			case next == 'D' && !inClass:
				b.WriteString(`\P{Nd}`)
			case next == 'w' && inClass:
				b.WriteString(pyWord)
			case next == 'w':
				b.WriteString("[" + pyWord + "]")
			case next == 'W' && !inClass:
				b.WriteString("[^" + pyWord + "]")
			case next == 'S' || next == 'D' || next == 'W' || next == 'b' || next == 'B':
				panic("pyRe: write " + pattern + " out by hand")
			default:
				b.WriteByte('\\')
				b.WriteByte(next)
			}
			continue
		}
		switch {
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal in Python.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return regexp.MustCompile(b.String())
}

// isPySpace is Python's str.isspace(); pyStrip is str.strip(). Functions rather than variables
// holding testresults' functions, so that the calls on every line are direct and inlined.
func isPySpace(r rune) bool { return testresults.PyIsSpace(r) }

func pyStrip(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] < utf8.RuneSelf && isASCIIPySpace(s[i]) {
		i++
	}
	for j > i && s[j-1] < utf8.RuneSelf && isASCIIPySpace(s[j-1]) {
		j--
	}
	if i < j && (s[i] >= utf8.RuneSelf || s[j-1] >= utf8.RuneSelf) {
		return testresults.PyStrip(s[i:j]) // a character at an end may be Unicode whitespace
	}
	return s[i:j]
}

// isASCIIPySpace is isPySpace for a byte below utf8.RuneSelf.
func isASCIIPySpace(c byte) bool { return c == ' ' || c-'\t' <= '\r'-'\t' || c-0x1c <= 0x1f-0x1c }

// pyLstrip is Python's str.lstrip().
func pyLstrip(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return strings.TrimLeftFunc(s[i:], isPySpace)
		} else if !isASCIIPySpace(c) {
			return s[i:]
		}
	}
	return ""
}

// indexPySpace is strings.IndexFunc(s, isPySpace), with ASCII read byte by byte.
func indexPySpace(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf:
			if isASCIIPySpace(c) {
				return i
			}
		case c == 0xc2 || c == 0xe1 || c == 0xe2 || c == 0xe3: // the lead bytes of the others
			if r, _ := utf8.DecodeRuneInString(s[i:]); isPySpace(r) {
				return i
			}
		}
	}
	return -1
}

// isPyWordString reports whether s is one or more of Python's \w characters.
func isPyWordString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf {
			return strings.IndexFunc(s[i:], func(r rune) bool { return !isPyWord(r) }) < 0
		} else if !isASCIIWord(c) {
			return false
		}
	}
	return s != ""
}

// isASCIIWord is Python's \w for a byte below utf8.RuneSelf.
func isASCIIWord(c byte) bool {
	return c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9'
}

// pyRstrip is Python's str.rstrip().
func pyRstrip(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if c := s[i]; c >= utf8.RuneSelf {
			return strings.TrimRightFunc(s[:i+1], isPySpace)
		} else if !isASCIIPySpace(c) {
			return s[:i+1]
		}
	}
	return ""
}

// pyIndent is Python's len(line) - len(line.lstrip()): leading whitespace in code points.
func pyIndent(line string) int { return utf8.RuneCountInString(line[:len(line)-len(pyLstrip(line))]) }

// pySplitAt is Python's re.split(pattern, s) with the matches already found
// (FindAllStringSubmatchIndex's): the pieces between matches, each match's groups (empty for a
// group that did not take part) in between.
func pySplitAt(s string, matches [][]int) []string {
	var out []string
	last := 0
	for _, m := range matches {
		out = append(out, s[last:m[0]])
		for g := 2; g < len(m); g += 2 {
			if m[g] < 0 {
				out = append(out, "")
				continue
			}
			out = append(out, s[m[g]:m[g+1]])
		}
		last = m[1]
	}
	return append(out, s[last:])
}

// ansiEscape is SWE-bench's ansi_escape, `\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])` replaced by "":
// 7-bit C1 escapes and CSI sequences removed. The classes are disjoint, so the sequence at an
// ESC is read without backtracking (TestRewritesEqualTheOfficialSubstitutions).
func ansiEscape(s string) string {
	esc := strings.IndexByte(s, 0x1b)
	if esc < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for esc >= 0 {
		b.WriteString(s[:esc])
		n := ansiEscapeLen(s[esc:])
		if n == 0 {
			b.WriteByte(0x1b)
			n = 1
		}
		s = s[esc+n:]
		esc = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// ansiEscapeLen is the length of the escape sequence s starts with (at an ESC), 0 for none.
func ansiEscapeLen(s string) int {
	if len(s) < 2 {
		return 0
	}
	if c := s[1]; c >= '@' && c <= 'Z' || c >= '\\' && c <= '_' {
		return 2
	}
	if s[1] != '[' {
		return 0
	}
	i := 2
	for i < len(s) && s[i] >= '0' && s[i] <= '?' {
		i++
	}
	for i < len(s) && s[i] >= ' ' && s[i] <= '/' {
		i++
	}
	if i < len(s) && s[i] >= '@' && s[i] <= '~' {
		return i + 1
	}
	return 0
}

// lines is Python's s.split("\n").
func lines(s string) []string { return strings.Split(s, "\n") }

// lineSeq is Python's s.split("\n") one line at a time, without the list.
func lineSeq(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				yield(s)
				return
			}
			if !yield(s[:i]) {
				return
			}
			s = s[i+1:]
		}
	}
}

// lastIndex is strings.LastIndex for a non-empty sep, stepping back from one occurrence of sep's
// rarest-looking byte to the previous (strings.LastIndex hashes every byte it passes).
func lastIndex(s, sep string) int {
	a := rareByteOf(sep)
	for end := len(s); ; {
		i := strings.LastIndexByte(s[:end], sep[a])
		if i < 0 {
			return -1
		}
		end = i
		if start := i - a; start >= 0 && start+len(sep) <= len(s) && s[start:start+len(sep)] == sep {
			return start
		}
	}
}

// rareByteOf is the index of the byte of sep least likely in logs, by a rough rank: a bracket or
// slash, then a capital letter, then other punctuation than '"', ':', ',' and '.', then the
// last byte.
func rareByteOf(sep string) int {
	best, rank := len(sep)-1, uint8(0)
	for i := 0; i < len(sep); i++ {
		if r := byteRarity[sep[i]]; r > rank {
			best, rank = i, r
		}
	}
	return best
}

// byteRarity ranks bytes for rareByteOf.
var byteRarity = func() (t [256]uint8) {
	for c := '!'; c < utf8.RuneSelf; c++ {
		t[c] = 1
	}
	for _, c := range "\":,.0123456789abcdefghijklmnopqrstuvwxyz" {
		t[c] = 0
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = 2
	}
	for _, c := range "[]{}()<>|/\\" {
		t[c] = 3
	}
	return t
}()

// indexFrom is the first occurrence of sep in s at or after from (-1 if none), found from each
// occurrence of sep's byte a.
func indexFrom(s string, from int, sep string, a int) int {
	for p := from + a; p < len(s); {
		i := strings.IndexByte(s[p:], sep[a])
		if i < 0 {
			return -1
		}
		start := p + i - a
		if start+len(sep) <= len(s) && s[start:start+len(sep)] == sep {
			return start
		}
		p += i + 1
	}
	return -1
}

// pyRsplitFirst is Python's s.rsplit(sep, 1)[0].
func pyRsplitFirst(s, sep string) string {
	if i := lastIndex(s, sep); i >= 0 {
		return s[:i]
	}
	return s
}

// pySplitLast is Python's s.split(sep, 1)[-1] (s itself when sep is absent).
func pySplitLast(s, sep string) string {
	if _, after, ok := strings.Cut(s, sep); ok {
		return after
	}
	return s
}

// pySplitString is Python's s.split(sep) (strings.Split), in one pass that looks for sep from
// its rarest-looking byte (strings.Index looks for the first, such as the space of
// " ./node_modules/.bin/jest ").
func pySplitString(s, sep string) []string {
	anchor := rareByteOf(sep)
	var out []string
	last := 0
	for {
		at := indexFrom(s, last, sep, anchor)
		if at < 0 {
			return append(out, s[last:])
		}
		out = append(out, s[last:at])
		last = at + len(sep)
	}
}

// setStatus is out[string(id)] = status, copying id into a new key only when the id is new or
// its status changes (an id seen before is looked up without a copy).
func setStatus(out Statuses, id []byte, status testresults.Status) {
	if old, ok := out[string(id)]; ok && old == status {
		return
	}
	out[string(id)] = status
}

// pyStripBytes is pyStrip on bytes.
func pyStripBytes(b []byte) []byte {
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if !isPySpace(r) {
			break
		}
		b = b[size:]
	}
	for len(b) > 0 {
		r, size := utf8.DecodeLastRune(b)
		if !isPySpace(r) {
			break
		}
		b = b[:len(b)-size]
	}
	return b
}
