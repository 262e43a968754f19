package hook

import (
	"context"
	"os"
	"path/filepath"
	"time"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// Timeouts of collection steps that declare none (Harbor's default for collect hooks).
const defaultHookTimeout = 60 * time.Second

// collect runs the task's collect hooks in order, each with its own timeout, best-effort: a
// failing hook is recorded and the next one runs. A task without hooks whose workdir is a git
// work tree gets its changes against base collected as a binary patch at paths.Patch.
func collect(ctx context.Context, spec pc.StageSpec, paths Paths, log *cappedLog, env []string, base string) []HookResult {
	r := &runner{dir: spec.Workdir, env: env, log: log, grace: durationOf(spec.GraceSeconds)}
	var results []HookResult
	for i, h := range spec.Collect {
		log.Printf("collect hook %d: %s", i+1, h.Command)
		res := HookResult{Command: h.Command}
		timeout := durationOf(h.TimeoutSeconds)
		if timeout <= 0 {
			timeout = defaultHookTimeout
		}
		start := time.Now()
		cred, err := credential(h.User)
		if err != nil {
			res.ExitCode, res.Error = -1, err.Error()
		} else {
			o := r.run(ctx, step{timeout: timeout, cred: cred}, "sh", "-c", h.Command)
			res.ExitCode, res.TimedOut = o.ExitCode, o.TimedOut
			if !o.ok() {
				res.Error = o.describe()
			}
		}
		res.Seconds = seconds(start, time.Now())
		if res.Error != "" {
			log.Printf("collect hook %d failed (%s); going on", i+1, res.Error)
		}
		results = append(results, res)
	}
	if len(spec.Collect) == 0 && base != "" {
		results = append(results, collectGitDiff(ctx, r, paths.Patch, base))
	}
	return results
}

// collectGitDiff stages everything (new and deleted files too) and writes the binary diff
// against base to patchPath.
func collectGitDiff(ctx context.Context, r *runner, patchPath, base string) HookResult {
	res := HookResult{Command: "git add -A && git diff --cached --binary " + base + " > " + patchPath}
	start := time.Now()
	defer func() { res.Seconds = seconds(start, time.Now()) }()
	fail := func(msg string) HookResult {
		res.Error = msg
		r.log.Printf("default collection failed: %s", msg)
		return res
	}
	if err := os.MkdirAll(filepath.Dir(patchPath), 0o755); err != nil {
		return fail(err.Error())
	}
	if o := r.run(ctx, step{timeout: 15 * time.Minute}, "git", "add", "-A"); !o.ok() {
		res.ExitCode, res.TimedOut = o.ExitCode, o.TimedOut
		return fail("git add: " + o.describe())
	}
	f, err := os.Create(patchPath)
	if err != nil {
		return fail(err.Error())
	}
	o := r.run(ctx, step{timeout: 15 * time.Minute, out: f}, "git", "diff", "--cached", "--binary", base)
	if err := f.Close(); err != nil && o.ok() {
		return fail(err.Error())
	}
	res.ExitCode, res.TimedOut = o.ExitCode, o.TimedOut
	if !o.ok() {
		return fail("git diff: " + o.describe())
	}
	return res
}
