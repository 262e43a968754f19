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
	"strings"
	"syscall"

	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	"github.com/swe-sweep/sweep-operator/internal/hook"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

const usage = `usage:
  sweep-hook install DIR                 copy this binary to DIR/sweep-hook
  sweep-hook install-bundle SRC DEST     copy an external agent's bundle (a tree) into DEST
  sweep-hook agent  [-root DIR]          run the agent stage, then the collect hooks
  sweep-hook verify [-root DIR]          put artifacts back, run the verifier, read the reward
  sweep-hook collect [-root DIR] [-stay=false]
                                         wait for done, write the summary, stream the outputs,
                                         then wait for SIGTERM (unless -stay=false)
  sweep-hook grade swesweep BUNDLE_DIR [-patch FILE] [-out DIR] [-workdir DIR] [-bugs ID,...] [-oracle]
  sweep-hook grade swebench GRADER_DIR [-patch FILE] [-out DIR] [-workdir DIR]
                                         GRADER_DIR holds instance.json and grading.json; the
                                         log goes to stdout (test-stdout.txt in the verifier)
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
	// A native sidecar that exits is restarted, which would report a second time on a new
	// stream; so the collector stays until the kubelet stops it once the stage is over.
	stay := fs.Bool("stay", stage == "collect", "collect: after reporting, wait for SIGTERM before exiting")
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
	switch stage {
	case "agent":
		_, err = hook.RunAgent(ctx, spec, paths)
	case "verify":
		var self string
		if self, err = os.Executable(); err == nil {
			_, err = hook.RunVerify(ctx, spec, paths, hook.VerifyOptions{Self: self})
		}
	case "collect":
		if _, err = hook.RunCollector(ctx, spec, paths, stdout, hook.CollectOptions{}); err == nil && *stay {
			<-ctx.Done()
		}
	}
	return err
}

// grade runs a built-in grader. Its exit code is 1 when the grader failed (reward.json then
// says grader_failed), 2 for bad usage.
func grade(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "swesweep":
		return gradeSWESweep(ctx, args, stdout, stderr)
	case "swebench":
		return gradeSWEBench(ctx, args, stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return 2
}

// gradeSWEBench grades one SWE-bench instance: the repository is the official image's
// /testbed unless -workdir says otherwise. An error instance (patch did not apply, timeout,
// invalid run) is a verdict, exit 0; only a grader failure exits 1.
func gradeSWEBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade swebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	r := swebench.GraderRun{ConfigDir: args[1], Log: stdout}
	fs.StringVar(&r.PatchPath, "patch", "/logs/artifacts/model.patch", "the model patch")
	fs.StringVar(&r.OutDir, "out", "/logs/verifier", "directory for report.json, reward.json and eval.json")
	fs.StringVar(&r.Workdir, "workdir", swebench.DefaultWorkdir, "the repository at the instance's base commit")
	if err := fs.Parse(args[2:]); err != nil {
		return 2
	}
	if _, err := swebench.RunGrader(ctx, r); err != nil {
		fmt.Fprintf(stderr, "sweep-hook grade swebench: %v\n", err)
		return 1
	}
	return 0
}

func gradeSWESweep(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grade swesweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := swesweep.Options{BundleDir: args[1], Log: stdout}
	fs.StringVar(&o.PatchPath, "patch", "/logs/artifacts/model.patch", "the agent's patch")
	fs.StringVar(&o.OutDir, "out", "/logs/verifier", "directory for reward.json and eval.json")
	fs.StringVar(&o.Workdir, "workdir", "", "repository (default: the bundle's workdir)")
	bugs := fs.String("bugs", "", "comma-separated bug ids to grade (default: all)")
	fs.BoolVar(&o.Oracle, "oracle", false, "grade each bug with its own oracle patch")
	if err := fs.Parse(args[2:]); err != nil {
		return 2
	}
	if *bugs != "" {
		o.Bugs = strings.Split(*bugs, ",")
	}
	if _, err := swesweep.Run(ctx, o); err != nil {
		fmt.Fprintf(stderr, "sweep-hook grade swesweep: %v\n", err)
		return 1
	}
	return 0
}
