// Command sweep-hook runs inside trial Pods: it installs itself, runs the agent or verifier
// stage, collects the outputs, and grades SWE-sweep bundles and SWE-bench instances. It is built static
// (CGO_ENABLED=0) so that it runs in any Linux image.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/swe-sweep/sweep-operator/internal/grading"
	"github.com/swe-sweep/sweep-operator/internal/hook"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

const usage = `usage:
  sweep-hook install DIR                 copy this binary to DIR/sweep-hook
  sweep-hook install-bundle SRC DEST     copy an external agent's bundle (a tree) into DEST
  sweep-hook agent  [-root DIR]          run the agent stage, then the collect hooks
  sweep-hook verify [-root DIR] [-test-uid UID]
                                         put artifacts back, run the verifier, read the reward;
                                         a built-in grader runs the tests as UID (default: the
                                         test identity of internal/sandbox)
  sweep-hook collect [-root DIR]         wait for done and the stage's end, write the summary,
                                         stream the outputs
  sweep-hook grade swesweep BUNDLE_DIR [-patch FILE] [-out DIR] [-workdir DIR] [-bugs ID,...] [-oracle]
  sweep-hook grade swebench GRADER_DIR [-patch FILE] [-out DIR] [-workdir DIR]
                                         GRADER_DIR holds instance.json and grading.json; the
                                         log goes to stdout (test-stdout.txt in the verifier).
                                         The built-in graders are those of internal/grading.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	// SIGTERM (the kubelet stopping the container) ends the running stage cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var err error
	switch args[0] {
	case "install":
		if len(args) != 2 {
			err = errors.New("install takes one directory")
			break
		}
		var self string
		if self, err = os.Executable(); err == nil {
			err = hook.Install(self, args[1])
		}
	case "install-bundle":
		if len(args) != 3 {
			err = errors.New("install-bundle takes a source and a destination")
			break
		}
		err = hook.InstallBundle(args[1], args[2])
	case "agent", "verify", "collect":
		err = runStage(ctx, args[0], args[1:], stdout, stderr)
	case "grade":
		return grade(ctx, args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, usage)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "sweep-hook %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func runStage(ctx context.Context, stage string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(stage, flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "", "directory that stands for / (for tests); empty in Pods")
	var testUser sandbox.Identity
	if stage == "verify" {
		grading.TestUserFlag(fs, &testUser)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	paths := hook.PodPaths()
	if *root != "" {
		paths = hook.RootedPaths(*root)
	}
	spec, err := hook.ReadSpec(paths.Spec)
	if err != nil {
		return err
	}
	if stage == "collect" {
		return collect(ctx, spec, paths, stdout)
	}
	// The stage lock is held until this process exits, which is when the kernel releases it.
	// Without it the collector reports as soon as it sees done, as it did before the lock.
	if lock, lockErr := hook.HoldStageLock(paths.StageLock); lockErr != nil {
		fmt.Fprintf(stderr, "sweep-hook %s: stage lock: %v (the collector will not wait for this process)\n", stage, lockErr)
	} else {
		defer runtime.KeepAlive(lock)
	}
	// The collector's stdout is its record stream; the stages' is theirs to echo.
	paths.LogEcho = stdout
	switch stage {
	case "agent":
		_, err = hook.RunAgent(ctx, spec, paths)
	case "verify":
		var self string
		if self, err = os.Executable(); err == nil {
			_, err = hook.RunVerify(ctx, spec, paths, hook.VerifyOptions{Self: self, TestUser: testUser})
		}
	}
	return err
}

// collect runs the collector. It opens the stage lock first, before the main container
// starts, and ends once it has reported the stage, which has then ended (hook/stagelock.go).
// A lock it cannot open (never in a Pod: the run directory is writable until the stage
// starts) leaves it reporting on the done file, which the stage writes as its last act.
func collect(ctx context.Context, spec pc.StageSpec, paths hook.Paths, stdout io.Writer) error {
	lock, _ := hook.OpenStageLock(paths.StageLock) // nil when it cannot be opened
	_, err := hook.RunCollector(ctx, spec, paths, stdout, hook.CollectOptions{StageLock: lock})
	return err
}

// grade runs a built-in grader of the registry. Its exit code is 1 when the grader failed
// (reward.json then says grader_failed), 2 for bad usage or a grader that is not built in.
func grade(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	g, err := grading.Lookup(args[0])
	if err == nil && !g.BuiltIn() {
		err = fmt.Errorf("%s is not a built-in grader: the verifier stage runs it itself", g.Name())
	}
	if err != nil {
		fmt.Fprintf(stderr, "sweep-hook grade: %v\n%s", err, usage)
		return 2
	}
	fs := flag.NewFlagSet("grade "+g.Name(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	r := grading.Request{Dir: args[1], Log: stdout}
	g.Flags(fs, &r)
	if err := fs.Parse(args[2:]); err != nil {
		return 2
	}
	if err := g.Grade(ctx, r); err != nil {
		fmt.Fprintf(stderr, "sweep-hook grade %s: %v\n", g.Name(), err)
		return 1
	}
	return 0
}
