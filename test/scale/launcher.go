package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// launchArg, as this program's first argument, makes it the launcher of one measured command
// (launchMeasured) instead of a run.
//
// The launcher exists because a child's ru_maxrss is not its own peak when its parent is
// large: Go starts a child with clone(CLONE_VM|CLONE_VFORK), and at the child's exec the
// kernel records the high-water RSS of the memory it leaves, the parent's, as the child's. A
// `sweep info` started straight from this program, which holds the run's watches, would show
// this program's RSS. Started from the launcher, a small process, it shows its own.
const launchArg = "-launch-measured"

// serveLaunch is the launcher's mode: when this program was started as a launcher, it runs
// the command and exits, before anything else. main and the tests' TestMain call it first.
func serveLaunch() {
	if len(os.Args) > 2 && os.Args[1] == launchArg {
		os.Exit(launchMeasured(os.Args[2], os.Args[3:]))
	}
}

// measuredCommand is bin with args, started through this program's launcher, which writes the
// command's peak RSS and CPU to resultPath (readLaunched reads them).
func measuredCommand(resultPath, bin string, args ...string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{launchArg, resultPath, bin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd, nil
}

// launchMeasured runs argv as its child, its standard streams this process's, writes the
// child's peak RSS (MiB) and CPU (seconds) to resultPath, and returns the child's exit code.
func launchMeasured(resultPath string, argv []string) int {
	if len(argv) == 0 {
		fmt.Fprintf(os.Stderr, "%s %s: no command to run\n", launchArg, resultPath)
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Run(); cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rss, cpu := usageOf(cmd.ProcessState)
	if err := os.WriteFile(resultPath, fmt.Appendf(nil, "%f %f\n", rss, cpu), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 1 // ended by a signal
}

// usageOf is an ended child's peak RSS (MiB) and CPU (s), as wait4 reported them.
func usageOf(ps *os.ProcessState) (rssMiB, cpu float64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0
	}
	return float64(ru.Maxrss) / 1024, time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// readLaunched reads what launchMeasured wrote: the command's peak RSS (MiB) and CPU (s).
func readLaunched(resultPath string) (rssMiB, cpu float64, err error) {
	b, err := os.ReadFile(resultPath)
	if err != nil {
		return 0, 0, err
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 {
		return 0, 0, fmt.Errorf("%s: want two figures, RSS and CPU, got %q", resultPath, b)
	}
	if rssMiB, err = strconv.ParseFloat(fields[0], 64); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", resultPath, err)
	}
	if cpu, err = strconv.ParseFloat(fields[1], 64); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", resultPath, err)
	}
	return rssMiB, cpu, nil
}
