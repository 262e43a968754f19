package testresults

import (
	"bufio"
	"io"
	"strings"
	"unicode"
)

// maxLine bounds one line of runner output read from a stream; longer lines are read in pieces
// and cannot be result lines anyway.
const maxLine = 1 << 20

// scanLines calls fn for each line of r, without its line ending (a trailing CR included).
func scanLines(r io.Reader, fn func(line []byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	sc.Split(splitLongLines)
	for sc.Scan() {
		line := sc.Bytes()
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		fn(line)
	}
	return sc.Err()
}

// splitLongLines is bufio.ScanLines that cuts a line longer than maxLine instead of failing.
func splitLongLines(data []byte, atEOF bool) (int, []byte, error) {
	adv, tok, err := bufio.ScanLines(data, atEOF)
	if adv == 0 && tok == nil && err == nil && len(data) >= maxLine {
		return len(data), data, nil
	}
	return adv, tok, err
}

// eachLine calls fn for every line of log (split at '\n' only) without splitting it into a
// slice first; logs can be hundreds of megabytes.
func eachLine(log string, fn func(line string)) {
	for len(log) > 0 {
		i := strings.IndexByte(log, '\n')
		if i < 0 {
			fn(log)
			return
		}
		fn(log[:i])
		log = log[i+1:]
	}
}

// markedLines reads the lines of log that marked accepts with result, on the trimmed line;
// with stripANSI, colour codes are removed first. A test reported twice keeps its last status.
func markedLines(log string, stripANSI bool, marked func(string) bool, result func(string) (string, Status, bool)) Results {
	out := Results{}
	eachLine(log, func(line string) {
		if !marked(line) {
			return
		}
		if stripANSI {
			line = withoutANSI(line)
		}
		if name, status, ok := result(strings.TrimSpace(line)); ok {
			out[name] = status
		}
	})
	return out
}

// stripANSI removes CSI escape sequences ("\x1b[...m", cursor moves): ESC, '[', and everything
// up to the final byte in '@'..'~'.
func stripANSI[T ~string | ~[]byte](line T) T {
	out := make([]byte, 0, len(line))
	for i := 0; i < len(line); i++ {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] < '@' || line[j] > '~') {
				j++
			}
			i = j
			continue
		}
		out = append(out, line[i])
	}
	return T(out)
}

// withoutANSI drops a trailing CR and CSI escape sequences from a line of a log.
func withoutANSI(line string) string {
	line = strings.TrimSuffix(line, "\r")
	if strings.IndexByte(line, 0x1b) < 0 {
		return line
	}
	return stripANSI(line)
}

// nextField returns the first whitespace-separated field of s and the text after it.
func nextField(s string) (string, string) {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	end := strings.IndexFunc(s, unicode.IsSpace)
	if end < 0 {
		return s, ""
	}
	return s[:end], s[end:]
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
