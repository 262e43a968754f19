package hook

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"syscall"
	"time"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/proctree"
)

// runner runs a stage's commands as process trees that share one deadline.
type runner struct {
	dir      string
	env      []string
	log      *cappedLog
	grace    time.Duration
	deadline time.Time // zero: none
}

func newRunner(spec pc.StageSpec, log *cappedLog, env []string) *runner {
	r := &runner{dir: spec.Workdir, env: env, log: log, grace: durationOf(spec.GraceSeconds)}
	if spec.TimeoutSeconds > 0 {
		r.deadline = time.Now().Add(durationOf(spec.TimeoutSeconds))
	}
	return r
}

func durationOf(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }

// outcome is how one command of a stage ended.
type outcome struct {
	proctree.Result
	err error // could not start, or the deadline had passed
}

func (o outcome) ok() bool { return o.err == nil && !o.TimedOut && !o.Canceled && o.ExitCode == 0 }

// describe says in a few words why the command did not succeed.
func (o outcome) describe() string {
	switch {
	case o.err != nil:
		return o.err.Error()
	case o.TimedOut:
		return "timed out"
	case o.Canceled:
		return "terminated"
	}
	return fmt.Sprintf("exit code %d", o.ExitCode)
}

// step says how one command of a stage runs.
type step struct {
	timeout time.Duration // also bounded by the stage deadline; zero: the deadline alone
	cred    *syscall.Credential
	out     io.Writer // nil: the stage log
}

// run runs path (looked up on PATH when it has no slash) with args.
func (r *runner) run(ctx context.Context, s step, path string, args ...string) outcome {
	timeout := s.timeout
	if !r.deadline.IsZero() {
		left := time.Until(r.deadline)
		if left <= 0 {
			return outcome{Result: proctree.Result{ExitCode: -1, TimedOut: true}}
		}
		if timeout <= 0 || left < timeout {
			timeout = left
		}
	}
	out := s.out
	if out == nil {
		out = r.log
	}
	res := proctree.Run(ctx, proctree.Cmd{Path: path, Args: args, Dir: r.dir, Env: r.env, Output: out,
		Timeout: timeout, Grace: r.grace, Credential: s.cred})
	o := outcome{Result: res, err: res.StartErr}
	if o.err != nil {
		r.log.Printf("cannot run %s: %v", path, o.err)
	}
	return o
}

// credential looks name up in the image's /etc/passwd; empty means the current user.
func credential(name string) (*syscall.Credential, error) {
	if name == "" {
		return nil, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return nil, fmt.Errorf("user %q: %w", name, err)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("user %q has a non-numeric uid or gid", name)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// stageEnv is sweep-hook's environment with the spec's variables (and extra) on top.
func stageEnv(specEnv map[string]string, extra ...map[string]string) []string {
	env := os.Environ()
	for _, m := range append([]map[string]string{specEnv}, extra...) {
		for k, v := range m {
			env = append(env, k+"="+v)
		}
	}
	return env
}
