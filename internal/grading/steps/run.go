package steps

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/proctree"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

// Command is one run of a suite, a build or a script.
type Command struct {
	Path string
	Args []string
	Dir  string
	// Env is the environment; nil means this process's.
	Env    []string
	Output io.Writer
	// Timeout bounds the whole process tree; zero or less means the time is already up.
	Timeout time.Duration
	// Grace is how long the tree gets between SIGTERM and SIGKILL.
	Grace time.Duration
	// As runs the command as an unprivileged identity (the code under test: builds and
	// suites) and kills every process of that identity once the command has ended; nil runs
	// it as this process (the grader's own git and scripts).
	As *sandbox.Identity
	// ExtraFiles are open in the command as file descriptors 3, 4, ... (a result channel).
	ExtraFiles []*os.File
}

// RunUnderTimeout runs c as a process tree under its timeout. When no time is left it does
// not start c and reports a timeout.
func RunUnderTimeout(ctx context.Context, c Command) proctree.Result {
	if c.Timeout <= 0 {
		return proctree.Result{ExitCode: -1, TimedOut: true}
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	pc := proctree.Cmd{Path: c.Path, Args: c.Args, Dir: c.Dir, Env: env, Output: c.Output, Timeout: c.Timeout, Grace: c.Grace,
		ExtraFiles: c.ExtraFiles}
	if c.As == nil {
		return proctree.Run(ctx, pc)
	}
	pc.Env, pc.Credential = c.As.Env(env), c.As.Credential()
	res := proctree.Run(ctx, pc)
	// A process that left the tree's session and dropped its marker is still the identity's.
	if err := sandbox.Reap(*c.As); err != nil && res.StartErr == nil {
		res.StartErr = err
	}
	return res
}

// Seconds is how long a finished run took.
func Seconds(res proctree.Result) float64 { return res.Finished.Sub(res.Started).Seconds() }
