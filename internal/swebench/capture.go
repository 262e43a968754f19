package swebench

import (
	"fmt"
	"io"
)

// Bounds on what the grader keeps of a step's output in memory. Everything is streamed to the
// grader's log (the verifier's test-stdout.txt, which the stage caps); grading reads the kept
// head and tail. A suite's per-test lines under -rA are in its short summary at the end, so
// the tail is where a verdict is read from when the output is larger than both.
const (
	// TestOutputHeadBytes and TestOutputTailBytes bound the test command's output kept for
	// grading: at most their sum is held.
	TestOutputHeadBytes = 16 << 20
	TestOutputTailBytes = 16 << 20
	// stepOutputBytes bounds each end of the other steps' output (the grader's git, the
	// install), kept only for the official-style log.
	stepOutputBytes = 1 << 20
)

// boundedCapture keeps the first head bytes and the last tail bytes written to it and
// forwards every byte to out. It is what the grader itself captured of a step, so nothing the
// step prints can move where it begins or ends.
type boundedCapture struct {
	out        io.Writer
	headCap    int
	head, ring []byte
	ringNext   int // where the next tail byte goes once ring is full
	total      int64
}

func newBoundedCapture(out io.Writer, headCap, tailCap int) *boundedCapture {
	if out == nil {
		out = io.Discard
	}
	return &boundedCapture{out: out, headCap: headCap, ring: make([]byte, 0, tailCap)}
}

func (c *boundedCapture) Write(p []byte) (int, error) {
	c.total += int64(len(p))
	// The grader's log is best effort: a full disk must not end the suite's pipe.
	_, _ = c.out.Write(p)
	rest := p
	if n := min(c.headCap-len(c.head), len(rest)); n > 0 {
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	tailCap := cap(c.ring)
	if tailCap == 0 {
		return len(p), nil
	}
	if len(rest) >= tailCap {
		c.ring, c.ringNext = append(c.ring[:0], rest[len(rest)-tailCap:]...), 0
		return len(p), nil
	}
	for len(rest) > 0 {
		if len(c.ring) < tailCap {
			n := min(tailCap-len(c.ring), len(rest))
			c.ring = append(c.ring, rest[:n]...)
			rest = rest[n:]
			continue
		}
		n := copy(c.ring[c.ringNext:], rest)
		c.ringNext = (c.ringNext + n) % tailCap
		rest = rest[n:]
	}
	return len(p), nil
}

// Dropped is how many bytes were neither in the head nor in the tail.
func (c *boundedCapture) Dropped() int64 {
	return c.total - int64(len(c.head)) - int64(len(c.ring))
}

// Total is how many bytes were written.
func (c *boundedCapture) Total() int64 { return c.total }

// Text is the head and the tail, with a line saying how much was dropped between them.
func (c *boundedCapture) Text() string {
	tail := append(append([]byte{}, c.ring[c.ringNext:]...), c.ring[:c.ringNext]...)
	if d := c.Dropped(); d > 0 {
		return string(c.head) + fmt.Sprintf("\n[grader] %d bytes of output left out here\n", d) + string(tail)
	}
	return string(c.head) + string(tail)
}
