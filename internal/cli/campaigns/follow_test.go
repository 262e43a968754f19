package campaigns

import (
	"bytes"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/progress"
)

func TestProgressPrinter(t *testing.T) {
	first := progress.Snapshot{Total: 2, Active: 1}
	second := progress.Snapshot{Total: 2, Done: 1, Failed: 1, Failures: []progress.Failure{{Trial: "t1", Task: "a", Reason: "PodEvicted"}}}
	for _, tc := range []struct {
		terminal bool
		want     string
	}{
		// A log gets a line per change and none for a repeat.
		{false, "[....................] 0/2 done, 1 running, 0 failed, score 0.0000 (0.00/0 bugs)\n" +
			"failed: t1 (task a): PodEvicted\n" +
			"[##########..........] 1/2 done, 0 running, 1 failed, score 0.0000 (0.00/0 bugs)\n"},
		// A terminal gets one line redrawn in place, failures above it, and a final newline.
		{true, "\r\033[K[....................] 0/2 done, 1 running, 0 failed, score 0.0000 (0.00/0 bugs)" +
			"\r\033[Kfailed: t1 (task a): PodEvicted\n[##########..........] 1/2 done, 0 running, 1 failed, score 0.0000 (0.00/0 bugs)" +
			"\r\033[K[##########..........] 1/2 done, 0 running, 1 failed, score 0.0000 (0.00/0 bugs)\n"},
	} {
		var buf bytes.Buffer
		p := &progressPrinter{w: &buf, terminal: tc.terminal, seen: map[string]bool{}}
		p.show(first)
		p.show(second)
		p.show(second)
		p.end()
		if got := buf.String(); got != tc.want {
			t.Errorf("terminal=%v:\n got %q\nwant %q", tc.terminal, got, tc.want)
		}
	}
	if clioptions.IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
}
