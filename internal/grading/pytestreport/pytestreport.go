// Package pytestreport is a result channel for pytest that the code under test does not write
// through its output: a plugin owned by the grader, installed outside the repository and loaded
// first (PYTEST_PLUGINS, with entry-point autoload off), reports each test and the end of the
// session over a pipe the grader opened. A run that never reached the end of its session (the
// tests printed forged lines and called os._exit) yields no results. Code running inside the
// pytest process can still reach the plugin and the pipe; docs/security.md states that
// residual risk.
package pytestreport

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "embed"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// modulePrefix starts the plugin's module name; the rest is the run's nonce, so that a patch
// cannot ship a module of the same name ahead of it on the import path.
const modulePrefix = "sweep_pytest_report_"

//go:embed sweep_pytest_report.py
var pluginSource []byte

const (
	fdVar    = "SWEEP_PYTEST_REPORT_FD"
	nonceVar = "SWEEP_PYTEST_REPORT_NONCE"
	// childFD is the descriptor of the first of a command's ExtraFiles.
	childFD = 3
	// maxLineBytes bounds one record; a test id is far shorter.
	maxLineBytes = 1 << 20
	// drainTimeout bounds the wait for the pipe's end once the run is over: every process of
	// the test identity has been reaped by then, so only a stray descriptor could hold it.
	drainTimeout = 10 * time.Second
)

// Channel is one suite run's pipe and plugin.
type Channel struct {
	dir    string
	nonce  string
	module string
	r, w   *os.File
	read   chan readResult
}

type readResult struct {
	res      testresults.Results
	complete bool
	foreign  int
	err      error
}

// Open opens a channel for one run of a suite and installs its plugin in dir, which it creates.
// dir must be outside the repository and writable by the grader alone; the tests only read it.
func Open(dir string) (*Channel, error) {
	b := make([]byte, 16)
	rand.Read(b)
	nonce := hex.EncodeToString(b)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	module := modulePrefix + nonce
	if err := os.WriteFile(filepath.Join(dir, module+".py"), pluginSource, 0o644); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &Channel{dir: dir, nonce: nonce, module: module, r: r, w: w, read: make(chan readResult, 1)}
	go func() { c.read <- c.consume() }()
	return c, nil
}

// Env is env with the plugin loaded and its pipe named, and entry-point plugin autoload off, so
// that a plugin the agent's patch installs (a dist-info entry point) never loads.
func (c *Channel) Env(env []string) []string {
	return append(c.env(env), "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1")
}

// EnvKeepingAutoload is Env with entry-point plugin autoload left as env has it, for a caller
// that could not name the suite's own plugins and keeps out the entry points a patch adds by
// other means.
func (c *Channel) EnvKeepingAutoload(env []string) []string {
	out := c.env(env)
	for _, kv := range env {
		if strings.HasPrefix(kv, "PYTEST_DISABLE_PLUGIN_AUTOLOAD=") {
			out = append(out, kv)
		}
	}
	return out
}

func (c *Channel) env(env []string) []string {
	out := make([]string, 0, len(env)+5)
	pythonPath := c.dir
	plugins := c.module
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PYTHONPATH":
			if v != "" {
				pythonPath += string(os.PathListSeparator) + v
			}
		case "PYTEST_PLUGINS":
			if v != "" {
				plugins += "," + v
			}
		case fdVar, nonceVar, "PYTEST_DISABLE_PLUGIN_AUTOLOAD":
		default:
			out = append(out, kv)
		}
	}
	return append(out, "PYTHONPATH="+pythonPath, "PYTEST_PLUGINS="+plugins, fdVar+"="+strconv.Itoa(childFD), nonceVar+"="+c.nonce)
}

// ExtraFiles are the files to open in the suite's command, in this order, from descriptor 3.
func (c *Channel) ExtraFiles() []*os.File { return []*os.File{c.w} }

// Results closes the grader's end of the pipe and returns what the plugin reported: each test's
// outcome, and whether the session reached its end. Call it once the run is over. Without the
// end record the results are empty: a session that did not finish proves nothing.
func (c *Channel) Results() (testresults.Results, bool, error) {
	// Our copy of the write end; the command's copies are gone with its processes.
	_ = c.w.Close()
	var r readResult
	select {
	case r = <-c.read:
	case <-time.After(drainTimeout):
		_ = c.r.Close()
		r = <-c.read
		if r.err == nil {
			r.err = errors.New("the result pipe stayed open after the run")
		}
	}
	// The plugin file goes with the run; a leftover one cannot load without its name.
	_ = c.r.Close()
	_ = os.Remove(filepath.Join(c.dir, c.module+".py"))
	if r.err != nil {
		return testresults.Results{}, false, r.err
	}
	if !r.complete {
		return testresults.Results{}, false, nil
	}
	return r.res, true, nil
}

// record is one line from the plugin.
type record struct {
	Nonce    string `json:"nonce"`
	NodeID   string `json:"nodeid"`
	When     string `json:"when"`
	Outcome  string `json:"outcome"`
	XFail    bool   `json:"xfail"`
	Raised   bool   `json:"raised"`
	End      bool   `json:"end"`
	Collect  int    `json:"collected"`
	ExitCode int    `json:"exitstatus"`
}

func (c *Channel) consume() readResult {
	out := readResult{res: testresults.Results{}}
	sc := bufio.NewScanner(c.r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	for sc.Scan() {
		var rec record
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Nonce != c.nonce {
			out.foreign++
			continue
		}
		if out.complete {
			continue // nothing after the end of the session counts
		}
		if rec.End {
			out.complete = true
			continue
		}
		if s, ok := Status(rec.When, rec.Outcome, rec.XFail, rec.Raised); ok {
			out.res.Keep(rec.NodeID, s)
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, os.ErrClosed) {
		out.err = fmt.Errorf("read the result pipe: %w", err)
	}
	return out
}

// Status is the outcome one pytest report gives its test, as pytest's -rA summary names it: a
// failing setup or teardown is an error, an expected failure is XFAIL, an unexpected pass is a
// pass. A passing setup or teardown says nothing (ok false). raised says the phase itself
// raised something other than a skip or an xfail: a report that still says "passed" was
// tampered with, and counts as the failure the phase was.
func Status(when, outcome string, xfail, raised bool) (testresults.Status, bool) {
	if raised && outcome == "passed" {
		outcome = "failed"
	}
	switch {
	case outcome == "failed" && when != "call":
		return testresults.Error, true
	case outcome == "skipped" && xfail:
		return testresults.XFail, true
	case outcome == "skipped":
		return testresults.Skipped, true
	case when != "call":
		return "", false
	case outcome == "passed":
		return testresults.Passed, true
	case outcome == "failed":
		return testresults.Failed, true
	}
	return "", false
}
