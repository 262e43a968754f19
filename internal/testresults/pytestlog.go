package testresults

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// PytestLines is a grammar for pytest's result lines in a log.
type PytestLines int

const (
	// PytestWholeIDs reads "STATUS <id>[ - message]" and "<id> STATUS[ ...]" with whole ids (a
	// "[a b]" parameter keeps its spaces); "SKIPPED [3] file:line" skip counts are not tests.
	// Our own reading (logparse's Full dialect), not SWE-bench's.
	PytestWholeIDs PytestLines = iota
	// PytestFields reads a line that starts with a status word as SWE-bench's parse_log_pytest
	// does (4.1 and 5): the id is the second field of Python's str.split() (so "[a b]" is cut
	// at its space) and the status the first as written, which may be no status at all
	// ("PASSEDX"; grading then counts it neither way). FAILED lines lose " - " first so the
	// message is not the id. Verbose "<id> PASSED [ 50%]" lines are not read.
	PytestFields
	// PytestSeaborn reads only "FAILED <id>", "<id> PASSED ..." and "PASSED <id>"
	// (parse_log_seaborn; 4.1 raises where 5 skips a line of fewer than two fields).
	PytestSeaborn
	// PytestNodeIDs is the bundle grader's grammar (ReadPytest): "STATUS <id>[ - message]",
	// also after xdist's "[gw0] [ 50%] " prefixes, the message cut at " - " outside brackets and
	// the id naming a node ("::") or a module (".py"); and "<id> STATUS" with the id holding
	// "::" and the status followed by the end, "[" or "(". XPASS is PASSED.
	PytestNodeIDs
)

// PytestOptions choose how ParsePytestLog reads a log. The zero value reads whole ids
// (PytestWholeIDs); SWE-bench's parsers are PytestFields with the options logparse gives each.
type PytestOptions struct {
	Lines PytestLines
	// TrailingStatus also reads a line that does not start but ends with a status word under
	// PytestFields: the id is its first field and the status its second (parse_log_pytest_v2
	// under 4.1), or with JoinedFields the fields but the last and the last.
	TrailingStatus bool
	// JoinedFields makes the id of a PytestFields line every field after the status joined by
	// one space (so "[a  b]" becomes "[a b]", and " - reason" stays in the id of every status
	// but FAILED), and cuts a FAILED line at its first " - " (parse_log_pytest_v2 under 5).
	JoinedFields bool
	// SkipSummaries drops a PytestFields line "SKIPPED [N] ..." whose second field is exactly
	// "[N]" (SWE-bench 5's skip-summary check); a "PASSED [100%]" line is still read.
	SkipSummaries bool
	// StripColourAndControl removes every "[<digits>m" and then every character from U+0001 to
	// U+001F, tabs included (parse_log_pytest_v2's clean-up).
	StripColourAndControl bool
	// StripANSI removes CSI escape sequences (colours, cursor moves).
	StripANSI bool
	// TrimCR removes a trailing CR, which a log split at "\n" keeps.
	TrimCR bool
	// RealIDsOnly rejects what is not a test but looks like an id to SWE-bench: skip counts and
	// progress ("[1]", "[100%]") and section rules ("_____ ERROR at setup of x _____").
	RealIDsOnly bool
	// NotRunXFailSkipped reports an xfail(run=False) test, which pytest marks "[NOTRUN]", as
	// SKIPPED: it never ran, so it cannot count as passing.
	NotRunXFailSkipped bool
	// BasenameParams collapses an absolute-path parameter to its last element, "t[/a/b/c.txt]"
	// → "t[/c.txt]" ("//" and globs are left alone) (parse_log_pytest_options).
	BasenameParams bool
	// MouseButtons rewrites MouseButton.LEFT/RIGHT to 1/3 (parse_log_matplotlib).
	MouseButtons bool
	// KeepWorst keeps the worst status of a test reported twice (ERROR > FAILED > SKIPPED >
	// XFAIL > PASSED): pytest reports a test whose call passed and whose teardown failed as both
	// PASSED and ERROR. Otherwise the last report counts, as in SWE-bench.
	KeepWorst bool
}

// ParsePytestLog reads pytest's result lines from log with o.
func ParsePytestLog(log string, o PytestOptions) Results {
	// The results are gathered first, in chunks that are never copied, and the map made at
	// their number: a large log holds hundreds of thousands, and growing the map step by step
	// costs more than reading the lines.
	var chunks [][]pytestResult
	var cleaned textArena
	found := 0
	read := o.lineReader()
	eachLine(log, func(line string) {
		id, status, ok := o.result(line, read, &cleaned)
		if !ok {
			return
		}
		if found%resultChunk == 0 {
			chunks = append(chunks, make([]pytestResult, 0, resultChunk))
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], pytestResult{id, status})
		found++
	})
	out := make(Results, found)
	for _, chunk := range chunks {
		for _, r := range chunk {
			o.store(out, r.id, r.status)
		}
	}
	return out
}

const resultChunk = 4096

type pytestResult struct {
	id     string
	status Status
}

// readPytestStream is ParsePytestLog over a stream, whose lines come without their line ending.
func readPytestStream(r io.Reader, o PytestOptions) (Results, error) {
	out := Results{}
	read := o.lineReader()
	err := scanLines(r, func(line []byte) {
		if id, status, ok := o.result(string(line), read, nil); ok {
			o.store(out, id, status)
		}
	})
	return out, err
}

// result reads one line with read; a line cleaned up is written to cleaned, if not nil.
func (o PytestOptions) result(line string, read func(string) (string, Status, bool), cleaned *textArena) (string, Status, bool) {
	if o.MouseButtons && strings.Contains(line, "MouseButton.") {
		line = strings.ReplaceAll(line, "MouseButton.LEFT", "1")
		line = strings.ReplaceAll(line, "MouseButton.RIGHT", "3")
	}
	if o.StripColourAndControl {
		line = stripColourAndControl(line, cleaned)
	}
	if o.TrimCR {
		line = strings.TrimSuffix(line, "\r")
	}
	if o.StripANSI && strings.IndexByte(line, 0x1b) >= 0 {
		line = stripANSI(line)
	}
	id, status, ok := read(line)
	if !ok {
		return "", "", false
	}
	if o.BasenameParams {
		id = basenameParam(id)
	}
	return id, status, true
}

// store records a result in out: the worst or the last one of a test counts (KeepWorst).
func (o PytestOptions) store(out Results, id string, status Status) {
	if o.KeepWorst {
		out.Keep(id, status)
	} else {
		out[id] = status
	}
}

func (o PytestOptions) lineReader() func(string) (string, Status, bool) {
	switch o.Lines {
	case PytestFields:
		return o.readPytestFields
	case PytestSeaborn:
		return readPytestSeaborn
	case PytestNodeIDs:
		return readPytestNodeIDs
	}
	return func(line string) (string, Status, bool) { return readPytestWholeIDs(line, o) }
}

// readPytestFields reads a line with the PytestFields grammar.
func (o PytestOptions) readPytestFields(line string) (string, Status, bool) {
	if word, _ := leadingStatus(line); word != "" {
		if word == string(Failed) && o.JoinedFields {
			line, _, _ = strings.Cut(line, " - ")
		}
		first, rest := pyNextField(line)
		second, after := pyNextField(rest)
		// A FAILED line loses every " - " first. One that starts at or after the end of the
		// second field cannot change the first two fields, so only an earlier one (found
		// within two bytes past that end) makes the copy worth it.
		if word == string(Failed) && !o.JoinedFields {
			if end := len(line) - len(after); strings.Contains(line[:min(len(line), end+2)], " - ") {
				first, rest = pyNextField(strings.ReplaceAll(line, " - ", " "))
				second, _ = pyNextField(rest)
			}
		}
		if second == "" || (o.SkipSummaries && first == string(Skipped) && isPySkipCount(second)) {
			return "", "", false
		}
		if o.JoinedFields {
			return pyJoinedFields(rest), Status(first), true
		}
		return second, Status(first), true
	}
	if !o.TrailingStatus || !hasTrailingStatus(line) {
		return "", "", false
	}
	if o.JoinedFields {
		// The last field is the status and every field before it, joined, the id.
		body := strings.TrimRightFunc(line, pyIsSpace)
		cut := strings.LastIndexFunc(body, pyIsSpace)
		if cut < 0 {
			return "", "", false
		}
		id := pyJoinedFields(body[:cut])
		if id == "" {
			return "", "", false
		}
		_, size := utf8.DecodeRuneInString(body[cut:])
		return id, Status(body[cut+size:]), true
	}
	first, rest := pyNextField(line)
	second, _ := pyNextField(rest)
	if second == "" {
		return "", "", false
	}
	return first, Status(second), true
}

// hasTrailingStatus reports whether line ends with one of SWE-bench's status words.
func hasTrailingStatus(line string) bool {
	if line == "" || !strings.ContainsRune("DRL", rune(line[len(line)-1])) {
		return false
	}
	for _, w := range swebenchPytestWords {
		if strings.HasSuffix(line, w.word) {
			return true
		}
	}
	return false
}

// isPySkipCount reports whether field is "[N]" as SWE-bench 5's `^\[\d+\]$` matches it (any
// Unicode decimal digits).
func isPySkipCount(field string) bool {
	inner, ok := strings.CutPrefix(field, "[")
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, "]")
	return ok && isPyDigits(inner)
}

// readPytestWholeIDs reads a line with the PytestWholeIDs grammar.
func readPytestWholeIDs(line string, o PytestOptions) (string, Status, bool) {
	accept := func(id string) bool {
		if o.RealIDsOnly {
			return realPytestID(id)
		}
		return id != ""
	}
	status := func(word, rest string) Status {
		if o.NotRunXFailSkipped && word == string(XFail) && strings.Contains(rest, "[NOTRUN]") {
			return Skipped
		}
		return Status(word)
	}
	if word, rest := leadingStatus(line); word != "" && len(rest) > 0 && isSpaceByte(rest[0]) {
		if id := balancedToken(strings.TrimLeftFunc(rest, unicode.IsSpace)); id != "" {
			if (word == string(Skipped) && isSkipCount(id)) || !accept(id) {
				return "", "", false
			}
			return id, status(word, rest), true
		}
	}
	if line == "" || isSpaceByte(line[0]) {
		return "", "", false
	}
	id := balancedToken(line)
	rest := line[len(id):]
	if len(rest) == 0 || !accept(id) {
		return "", "", false
	}
	word, after := leadingStatus(strings.TrimLeftFunc(rest, unicode.IsSpace))
	if word == "" || (len(after) > 0 && !isSpaceByte(after[0])) {
		return "", "", false
	}
	return id, status(word, after), true
}

// readPytestSeaborn reads a line with the PytestSeaborn grammar.
func readPytestSeaborn(line string) (string, Status, bool) {
	var status Status
	switch {
	case strings.HasPrefix(line, "FAILED"):
		status = Failed
	case strings.Contains(line, " PASSED "):
		first, rest := pyNextField(line)
		if second, _ := pyNextField(rest); second == "PASSED" {
			return first, Passed, true
		}
		return "", "", false
	case strings.HasPrefix(line, "PASSED"):
		status = Passed
	default:
		return "", "", false
	}
	_, rest := pyNextField(line)
	second, _ := pyNextField(rest)
	if second == "" {
		return "", "", false
	}
	return second, status, true
}

// realPytestID rejects skip counts, progress counters and section rules.
func realPytestID(id string) bool {
	return id != "" && id[0] != '[' && strings.Trim(id, "_=-") != ""
}

// leadingStatus returns the SWE-bench status word s starts with, and what follows it.
func leadingStatus(s string) (string, string) {
	if s == "" || !strings.ContainsRune("PFSEX", rune(s[0])) {
		return "", s
	}
	for _, w := range swebenchPytestWords {
		if strings.HasPrefix(s, w.word) {
			return w.word, s[len(w.word):]
		}
	}
	return "", s
}

// balancedToken returns the leading token of s, where whitespace inside [...] does not end it.
// An unbalanced token (a truncated id) falls back to the first whitespace-separated field.
func balancedToken(s string) string {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			depth++
		case c == ']':
			if depth > 0 {
				depth--
			}
		case isSpaceByte(c) && depth == 0:
			return s[:i]
		}
	}
	if depth > 0 {
		tok, _ := nextField(s)
		return tok
	}
	return s
}

// isSkipCount reports whether id is pytest's "[N]" skip-count prefix, not a test.
func isSkipCount(id string) bool {
	if len(id) < 3 || id[0] != '[' {
		return false
	}
	i := 1
	for i < len(id) && id[i] >= '0' && id[i] <= '9' {
		i++
	}
	return i > 1 && i < len(id) && id[i] == ']'
}

// basenameParam collapses an absolute-path parameter to its last element (BasenameParams).
func basenameParam(id string) string {
	open := strings.IndexByte(id, '[')
	end := strings.LastIndexByte(id, ']')
	if open < 0 || end < open {
		return id
	}
	param := id[open+1 : end]
	if strings.HasPrefix(param, "/") && !strings.HasPrefix(param, "//") && !strings.Contains(param, "*") {
		param = "/" + param[strings.LastIndexByte(param, '/')+1:]
	}
	return id[:open] + "[" + param + "]"
}

// stripColourAndControl drops every "[<digits>m" (Unicode decimal digits, as Python's \d),
// then every byte from 1 to 31 (StripColourAndControl). One pass does both: a control byte
// inside "[1\x1b2m" stops the first match, and removing it afterwards leaves "[12m", as the
// two steps in order do. A line with nothing to remove is returned as it is.
func stripColourAndControl(line string, cleaned *textArena) string {
	if cleaned == nil {
		cleaned = &textArena{}
	}
	start := -1 // where the cleaned line begins in cleaned, once something is removed
	kept := 0   // line[kept:i] is yet to be copied
	for i := 0; i < len(line); i++ {
		c := line[i]
		end := i // the last byte removed, if any
		switch {
		case c == '[':
			if end = colourCodeEnd(line, i+1); end < 0 {
				continue
			}
		case c == 0 || c > 31:
			continue
		}
		if start < 0 {
			start = cleaned.reserve(len(line))
		}
		cleaned.buf.WriteString(line[kept:i])
		i, kept = end, end+1
	}
	if start < 0 {
		return line
	}
	cleaned.buf.WriteString(line[kept:])
	return cleaned.buf.String()[start:]
}

// textArena hands out strings carved from large blocks: a log can have millions of lines to
// clean up, and one allocation each would keep the garbage collector busy. A block is only
// ever appended to, so a string carved from it never changes.
type textArena struct{ buf strings.Builder }

// arenaBlock is the size of a textArena block.
const arenaBlock = 1 << 20

// reserve makes room for n bytes in the current block and returns where they will start.
func (a *textArena) reserve(n int) int {
	if a.buf.Cap()-a.buf.Len() < n {
		a.buf = strings.Builder{}
		a.buf.Grow(max(n, arenaBlock))
	}
	return a.buf.Len()
}

// colourCodeEnd returns the index of the "m" that ends the digits at line[start:], or -1.
func colourCodeEnd(line string, start int) int {
	j := start
	for j < len(line) {
		if c := line[j]; c >= '0' && c <= '9' {
			j++
			continue
		}
		r, size := utf8.DecodeRuneInString(line[j:])
		if r < utf8.RuneSelf || !unicode.IsDigit(r) {
			break
		}
		j += size
	}
	if j > start && j < len(line) && line[j] == 'm' {
		return j
	}
	return -1
}
