package proctree

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// survivors returns live processes whose environment holds tag.
func survivors(tag string) []int {
	var pids []int
	for _, p := range listProcs() {
		if p.zombie {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ"))
		if err == nil && bytes.Contains(env, []byte(tag)) {
			pids = append(pids, p.pid)
		}
	}
	return pids
}

func newTag() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "PROCTREE_TEST=" + hex.EncodeToString(b)
}

// daemons forks: a background child, a double-forked setsid daemon, a child whose
// environment was wiped (it stays in the session), and one that ignores SIGTERM.
const daemons = `sleep 300 &
(setsid sh -c 'sleep 300' &)
env -i PROCTREE_TEST=$PROCTREE_TEST sleep 300 &
sh -c 'trap "" TERM; sleep 300' &
echo started
`

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		timeout  time.Duration
		cancel   bool
		want     Result
		output   string
		maxTaken time.Duration
	}{
		{name: "exit code and merged output", script: "echo out; echo err >&2; exit 3",
			want: Result{ExitCode: 3}, output: "out\nerr\n", maxTaken: 5 * time.Second},
		{name: "daemons left after exit are killed", script: daemons + "exit 0",
			want: Result{ExitCode: 0}, output: "started\n", maxTaken: 5 * time.Second},
		{name: "timeout ends the whole tree", script: daemons + "trap '' TERM; sleep 300", timeout: 300 * time.Millisecond,
			want: Result{ExitCode: -1, TimedOut: true}, output: "started\n", maxTaken: 5 * time.Second},
		{name: "cancel ends the whole tree", script: daemons + "sleep 300", cancel: true,
			want: Result{ExitCode: -1, Canceled: true}, output: "started\n", maxTaken: 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tag := newTag()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			var out bytes.Buffer
			start := time.Now()
			got := Run(ctx, Cmd{Path: "/bin/sh", Args: []string{"-c", tc.script}, Env: append(os.Environ(), tag),
				Output: &out, Timeout: tc.timeout, Grace: 500 * time.Millisecond})
			if taken := time.Since(start); taken > tc.maxTaken {
				t.Errorf("took %v, want at most %v", taken, tc.maxTaken)
			}
			if got.ExitCode != tc.want.ExitCode || got.TimedOut != tc.want.TimedOut || got.Canceled != tc.want.Canceled || got.StartErr != nil {
				t.Errorf("result = %+v, want %+v", got, tc.want)
			}
			if !got.Finished.After(got.Started) {
				t.Errorf("finished %v is not after started %v", got.Finished, got.Started)
			}
			if out.String() != tc.output {
				t.Errorf("output = %q, want %q", out.String(), tc.output)
			}
			if left := survivors(tag); len(left) > 0 {
				t.Errorf("processes left alive: %v", left)
			}
		})
	}
}

func TestRunStartError(t *testing.T) {
	got := Run(context.Background(), Cmd{Path: "/nonexistent/agent"})
	if got.StartErr == nil || !strings.Contains(got.StartErr.Error(), "no such file") || got.ExitCode != -1 {
		t.Fatalf("result = %+v", got)
	}
}
