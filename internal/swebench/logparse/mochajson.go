package logparse

import (
	"unicode/utf16"
	"unicode/utf8"
)

// mochaReportTitles reads the mocha JSON report "{" + inner + "}" the way parsePrismJS's
// json.Unmarshal and mochaTitles do, in one pass without building the document (or the report):
// the "fullTitle" strings of the "failures" and "passes" lists. ok is false for anything it does not
// read itself (invalid JSON, lists that are not lists of objects with a string "fullTitle",
// deep nesting): the caller then decodes with encoding/json, which decides. TestMochaReportTitles
// compares both on every golden report and on random ones.
func mochaReportTitles(inner string) (failures, passes []string, ok bool) {
	p := jsonScan{s: inner}
	p.space()
	if p.i == len(inner) {
		return nil, nil, false // no lists: decided by the caller
	}
	var haveFailures, havePasses bool
	for {
		key, ok := p.str()
		if !ok {
			return nil, nil, false
		}
		p.space()
		if !p.byte(':') {
			return nil, nil, false
		}
		p.space()
		switch key {
		case "failures":
			failures, ok = p.titles(failures[:0])
			haveFailures = true
		case "passes":
			passes, ok = p.titles(passes[:0])
			havePasses = true
		default:
			ok = p.value(0)
		}
		if !ok {
			return nil, nil, false
		}
		p.space()
		if p.i == len(inner) { // the closing "}"
			return failures, passes, haveFailures && havePasses
		}
		if !p.byte(',') {
			return nil, nil, false
		}
		p.space()
	}
}

// jsonScan reads JSON text from s[i:]; its methods report whether what they read is valid JSON
// of the kind they read.
type jsonScan struct {
	s string
	i int
}

// jsonMaxDepth is the nesting jsonScan reads; deeper text is left to encoding/json.
const jsonMaxDepth = 200

func (p *jsonScan) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonScan) byte(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// titles reads a list of objects, appending each one's "fullTitle" string to out.
func (p *jsonScan) titles(out []string) ([]string, bool) {
	if !p.byte('[') {
		return nil, false
	}
	p.space()
	if p.byte(']') {
		return out, true
	}
	for {
		title, ok := p.entryTitle()
		if !ok {
			return nil, false
		}
		out = append(out, title)
		p.space()
		if p.byte(']') {
			return out, true
		}
		if !p.byte(',') {
			return nil, false
		}
		p.space()
	}
}

// entryTitle reads an object and returns its (last) "fullTitle" string.
func (p *jsonScan) entryTitle() (string, bool) {
	if !p.byte('{') {
		return "", false
	}
	p.space()
	if p.byte('}') {
		return "", false
	}
	title, found := "", false
	for {
		key, ok := p.str()
		if !ok {
			return "", false
		}
		p.space()
		if !p.byte(':') {
			return "", false
		}
		p.space()
		if key == "fullTitle" {
			if title, ok = p.str(); !ok {
				return "", false
			}
			found = true
		} else if !p.value(1) {
			return "", false
		}
		p.space()
		if p.byte('}') {
			return title, found
		}
		if !p.byte(',') {
			return "", false
		}
		p.space()
	}
}

// value reads any JSON value at the given depth.
func (p *jsonScan) value(depth int) bool {
	if p.i >= len(p.s) || depth > jsonMaxDepth {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '"':
		return p.skipStr()
	case c == '{':
		p.i++
		p.space()
		if p.byte('}') {
			return true
		}
		for {
			if !p.skipStr() {
				return false
			}
			p.space()
			if !p.byte(':') {
				return false
			}
			p.space()
			if !p.value(depth + 1) {
				return false
			}
			p.space()
			if p.byte('}') {
				return true
			}
			if !p.byte(',') {
				return false
			}
			p.space()
		}
	case c == '[':
		p.i++
		p.space()
		if p.byte(']') {
			return true
		}
		for {
			if !p.value(depth + 1) {
				return false
			}
			p.space()
			if p.byte(']') {
				return true
			}
			if !p.byte(',') {
				return false
			}
			p.space()
		}
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, word := range []string{"true", "false", "null"} {
		if len(p.s)-p.i >= len(word) && p.s[p.i:p.i+len(word)] == word {
			p.i += len(word)
			return true
		}
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?.
func (p *jsonScan) number() bool {
	p.byte('-')
	switch {
	case p.byte('0'):
	case p.i < len(p.s) && p.s[p.i] >= '1' && p.s[p.i] <= '9':
		p.digits()
	default:
		return false
	}
	if p.byte('.') && !p.digits() {
		return false
	}
	if p.byte('e') || p.byte('E') {
		if !p.byte('-') {
			p.byte('+')
		}
		return p.digits()
	}
	return true
}

func (p *jsonScan) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// jsonStringStop marks the bytes that end a run of plain string text: '"', '\\' and the control
// characters (invalid in a JSON string).
var jsonStringStop = func() (t [256]bool) {
	for c := range ' ' {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipStr reads a string without its value.
func (p *jsonScan) skipStr() bool {
	_, _, ok := p.rawStr()
	return ok
}

// rawStr reads a string: its text between the quotes, and whether that holds an escape.
func (p *jsonScan) rawStr() (text string, escaped, ok bool) {
	if !p.byte('"') {
		return "", false, false
	}
	start := p.i
	for {
		for p.i < len(p.s) && !jsonStringStop[p.s[p.i]] {
			p.i++
		}
		if p.i >= len(p.s) {
			return "", false, false
		}
		switch p.s[p.i] {
		case '"':
			p.i++
			return p.s[start : p.i-1], escaped, true
		case '\\':
			escaped = true
			if p.i+1 >= len(p.s) {
				return "", false, false
			}
			switch p.s[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.s) || !isHex4(p.s[p.i+2:p.i+6]) {
					return "", false, false
				}
				p.i += 6
			default:
				return "", false, false
			}
		default: // a control character
			return "", false, false
		}
	}
}

// str reads a string and returns its value as encoding/json decodes it: escapes read, a lone
// surrogate escape and each byte of invalid UTF-8 as U+FFFD.
func (p *jsonScan) str() (string, bool) {
	text, escaped, ok := p.rawStr()
	if !ok {
		return "", false
	}
	if !escaped && utf8.ValidString(text) {
		return text, true
	}
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\\':
			if text[i+1] != 'u' {
				b = append(b, jsonEscapes[text[i+1]])
				i += 2
				continue
			}
			r := hex4(text[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(text) && text[i] == '\\' && text[i+1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(text[i+2:i+6])); pair != utf8.RuneError {
						b = utf8.AppendRune(b, pair)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return string(b), true
}

// jsonEscapes are the characters of JSON's one-letter escapes.
var jsonEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func hex4(s string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i] | 0x20
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
