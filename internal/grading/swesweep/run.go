package swesweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/grading/pytestreport"
	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// maxSuiteOutput bounds the scratch copy of a suite's output that its results are read from:
// a suite that floods its output must not fill the grader's disk.
const maxSuiteOutput = 64 << 20

// headWriter writes the first left bytes to w and drops the rest without an error, so that
// the command writing keeps running as it would.
type headWriter struct {
	w    io.Writer
	left int64
}

func (h *headWriter) Write(p []byte) (int, error) {
	n := int64(len(p))
	if keep := min(n, h.left); keep > 0 {
		if _, err := h.w.Write(p[:keep]); err != nil {
			return 0, err
		}
		h.left -= keep
	}
	return int(n), nil
}

// suite runs a test command and reads its results. A pytest suite's results come from the
// grader's own plugin (internal/grading/pytestreport), and only from a session that reached
// its end; other formats are read from the output or the report file. Results that cannot be
// read count as no results (every expected test missing), not as a grader failure: the
// agent's change may be what broke the report.
func (g *grader) suite(ctx context.Context, s Suite, command string, defaultSec float64) (*SuiteReport, testresults.Results, error) {
	out, err := os.CreateTemp(g.scratch, "suite-*.log")
	if err != nil {
		return nil, nil, err
	}
	// A scratch copy of the output, read back below and then thrown away: neither its close
	// nor its removal can change the grade.
	defer func() { _ = os.Remove(out.Name()) }()
	defer func() { _ = out.Close() }()
	root, err := os.OpenRoot(g.repo.Dir)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = root.Close() }() // opened to read and remove in
	// Never read a stale report: one that cannot be removed counts as unreadable.
	var stale error
	if s.Report != "" {
		if err := root.Remove(filepath.FromSlash(s.Report)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			stale = fmt.Errorf("cannot remove the previous report: %w", err)
		}
	}
	var channel *pytestreport.Channel
	if s.Format == testresults.FormatPytest {
		if channel, err = pytestreport.Open(g.pluginDir); err != nil {
			return nil, nil, err
		}
	}
	var withEnv func([]string) []string
	var extra []*os.File
	if channel != nil {
		withEnv, extra = channel.Env, channel.ExtraFiles()
	}
	limit := g.limit(s.TimeoutSec, defaultSec)
	step, err := g.shell(ctx, command, limit, io.MultiWriter(g.o.Log, &headWriter{w: out, left: maxSuiteOutput}), withEnv, extra)
	rep := &SuiteReport{StepReport: step, Counts: map[testresults.Status]int{}}
	if err != nil {
		if channel != nil {
			_, _, _ = channel.Results() // closes the pipe; the grading has failed
		}
		return nil, nil, err
	}
	if rep.Canceled || rep.StartError != "" {
		if channel != nil {
			_, _, _ = channel.Results() // closes the pipe; the run is not a measurement
		}
		if rep.Canceled {
			return nil, nil, errCanceled
		}
		return nil, nil, notStarted(rep.StepReport)
	}
	var res testresults.Results
	switch {
	case channel != nil:
		res, rep.ParseError = pluginResults(channel)
	case stale != nil:
		rep.ParseError = stale.Error()
	default:
		res, rep.ParseError = g.readResults(root, s, out)
	}
	if res == nil {
		res = testresults.Results{}
	}
	rep.NTests = len(res)
	for _, st := range res {
		rep.Counts[st]++
	}
	return rep, res, nil
}

// pluginResults are a pytest run's results from the grader's plugin, or why there are none.
func pluginResults(ch *pytestreport.Channel) (testresults.Results, string) {
	res, complete, err := ch.Results()
	switch {
	case err != nil:
		return nil, err.Error()
	case !complete:
		return nil, "the pytest session did not reach its end (no end-of-session record from the grader's plugin): no result counts"
	}
	return res, ""
}

// readResults reads a suite's results from its report file (opened inside the tree, never
// through a symlink that leaves it) or from its output.
func (g *grader) readResults(root *os.Root, s Suite, out *os.File) (testresults.Results, string) {
	var src io.Reader = out
	if s.Report != "" {
		// Non-blocking: a fifo planted where the report goes must not hold the grader.
		f, err := root.OpenFile(filepath.FromSlash(s.Report), os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, err.Error()
		}
		defer func() { _ = f.Close() }() // read-only: its close has nothing to report
		if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
			return nil, fmt.Sprintf("the report %s is not a regular file", s.Report)
		}
		src = f
	} else if _, err := out.Seek(0, io.SeekStart); err != nil {
		return nil, err.Error()
	}
	res, err := testresults.Read(s.Format, src)
	if err != nil {
		return nil, err.Error()
	}
	return res, ""
}

// shell runs command with sh in the workdir as the test identity, as a process tree under
// limit, in the hardened environment; withEnv (when not nil) adds a result channel's
// variables. Once every process of the step is gone, the repository's .git is put back if the
// step replaced it. The error is the grader's: the .git could not be put back.
func (g *grader) shell(ctx context.Context, command string, limit time.Duration, out io.Writer, withEnv func([]string) []string, extra []*os.File) (StepReport, error) {
	fmt.Fprintf(g.o.Log, "[grader] $ %s\n", command)
	env := untrustedEnv(os.Environ(), g.bundle.buildJobs())
	if withEnv != nil {
		env = withEnv(env)
	}
	res := steps.RunUnderTimeout(ctx, steps.Command{Path: "sh", Args: []string{"-c", command}, Dir: g.repo.Dir,
		Env: env, Output: out, Timeout: limit, Grace: stepGrace, As: &g.o.TestUser, ExtraFiles: extra})
	rep := StepReport{Command: command, ExitCode: res.ExitCode, TimedOut: res.TimedOut, Canceled: res.Canceled,
		Seconds: steps.Seconds(res), LimitSec: limit.Seconds()}
	if res.StartErr != nil {
		rep.StartError = res.StartErr.Error()
		fmt.Fprintf(g.o.Log, "[grader] cannot run sh: %v\n", res.StartErr)
	}
	replaced, err := g.gitDir.Check()
	if err != nil {
		return rep, fmt.Errorf("after %q: %w", command, err)
	}
	if replaced {
		rep.GitDirReplaced = true
		fmt.Fprintf(g.o.Log, "[grader] %q replaced the repository's .git: the original is back\n", command)
	}
	return rep, nil
}

// untrustedEnv is the environment of the build and the suites: the grader's, with pytest's
// plugin autoload off (a *.dist-info entry point in the tree would otherwise load a plugin),
// no user site directory (the test identity's home is writable by the code under test, and a
// .pth or usercustomize there would run before pytest), and no bytecode written into the tree.
// None of these changes what a legitimate suite reports. PYTHONSAFEPATH is not set: the
// bundles' builds and suites import the project from the current directory; the guard keeps
// that directory free of shadowing modules instead. BuildJobsEnv is the bundle's build_jobs,
// as SWE-sweep exports it to its builds.
func untrustedEnv(env []string, buildJobs int) []string {
	set := map[string]string{"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1",
		BuildJobsEnv: strconv.Itoa(buildJobs)}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); set[k] == "" {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}

// notStarted: a step that could not be run as the test identity (or whose processes could
// not all be ended) measured nothing about the patch.
func notStarted(r StepReport) error {
	return fmt.Errorf("cannot run %q as the test identity: %s", r.Command, r.StartError)
}

func describe(r StepReport) string {
	if r.TimedOut {
		return "timed out"
	}
	return fmt.Sprintf("exited with %d", r.ExitCode)
}
