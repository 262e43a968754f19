package hook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// selfBinary is sweep-hook built once for the tests that run built-in graders.
var selfBinary string

// testIdentity is this package's test identity: sandbox.Reap kills every process of it, so no
// other package's tests use it.
var testIdentity = sandbox.Identity{UID: 65543, GID: 65543}

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeGraderEnv); ok {
		os.Exit(fakeGrader(mode, os.Args[1:]))
	}
	sweeptest.MainWithHook(m, "../../cmd/sweep-hook", &selfBinary)
}

// podRoot makes a root with the Pod's directories and files (path under root → content).
func podRoot(t *testing.T, files map[string]string) Paths {
	t.Helper()
	root := t.TempDir()
	sweeptest.WriteFiles(t, root, files)
	if err := os.MkdirAll(filepath.Join(root, "dev"), 0o755); err != nil { // the kubelet provides /dev/termination-log
		t.Fatal(err)
	}
	return RootedPaths(root)
}

func agentSpec(workdir string, paths Paths, agent pc.AgentSpec) pc.StageSpec {
	return pc.StageSpec{Stage: pc.StageAgent, Task: "t", Trial: "tr", Workdir: workdir, TimeoutSeconds: 30,
		GraceSeconds: 0.5, Agent: &agent, Artifacts: []pc.Artifact{{Path: paths.Patch, Key: pc.PatchKey}}}
}

// liveWithEnv lists live processes whose environment contains tag.
func liveWithEnv(tag string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if bytes.Contains(env, []byte(tag)) {
			out = append(out, e.Name())
		}
	}
	return out
}

var repoFiles = map[string]string{"src/a.py": "x = 1\n", "tests/test_a.py": "def test_a(): pass\n", "old.txt": "old\n"}

// patchFrom returns a patch of the given edits ("" deletes a file) against a copy of repoFiles.
func patchFrom(t *testing.T, edits map[string]string) string {
	repo := sweeptest.GitRepo(t, repoFiles, "base")
	for p, c := range edits {
		if c == "" {
			if err := os.Remove(filepath.Join(repo, p)); err != nil {
				t.Fatal(err)
			}
		} else {
			sweeptest.WriteFiles(t, repo, map[string]string{p: c})
		}
	}
	return sweeptest.Diff(t, repo, "base")
}

func TestAgentStage(t *testing.T) {
	binary := string([]byte{0, 1, 2, 3, 0xff, 0, '\n', 9})
	goodPatch := func(t *testing.T) string {
		return patchFrom(t, map[string]string{"src/a.py": "x = 2\n", "img.bin": binary, "old.txt": "", "new.txt": "new\n"})
	}
	for _, tc := range []struct {
		name       string
		agent      pc.AgentSpec
		files      func(t *testing.T) map[string]string // under the Pod root
		timeout    float64
		collect    []pc.CollectHook
		wantReason string
		wantMsg    string
		wantExit   int
		wantPatch  []string // substrings of the collected patch; nil: no patch file
		check      func(t *testing.T, d Done, paths Paths, workdir string)
	}{
		{name: "binary patch that deletes and adds files", agent: pc.AgentSpec{Kind: agentkind.Patch},
			files: func(t *testing.T) map[string]string {
				return map[string]string{"sweep/input/agent.patch": goodPatch(t)}
			},
			wantPatch: []string{"GIT binary patch", "deleted file mode", "new file mode", "+x = 2"},
			check: func(t *testing.T, d Done, paths Paths, workdir string) {
				if got := sweeptest.ReadFile(t, filepath.Join(workdir, "img.bin")); got != binary {
					t.Errorf("img.bin = %q", got)
				}
			}},
		{name: "patch that does not apply", agent: pc.AgentSpec{Kind: agentkind.Patch},
			files: func(t *testing.T) map[string]string {
				return map[string]string{"sweep/input/agent.patch": strings.ReplaceAll(goodPatch(t), "-x = 1", "-x = 7")}
			},
			wantReason: reasons.PatchApplyFailed, wantMsg: "agent.patch does not apply: error: patch failed: src/a.py:1", wantExit: 1,
			wantPatch: []string{}},
		{name: "patch file missing", agent: pc.AgentSpec{Kind: agentkind.Patch},
			wantReason: reasons.AgentFailed, wantMsg: "patch: stat", wantExit: -1, wantPatch: []string{}},
		{name: "nop", agent: pc.AgentSpec{Kind: agentkind.Nop}, wantPatch: []string{}},
		{name: "oracle patches in lexical order", agent: pc.AgentSpec{Kind: agentkind.Oracle},
			files: func(t *testing.T) map[string]string {
				return map[string]string{
					"sweep/solution/1.patch": patchFrom(t, map[string]string{"src/a.py": "x = 2\n"}),
					"sweep/solution/2.patch": strings.ReplaceAll(patchFrom(t, map[string]string{"src/a.py": "x = 3\n"}), "-x = 1", "-x = 2"),
				}
			},
			wantPatch: []string{"+x = 3"}},
		{name: "oracle solve.sh", agent: pc.AgentSpec{Kind: agentkind.Oracle},
			files: func(t *testing.T) map[string]string {
				return map[string]string{"sweep/solution/solve.sh": "echo 'x = 5' > src/a.py\n", "sweep/solution/ignored.patch": "junk"}
			},
			wantPatch: []string{"+x = 5"}},
		{name: "oracle without solution", agent: pc.AgentSpec{Kind: agentkind.Oracle},
			wantReason: reasons.AgentFailed, wantMsg: "has neither solve.sh nor *.patch", wantExit: -1, wantPatch: []string{}},
		{name: "external agent with instruction and env", files: func(t *testing.T) map[string]string {
			return map[string]string{"sweep/task/instruction.md": "fix it\n"}
		}, agent: pc.AgentSpec{Kind: agentkind.External, Command: []string{"sh", "-c"},
			Args: []string{`cp "$SWEEP_INSTRUCTION" got.md && echo "$MODEL" > model.txt && exit 3`}, Env: map[string]string{"MODEL": "m1"}},
			wantReason: reasons.AgentFailed, wantMsg: "agent: exit code 3", wantExit: 3,
			wantPatch: []string{"+fix it", "+m1"}},
		{name: "command not found", agent: pc.AgentSpec{Kind: agentkind.External, Command: []string{"/no/such/agent"}},
			wantReason: reasons.AgentFailed, wantMsg: "no such file", wantExit: -1, wantPatch: []string{}},
		{name: "empty command", agent: pc.AgentSpec{Kind: agentkind.External},
			wantReason: reasons.AgentFailed, wantMsg: "external agent has no command", wantExit: -1, wantPatch: []string{}},
		{name: "unknown kind", agent: pc.AgentSpec{Kind: "magic"},
			wantReason: reasons.AgentFailed, wantMsg: `unknown agent kind "magic"`, wantExit: -1, wantPatch: []string{}},
		{name: "agent that forks a daemon and times out; work so far is collected",
			agent: pc.AgentSpec{Kind: agentkind.External, Command: []string{"sh", "-c",
				`echo partial > work.txt; (setsid sh -c 'sleep 300' &); sleep 300 & trap "" TERM; sleep 300`}},
			timeout: 0.5, wantReason: reasons.AgentTimeout, wantMsg: "agent timed out", wantExit: -1,
			wantPatch: []string{"+partial"}},
		{name: "huge output is capped", agent: pc.AgentSpec{Kind: agentkind.External, Command: []string{"sh", "-c",
			`i=0; while [ $i -lt 3000 ]; do echo "line $i of output that goes on and on"; i=$((i+1)); done`}},
			wantPatch: []string{},
			check: func(t *testing.T, d Done, paths Paths, _ string) {
				info := d.Logs[pc.RecordAgentLog]
				log := sweeptest.ReadFile(t, paths.AgentLog)
				if !info.Truncated || info.OriginalSize < 100000 || len(log) > 20000 {
					t.Errorf("log info %+v, log size %d", info, len(log))
				}
				if !strings.Contains(log, "line 0 of") || !strings.Contains(log, "line 2999 of") || !strings.Contains(log, "bytes of output omitted") {
					t.Errorf("capped log lacks its head, tail or marker")
				}
			}},
		{name: "collect hooks are best-effort", agent: pc.AgentSpec{Kind: agentkind.Nop},
			collect: []pc.CollectHook{
				{Command: "echo broken; exit 4", TimeoutSeconds: 5},
				{Command: "sleep 30", TimeoutSeconds: 0.3},
				{Command: "true", User: "no-such-user-here"},
				{Command: "mkdir -p $(dirname $PATCH_OUT) && echo custom > $PATCH_OUT", TimeoutSeconds: 5},
			},
			wantPatch: []string{"custom"},
			check: func(t *testing.T, d Done, _ Paths, _ string) {
				if len(d.Hooks) != 4 || d.Hooks[0].ExitCode != 4 || !d.Hooks[1].TimedOut ||
					!strings.Contains(d.Hooks[2].Error, "no-such-user-here") || d.Hooks[3].Error != "" {
					t.Errorf("hooks = %+v", d.Hooks)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tag := "SWEEP_HOOK_TEST=" + strconv.Itoa(os.Getpid()) + tc.name
			t.Setenv("SWEEP_HOOK_TEST", strconv.Itoa(os.Getpid())+tc.name)
			files := map[string]string{}
			if tc.files != nil {
				files = tc.files(t)
			}
			paths := podRoot(t, files)
			t.Setenv("PATCH_OUT", paths.Patch)
			workdir := sweeptest.GitRepo(t, repoFiles, "")
			spec := agentSpec(workdir, paths, tc.agent)
			spec.Collect = tc.collect
			spec.Limits.MaxLogBytes = 16 << 10
			if tc.timeout > 0 {
				spec.TimeoutSeconds = tc.timeout
			}
			d, err := RunAgent(context.Background(), spec, paths)
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tc.wantReason || !strings.Contains(d.Message, tc.wantMsg) || d.ExitCode != tc.wantExit {
				t.Errorf("done = reason %q message %q exit %d; want %q, %q, %d", d.Reason, d.Message, d.ExitCode, tc.wantReason, tc.wantMsg, tc.wantExit)
			}
			fromFile, err := ReadDone(paths.Done)
			if err != nil || fromFile.Reason != d.Reason || fromFile.FinishedAt.IsZero() || fromFile.Timings["agent"] <= 0 {
				t.Errorf("done file = %+v, %v", fromFile, err)
			}
			patch, err := os.ReadFile(paths.Patch)
			if tc.wantPatch == nil != os.IsNotExist(err) {
				t.Errorf("patch file: %v", err)
			}
			for _, want := range tc.wantPatch {
				if !strings.Contains(string(patch), want) {
					t.Errorf("patch lacks %q:\n%s", want, patch)
				}
			}
			if left := liveWithEnv(tag); len(left) > 0 {
				t.Errorf("processes left alive: %v", left)
			}
			if tc.check != nil {
				tc.check(t, d, paths, workdir)
			}
		})
	}
}

func TestAgentStageOutsideGit(t *testing.T) {
	paths := podRoot(t, nil)
	d, err := RunAgent(context.Background(), agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop}), paths)
	if err != nil || len(d.Hooks) != 0 {
		t.Fatalf("done = %+v, %v", d, err)
	}
	if _, err := os.Stat(paths.Patch); !os.IsNotExist(err) {
		t.Errorf("a patch was collected outside a git repository: %v", err)
	}
}

func TestCollectHookRunsAsUser(t *testing.T) {
	// Not t.TempDir(): its parent is private to root, and the hook's user must enter it.
	out, err := os.MkdirTemp("", "hook-user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(out); err != nil {
			t.Error(err)
		}
	})
	if err := os.Chmod(out, 0o777); err != nil {
		t.Fatal(err)
	}
	paths := podRoot(t, nil)
	spec := agentSpec(out, paths, pc.AgentSpec{Kind: agentkind.Nop})
	spec.Collect = []pc.CollectHook{{Command: "id -u > uid.txt", User: "nobody", TimeoutSeconds: 10}}
	d, err := RunAgent(context.Background(), spec, paths)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 { // only root may switch users; anyone else gets a recorded failure
		if len(d.Hooks) != 1 || !strings.Contains(d.Hooks[0].Error, "operation not permitted") {
			t.Fatalf("hooks = %+v", d.Hooks)
		}
		return
	}
	if len(d.Hooks) != 1 || d.Hooks[0].Error != "" {
		t.Fatalf("hooks = %+v", d.Hooks)
	}
	if got := strings.TrimSpace(sweeptest.ReadFile(t, filepath.Join(out, "uid.txt"))); got != "65534" {
		t.Errorf("hook ran as uid %s, want nobody (65534)", got)
	}
}

func TestDefaultCollectionBase(t *testing.T) {
	for _, tc := range []struct {
		name, baseRef string
		want          []string // in the patch
	}{
		// The agent commits its first change; the base ref still covers it.
		{"base ref", "base", []string{"-x = 1", "+x = 3"}},
		// No such tag in this repository: the commit checked out before the agent is the base.
		{"missing base ref", "baseline", []string{"-x = 2", "+x = 3"}},
		{"no base ref", "", []string{"-x = 2", "+x = 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			workdir := sweeptest.GitRepo(t, repoFiles, "base")
			sweeptest.WriteFiles(t, workdir, map[string]string{"src/a.py": "x = 2\n"})
			sweeptest.Run(t, workdir, "git", "commit", "-qam", "before the agent")
			paths := podRoot(t, nil)
			spec := agentSpec(workdir, paths, pc.AgentSpec{Kind: agentkind.External, Command: []string{"sh", "-c",
				`echo 'x = 3' > src/a.py && git -c user.name=a -c user.email=a@a commit -qam agent`}})
			spec.BaseRef = tc.baseRef
			if _, err := RunAgent(context.Background(), spec, paths); err != nil {
				t.Fatal(err)
			}
			patch := sweeptest.ReadFile(t, paths.Patch)
			for _, w := range tc.want {
				if !strings.Contains(patch, w) {
					t.Errorf("patch lacks %q:\n%s", w, patch)
				}
			}
		})
	}
}
