package testresults

import (
	"bytes"
	"io"
)

// ReadUnittest reads "python -m unittest -v" output. A result line is
// "test_name (module.Class) ... ok" (Python < 3.11) or "test_name (module.Class.test_name) ...
// ok"; both give the id "module.Class.test_name". A docstring may put the " ... status" on
// the next line, and output printed by the test may stand between " ... " and the status.
// "FAIL: test (id)" and "ERROR: test (id)" headers also mark their test.
func ReadUnittest(r io.Reader) (Results, error) {
	res := Results{}
	pending := "" // the test whose status has not been printed yet
	err := scanLines(r, func(line []byte) {
		if id, st, ok := unittestHeader(line); ok {
			res.Keep(id, st)
			pending = ""
			return
		}
		head, tail, hasDots := bytes.Cut(line, []byte(" ... "))
		if id, ok := unittestID(head); ok {
			pending = id
		}
		if pending == "" {
			return
		}
		if !hasDots {
			tail = line // a status alone on a later line, or the docstring line
		}
		if st, ok := unittestStatus(tail, hasDots); ok {
			res.Keep(pending, st)
			pending = ""
		}
	})
	return res, err
}

var unittestWords = []struct {
	word   string
	status Status
}{
	{"ok", Passed}, {"FAIL", Failed}, {"ERROR", Error}, {"skipped", Skipped},
	{"expected failure", XFail}, {"unexpected success", Passed},
}

// unittestStatus reads the status after " ... ". Output the test printed may precede it on
// the same line ("noiseok"), so a tail that ends with a status word counts, but only right
// after " ... " (a later line must be the status alone).
func unittestStatus(tail []byte, afterDots bool) (Status, bool) {
	tail = bytes.TrimRight(tail, " ")
	for _, w := range unittestWords {
		if bytes.HasPrefix(tail, []byte(w.word)) && (len(tail) == len(w.word) || w.word == "skipped") {
			return w.status, true
		}
		if afterDots && bytes.HasSuffix(tail, []byte(w.word)) && w.word != "skipped" {
			return w.status, true
		}
	}
	return "", false
}

// unittestID parses "test_name (dotted.path)" into the dotted id of the test method.
func unittestID(head []byte) (string, bool) {
	name, rest, ok := bytes.Cut(head, []byte(" ("))
	if !ok || len(name) == 0 || bytes.IndexByte(name, ' ') >= 0 || !bytes.HasSuffix(rest, []byte(")")) {
		return "", false
	}
	path := rest[:len(rest)-1]
	if len(path) == 0 || bytes.IndexByte(path, ' ') >= 0 {
		return "", false
	}
	if bytes.HasSuffix(path, append([]byte("."), name...)) {
		return string(path), true
	}
	return string(path) + "." + string(name), true
}

// unittestHeader parses "FAIL: test_name (dotted.path)" and "ERROR: ...".
func unittestHeader(line []byte) (string, Status, bool) {
	for _, h := range []struct {
		prefix string
		status Status
	}{{"FAIL: ", Failed}, {"ERROR: ", Error}} {
		if rest, ok := bytes.CutPrefix(line, []byte(h.prefix)); ok {
			if id, ok := unittestID(rest); ok {
				return id, h.status, true
			}
		}
	}
	return "", "", false
}
