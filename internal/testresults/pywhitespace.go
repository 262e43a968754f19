package testresults

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SWE-bench's parsers split and strip with Python's str.split() and str.strip(), whose
// whitespace is Go's unicode.IsSpace plus the four ASCII separators U+001C..U+001F. The
// readers that reproduce those parsers use these helpers so that a field ends where Python's
// does.

// pyIsSpace reports whether Python's str.isspace() holds for r.
func pyIsSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || (r >= '\t' && r <= '\r') || (r >= 0x1c && r <= 0x1f)
	}
	return unicode.IsSpace(r)
}

// pyTrim is Python's s.strip().
func pyTrim(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyNextField returns the first field of s as Python's s.split() gives it, and the text after
// that field.
func pyNextField(s string) (string, string) {
	s = strings.TrimLeftFunc(s, pyIsSpace)
	end := strings.IndexFunc(s, pyIsSpace)
	if end < 0 {
		return s, ""
	}
	return s[:end], s[end:]
}

// pyFields is Python's s.split().
func pyFields(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// pyJoinedFields is Python's " ".join(s.split()): runs of whitespace become one space and the
// ends are trimmed.
func pyJoinedFields(s string) string {
	var b strings.Builder
	for {
		var f string
		f, s = pyNextField(s)
		if f == "" {
			return b.String()
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
}

// isPyDigits reports whether s is one or more Unicode decimal digits, which is what Python's
// \d+ matches in a str.
func isPyDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
