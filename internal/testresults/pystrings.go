package testresults

// The Python whitespace rules of pywhitespace.go, for the readers outside this package that
// reproduce SWE-bench's parsers step by step (internal/swebench/logparse's non-Python parsers).

// PyIsSpace reports whether Python's str.isspace() holds for r.
func PyIsSpace(r rune) bool { return pyIsSpace(r) }

// PyStrip is Python's s.strip().
func PyStrip(s string) string { return pyTrim(s) }
