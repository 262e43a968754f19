package logparse

import (
	"iter"
	"regexp"
	"regexp/syntax"
	"strings"
)

// literalRe runs an official pattern whose every match starts with a literal (optionally at a
// line start) and spans a bounded number of lines. RE2 over a whole log runs its slowest engine
// (the NFA) from each occurrence of the literal; literalRe finds the occurrences with
// strings.Index and tries the pattern, anchored, on the few lines that can hold a match, where
// RE2 uses its backtracker. The matches are those of re.FindAllStringSubmatch on the whole log
// (TestLiteralResEqualTheWholeLogSearch).
type literalRe struct {
	re       *regexp.Regexp
	anchored *regexp.Regexp
	// literal begins every match; lineStart: the match must also begin a line ((?m)^literal).
	literal   string
	lineStart bool
	// anchor is the byte of literal looked for (rareByteOf).
	anchor int
	// newlines is the most newlines a match can hold.
	newlines int
	// match, when set, is a hand-written matcher of the pattern anchored at the start of the
	// text it is given, the rest of the log (nil: no match), used instead of RE2.
	match func(window string) []int
}

// withMatcher sets the hand-written matcher of l's pattern.
func (l *literalRe) withMatcher(match func(string) []int) *literalRe {
	l.match = match
	return l
}

// newLiteralRe panics when re does not have the shape literalRe needs: a program error.
func newLiteralRe(re *regexp.Regexp) *literalRe {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		panic(err)
	}
	l := &literalRe{re: re, anchored: regexp.MustCompile(`\A(?:` + re.String() + `)`), newlines: maxNewlines(tree)}
	l.literal, l.lineStart = leadingLiteral(tree)
	l.anchor = rareByteOf(l.literal)
	if l.literal == "" || l.newlines < 0 || hasOp(tree, syntax.OpEndText) {
		panic("literalRe: " + re.String() + " needs a leading literal and matches of bounded lines")
	}
	return l
}

// leadingLiteral is the literal every match of tree starts with, after a (?m)^ if there is one.
func leadingLiteral(tree *syntax.Regexp) (string, bool) {
	for tree.Op == syntax.OpCapture {
		tree = tree.Sub[0]
	}
	parts := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		parts = tree.Sub
	}
	lineStart := false
	if len(parts) > 0 && parts[0].Op == syntax.OpBeginLine {
		lineStart, parts = true, parts[1:]
	}
	if len(parts) == 0 || parts[0].Op != syntax.OpLiteral || parts[0].Flags&syntax.FoldCase != 0 {
		return "", false
	}
	return string(parts[0].Rune), lineStart
}

// maxNewlines is the most newlines a match of tree can hold, -1 when unbounded.
func maxNewlines(tree *syntax.Regexp) int {
	switch tree.Op {
	case syntax.OpLiteral:
		return strings.Count(string(tree.Rune), "\n")
	case syntax.OpCharClass:
		for i := 0; i+1 < len(tree.Rune); i += 2 {
			if tree.Rune[i] <= '\n' && '\n' <= tree.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyChar:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxNewlines(tree.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxNewlines(tree.Sub[0]) != 0 {
			return -1
		}
		return 0
	case syntax.OpRepeat:
		n := maxNewlines(tree.Sub[0])
		switch {
		case n == 0:
			return 0
		case n < 0 || tree.Max < 0:
			return -1
		}
		return n * tree.Max
	case syntax.OpConcat:
		total := 0
		for _, sub := range tree.Sub {
			n := maxNewlines(sub)
			if n < 0 {
				return -1
			}
			total += n
		}
		return total
	case syntax.OpAlternate:
		most := 0
		for _, sub := range tree.Sub {
			n := maxNewlines(sub)
			if n < 0 {
				return -1
			}
			most = max(most, n)
		}
		return most
	}
	return 0 // empty-width assertions, OpAnyCharNotNL, OpEmptyMatch, OpNoMatch
}

// hasOp: op occurs in tree (a non-multiline $ reads the window's end as the log's).
func hasOp(tree *syntax.Regexp, op syntax.Op) bool {
	if tree.Op == op {
		return true
	}
	for _, sub := range tree.Sub {
		if hasOp(sub, op) {
			return true
		}
	}
	return false
}

// windowEnd is where the text RE2 tries a match from start on ends: at the newline after the
// most a match can hold, so that (?m)$ and \b read the same at its end as in the log.
func (l *literalRe) windowEnd(log string, start int) int {
	end := start
	for range l.newlines + 1 {
		j := strings.IndexByte(log[end:], '\n')
		if j < 0 {
			end = len(log)
			break
		}
		end += j + 1
	}
	if end < len(log) || log[end-1] == '\n' && strings.Count(log[start:end], "\n") > l.newlines {
		end--
	}
	return end
}

// findAllIndex is re.FindAllStringSubmatchIndex(log, -1).
func (l *literalRe) findAllIndex(log string) [][]int {
	var out [][]int
	for m := range l.each(log) {
		out = append(out, m)
	}
	return out
}

// each yields the matches of findAllIndex one at a time.
func (l *literalRe) each(log string) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		l.eachMatch(log, yield)
	}
}

func (l *literalRe) eachMatch(log string, yield func([]int) bool) {
	for pos := 0; pos < len(log); {
		start := indexFrom(log, pos, l.literal, l.anchor)
		if start < 0 {
			break
		}
		if l.lineStart && start > 0 && log[start-1] != '\n' {
			pos = start + 1
			continue
		}
		var m []int
		if l.match != nil {
			// A hand-written matcher reads no further than its match: the rest of the log.
			m = l.match(log[start:])
		} else {
			m = l.anchored.FindStringSubmatchIndex(log[start:l.windowEnd(log, start)])
		}
		if m == nil {
			pos = start + 1
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += start
			}
		}
		if !yield(m) {
			return
		}
		pos = m[1]
	}
}
