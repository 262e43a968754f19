// Package proctree runs a command as the root of a process tree that it can end completely:
// the command gets its own session and process group, and sweep-hook becomes a child
// subreaper so that daemons which fork away and call setsid are reparented to it instead of
// to init. When the command times out, its whole tree gets SIGTERM, then SIGKILL after a grace
// period; when it exits, whatever it left running is killed, so no orphan survives a stage.
package proctree

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// markerVar is set in the command's environment; descendants that inherit it are found by it
// even after they leave the command's session.
const markerVar = "SWEEP_HOOK_TREE"

// Cmd is a command to run.
type Cmd struct {
	Path string
	Args []string // without the program name
	Dir  string
	Env  []string
	// Output receives stdout and stderr, merged.
	Output io.Writer
	// Timeout ends the tree when it expires; zero means none.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL; zero means DefaultGrace.
	Grace time.Duration
	// Credential runs the command as another user.
	Credential *syscall.Credential
	// ExtraFiles are open in the command as file descriptors 3, 4, ...
	ExtraFiles []*os.File
}

// DefaultGrace is the grace period when Cmd.Grace is zero.
const DefaultGrace = 10 * time.Second

// Result is how a command ended.
type Result struct {
	// ExitCode is the command's exit status, or -1 when it did not exit on its own (killed by
	// a signal, never started).
	ExitCode int
	TimedOut bool
	// Canceled: the context ended first (sweep-hook itself is being stopped).
	Canceled bool
	// StartErr is set when the command could not start.
	StartErr error
	Started  time.Time
	Finished time.Time
}

// Run runs c to completion and ends its whole process tree before returning.
func Run(ctx context.Context, c Cmd) (res Result) {
	res = Result{ExitCode: -1, Started: time.Now()}
	defer func() { res.Finished = time.Now() }()
	becomeSubreaper()

	marker := newMarker()
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append(append([]string{}, c.Env...), markerVar+"="+marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: c.Credential}
	cmd.ExtraFiles = c.ExtraFiles

	// A pipe of our own rather than exec's copying goroutine: Wait must not block on a
	// daemon that keeps the pipe open; the copy ends once the whole tree is gone.
	pr, pw, err := os.Pipe()
	if err != nil {
		res.StartErr = err
		return res
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		// Cleanup after the start error, which is the one reported.
		_ = pr.Close()
		_ = pw.Close()
		res.StartErr = err
		return res
	}
	// The child holds its own copy of the write end; ours goes so the copy sees EOF. Were the
	// close to fail, the wait for the copy below is bounded anyway.
	_ = pw.Close()
	copied := make(chan struct{})
	go func() {
		out := c.Output
		if out == nil {
			out = io.Discard
		}
		if _, err := io.Copy(out, pr); err != nil {
			// Output that cannot be written is lost, but the pipe is still drained so that the
			// command never blocks on a full pipe; this read ends when the pipe closes.
			_, _ = io.Copy(io.Discard, pr)
		}
		close(copied)
	}()
	exited := make(chan *os.ProcessState, 1)
	go func() {
		// A non-zero exit is an error here; the exit status is read from ProcessState.
		_ = cmd.Wait()
		exited <- cmd.ProcessState
	}()

	t := tree{root: cmd.Process.Pid, marker: marker, seen: map[int]bool{}}
	var timeout <-chan time.Time
	if c.Timeout > 0 {
		timer := time.NewTimer(c.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	var state *os.ProcessState
	select {
	case state = <-exited:
	case <-timeout:
		res.TimedOut = true
	case <-ctx.Done():
		res.Canceled = true
	}
	if state == nil {
		grace := c.Grace
		if grace <= 0 {
			grace = DefaultGrace
		}
		t.signal(syscall.SIGTERM)
		select {
		case state = <-exited:
		case <-time.After(grace):
		}
	}
	t.kill()
	if state == nil {
		state = <-exited
	}
	if !res.TimedOut && !res.Canceled {
		res.ExitCode = state.ExitCode()
	}
	// Everything that held the pipe is dead now, unless a process escaped the tree by clearing
	// its environment as well as leaving the session; do not wait for that one forever.
	select {
	case <-copied:
	case <-time.After(2 * time.Second):
	}
	_ = pr.Close() // the read end, done with; nothing to flush
	return res
}

func newMarker() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// becomeSubreaper makes orphaned descendants reparent to this process (PR_SET_CHILD_SUBREAPER).
func becomeSubreaper() {
	const prSetChildSubreaper = 36
	// Best effort: the call fails only on kernels older than 3.4, where orphans that also leave
	// the session reparent to init instead; the tree's session and descendants are still ended.
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// tree finds the processes that belong to one command.
type tree struct {
	root   int
	marker string
	seen   map[int]bool // every pid ever found in the tree, to reap the ones reparented to us
}

type proc struct {
	pid, ppid, session int
	zombie             bool
}

// members returns the live processes of the tree: the root's descendants, its session, and
// orphans reparented to us that carry the marker (with their descendants).
func (t *tree) members() []int {
	procs := listProcs()
	children := map[int][]int{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	in := map[int]bool{}
	var add func(pid int)
	add = func(pid int) {
		if in[pid] || pid == os.Getpid() {
			return
		}
		in[pid] = true
		for _, c := range children[pid] {
			add(c)
		}
	}
	self := os.Getpid()
	for _, p := range procs {
		// Orphans of the tree are reparented to us (the subreaper); only those need their
		// environment read.
		if p.pid == t.root || p.session == t.root || (p.ppid == self && t.hasMarker(p.pid)) {
			add(p.pid)
		}
	}
	var live []int
	for _, p := range procs {
		if in[p.pid] {
			t.seen[p.pid] = true
			if !p.zombie {
				live = append(live, p.pid)
			}
		}
	}
	return live
}

func (t *tree) hasMarker(pid int) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	return err == nil && bytes.Contains(env, []byte(markerVar+"="+t.marker))
}

func (t *tree) signal(sig syscall.Signal) {
	for _, pid := range t.members() {
		_ = syscall.Kill(pid, sig) // a member may have exited since it was listed
	}
}

// kill SIGKILLs the tree until nothing of it is left, reaping the members reparented to us.
func (t *tree) kill() {
	deadline := time.Now().Add(10 * time.Second)
	for {
		live := t.members()
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL) // a member may have exited since it was listed
		}
		t.reap()
		if len(live) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reap collects the exit status of tree members that became our children (the root is
// reaped by exec).
func (t *tree) reap() {
	for pid := range t.seen {
		if pid == t.root {
			continue
		}
		var ws syscall.WaitStatus
		if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid || errors.Is(err, syscall.ECHILD) {
			delete(t.seen, pid)
		}
	}
}

// listProcs reads pid, parent, session and state of every process from /proc.
func listProcs() []proc {
	entries, _ := os.ReadDir("/proc")
	procs := make([]proc, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid pgrp session ...": comm may hold spaces and parentheses.
		rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 4 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		session, _ := strconv.Atoi(f[3])
		procs = append(procs, proc{pid: pid, ppid: ppid, session: session, zombie: f[0] == "Z" || f[0] == "X"})
	}
	return procs
}
