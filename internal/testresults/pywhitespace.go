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

// pyByteClass sorts the bytes for pySpaceAt: 1 is ASCII whitespace, 2 the lead byte of a
// multi-byte character that may be whitespace (U+0085, U+00A0, U+1680, U+2000..U+3000), 0
// anything else, continuation bytes included (no whitespace character contains one as a lead).
var pyByteClass = func() (c [256]uint8) {
	for _, b := range []byte{'\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, ' '} {
		c[b] = 1
	}
	for _, b := range []byte{0xc2, 0xe1, 0xe2, 0xe3} {
		c[b] = 2
	}
	return c
}()

// pySpaceAt reports whether s[i:] starts with Python whitespace, and how far to step past the
// character (or byte) there; only a few lead bytes are decoded.
func pySpaceAt(s string, i int) (bool, int) {
	switch pyByteClass[s[i]] {
	case 0:
		return false, 1
	case 1:
		return true, 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r), size
}

// pyTrim is Python's s.strip().
func pyTrim(s string) string {
	start := 0
	for start < len(s) {
		space, size := pySpaceAt(s, start)
		if !space {
			break
		}
		start += size
	}
	s = s[start:]
	for len(s) > 0 {
		if c := s[len(s)-1]; c < utf8.RuneSelf {
			if pyByteClass[c] != 1 {
				break
			}
			s = s[:len(s)-1]
			continue
		}
		r, size := utf8.DecodeLastRuneInString(s)
		if !unicode.IsSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// pyNextField returns the first field of s as Python's s.split() gives it, and the text after
// that field.
func pyNextField(s string) (string, string) {
	// pySpaceAt, unrolled: this runs on every result line of a log.
	start := 0
	for start < len(s) {
		class := pyByteClass[s[start]]
		if class == 0 {
			break
		}
		if class == 1 {
			start++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[start:])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	end := start
	for end < len(s) {
		class := pyByteClass[s[end]]
		if class == 0 {
			end++
			continue
		}
		if class == 1 {
			break
		}
		r, size := utf8.DecodeRuneInString(s[end:])
		if unicode.IsSpace(r) {
			break
		}
		end += size
	}
	return s[start:end], s[end:]
}

// pyJoinedFields is Python's " ".join(s.split()): runs of whitespace become one space and the
// ends are trimmed. A text already spaced that way is returned without a copy.
func pyJoinedFields(s string) string {
	s = pyTrim(s)
	if singleSpaced(s) {
		return s
	}
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

// singleSpaced reports whether the only whitespace in s is single ' ' characters.
func singleSpaced(s string) bool {
	for i := 0; i < len(s); i++ {
		switch pyByteClass[s[i]] {
		case 1:
			if s[i] != ' ' || (i > 0 && s[i-1] == ' ') {
				return false
			}
		case 2:
			if r, _ := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
				return false
			}
		}
	}
	return true
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
