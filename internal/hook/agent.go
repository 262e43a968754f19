package hook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/proctree"
)

// RunAgent runs the agent stage: the agent under the stage timeout, then the collect hooks (or
// the default git collection), and writes the done file. It returns the done document.
func RunAgent(ctx context.Context, spec pc.StageSpec, paths Paths) (Done, error) {
	d := Done{Stage: pc.StageAgent, StartedAt: time.Now(), Timings: map[string]float64{}}
	limits := spec.Limits.WithDefaults()
	log, err := newCappedLog(paths.AgentLog, limits.MaxLogBytes, paths.LogEcho)
	if err != nil {
		return d, err
	}
	agent := spec.Agent
	if agent == nil {
		agent = &pc.AgentSpec{Kind: agentkind.Nop}
	}
	env := stageEnv(spec.Env, agent.Env, map[string]string{"SWEEP_INSTRUCTION": paths.Instruction, "SWEEP_USAGE_FILE": paths.Usage})
	r := newRunner(spec, log, env)

	// The base to diff against is fixed before the agent runs (the agent may commit): the
	// spec's base ref when the repository has it, else the commit checked out now.
	var base string
	if len(spec.Collect) == 0 {
		base = gitCommit(spec.Workdir, spec.BaseRef)
		if base == "" {
			base = gitCommit(spec.Workdir, "HEAD")
		}
	}

	log.Printf("agent %s starting in %s", agent.Kind, spec.Workdir)
	o := runAgent(ctx, r, agent, paths, &d)
	agentEnd := time.Now()
	d.Timings["agent"] = seconds(d.StartedAt, agentEnd)
	d.ExitCode = o.ExitCode
	if o.err != nil {
		d.ExitCode = -1
	}
	switch {
	case d.Reason != "": // set by runAgent
	case o.TimedOut || o.Canceled:
		d.Reason, d.Message = reasons.AgentTimeout, "agent "+o.describe()
	case !o.ok():
		d.Reason, d.Message = reasons.AgentFailed, "agent: "+o.describe()
	}
	log.Printf("agent finished: %s", o.describe())

	// Collection runs even after an agent failure or timeout: the work so far is graded. It
	// also runs after SIGTERM, bounded by the hooks' own timeouts, within the Pod's grace.
	d.Hooks = collect(context.WithoutCancel(ctx), spec, paths, log, env, base)
	d.Timings["collect"] = seconds(agentEnd, time.Now())

	info, err := log.Close()
	d.Logs = map[string]LogInfo{pc.RecordAgentLog: info}
	d.FinishedAt = time.Now()
	if werr := writeDone(paths.Done, d); werr != nil {
		return d, werr
	}
	return d, err
}

// runAgent runs the agent itself: the run mode of its kind. It sets d.Reason for failures that
// are not a plain exit code.
func runAgent(ctx context.Context, r *runner, agent *pc.AgentSpec, paths Paths, d *Done) outcome {
	kind, ok := agentkind.Lookup(agent.Kind)
	if !ok {
		return outcome{err: fmt.Errorf("unknown agent kind %q in the stage spec: want %s", agent.Kind, agentkind.Names())}
	}
	run, ok := agentRuns[kind.Run]
	if !ok {
		return outcome{err: fmt.Errorf("agent kind %q: this sweep-hook cannot run mode %q", kind.Name, kind.Run)}
	}
	return run(ctx, r, agent, paths, d)
}

// agentRuns runs each run mode of internal/agentkind.
var agentRuns = map[agentkind.RunMode]func(ctx context.Context, r *runner, agent *pc.AgentSpec, paths Paths, d *Done) outcome{
	agentkind.RunNothing: func(context.Context, *runner, *pc.AgentSpec, Paths, *Done) outcome { return outcome{} },
	agentkind.RunInputPatch: func(ctx context.Context, r *runner, _ *pc.AgentSpec, paths Paths, d *Done) outcome {
		return applyPatches(ctx, r, d, filepath.Join(paths.Input, pc.AgentPatchFile))
	},
	agentkind.RunSolution: runSolution,
	agentkind.RunCommand: func(ctx context.Context, r *runner, agent *pc.AgentSpec, _ Paths, _ *Done) outcome {
		argv := append(append([]string{}, agent.Command...), agent.Args...)
		if len(argv) == 0 {
			return outcome{err: fmt.Errorf("%s agent has no command", agent.Kind)}
		}
		return r.run(ctx, step{}, argv[0], argv[1:]...)
	},
}

// runSolution runs the solution's solve.sh, or else applies its patches in lexical order.
func runSolution(ctx context.Context, r *runner, _ *pc.AgentSpec, paths Paths, d *Done) outcome {
	solve := filepath.Join(paths.Solution, "solve.sh")
	if _, err := os.Stat(solve); err == nil {
		sh, err := proctree.Shell()
		if err != nil {
			return outcome{err: err}
		}
		return r.run(ctx, step{}, sh, solve)
	}
	patches, _ := filepath.Glob(filepath.Join(paths.Solution, "*.patch"))
	if len(patches) == 0 {
		return outcome{err: fmt.Errorf("solution %s has neither solve.sh nor *.patch", paths.Solution)}
	}
	sort.Strings(patches)
	return applyPatches(ctx, r, d, patches...)
}

// applyPatches applies each patch with git apply, stopping at the first that does not apply.
// A patch that does not apply is reported with git's own message.
func applyPatches(ctx context.Context, r *runner, d *Done, patches ...string) outcome {
	for _, p := range patches {
		if _, err := os.Stat(p); err != nil {
			return outcome{err: fmt.Errorf("patch: %w", err)}
		}
		var gitOut bytes.Buffer
		o := r.run(ctx, step{out: io.MultiWriter(r.log, &gitOut)}, "git", "apply", "--binary", "--whitespace=nowarn", p)
		if o.err == nil && !o.TimedOut && !o.Canceled && o.ExitCode != 0 {
			d.Reason = reasons.PatchApplyFailed
			d.Message = fmt.Sprintf("%s does not apply: %s", filepath.Base(p), strings.TrimSpace(gitOut.String()))
		}
		if !o.ok() {
			return o
		}
	}
	return outcome{}
}

// gitCommit resolves ref to a commit in dir, or returns "" when dir is not a git work tree
// or has no such ref.
func gitCommit(dir, ref string) string {
	if ref == "" {
		return ""
	}
	out, err := gitOutput(dir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
