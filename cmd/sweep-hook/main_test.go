package main

import (
	"bytes"
	"crypto/rand"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/hook"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

var binary string

// testUID is this package's test identity for the verifier stage, which kills every process
// of it: no other package's tests use it.
const testUID = "65544"

func TestMain(m *testing.M) { sweeptest.MainWithHook(m, ".", &binary) }

func TestBinaryIsStatic(t *testing.T) {
	f, err := elf.Open(binary)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Fatalf("sweep-hook has a %v program header: it is not static", p.Type)
		}
	}
}

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bin")
	if out, err := exec.Command(binary, "install", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "sweep-hook"))
	want, _ := os.ReadFile(binary)
	st, err := os.Stat(filepath.Join(dir, "sweep-hook"))
	if err != nil || !bytes.Equal(got, want) || st.Mode().Perm() != 0o755 {
		t.Fatalf("installed copy differs or is not executable: %v", err)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage:"},
		{[]string{"dance"}, 2, "usage:"},
		{[]string{"install"}, 1, "install takes one directory"},
		{[]string{"install", "/proc/nope"}, 1, "sweep-hook install:"},
		{[]string{"install-bundle", "/x"}, 1, "install-bundle takes a source and a destination"},
		{[]string{"install-bundle", "/nonexistent", "OUT"}, 1, "agent bundle: stat /nonexistent"},
		{[]string{"agent", "-root", "/nonexistent"}, 1, "stage spec: open /nonexistent/sweep/spec/stage.json"},
		{[]string{"agent", "-bogus"}, 1, "flag provided but not defined"},
		{[]string{"grade", "magic", "/x"}, 2, "usage:"},
		{[]string{"grade", "magic", "/x"}, 2, `sweep-hook grade: unknown grader "magic": use one of `},
		{[]string{"grade", "test-script", "/x"}, 2, "test-script is not a built-in grader"},
		{[]string{"grade", "swebench", "/x", "-bugs", "b1"}, 2, "flag provided but not defined: -bugs"},
		{[]string{"grade", "swebench"}, 2, "usage:"},
		{[]string{"grade", "swebench", "/x", "-nope"}, 2, "flag provided but not defined"},
		{[]string{"grade", "swebench", "/nonexistent", "-out", "OUT"}, 1, "sweep-hook grade swebench: read instances"},
		{[]string{"grade", "swesweep", "/x", "-nope"}, 2, "flag provided but not defined"},
		{[]string{"grade", "swesweep", "/nonexistent", "-out", "OUT"}, 1, "bundle.json: no such file"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := t.TempDir()
			for i, a := range tc.args {
				if a == "OUT" {
					tc.args[i] = out
				}
			}
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

// pod is a Pod's file system under a temp root, driven through the real binary.
type pod struct {
	t    testing.TB
	root string
	hook.Paths
}

func newPod(t testing.TB, files map[string]string) pod {
	root := t.TempDir()
	p := pod{t: t, root: root, Paths: hook.RootedPaths(root)}
	sweeptest.WriteFiles(t, root, files)
	if err := os.MkdirAll(filepath.Join(root, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// withSpec writes the stage spec, which may name the pod's own paths.
func (p pod) withSpec(spec pc.StageSpec) pod {
	b, _ := json.Marshal(spec)
	sweeptest.WriteFiles(p.t, p.root, map[string]string{"sweep/spec/stage.json": string(b)})
	return p
}

func (p pod) start(stage string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(binary, append([]string{stage, "-root", p.root}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	return cmd, &out
}

func (p pod) run(stage string, args ...string) []byte {
	cmd, out := p.start(stage, args...)
	if err := cmd.Wait(); err != nil {
		p.t.Fatalf("sweep-hook %s: %v\n%s", stage, err, out)
	}
	return out.Bytes()
}

// harvest decodes the collector's report as the controller does.
func (p pod) harvest(stdout []byte) (pc.Summary, map[string][]byte) {
	msg, err := os.ReadFile(p.TerminationLog)
	if err != nil {
		p.t.Fatal(err)
	}
	s, err := pc.DecodeSummary(string(msg))
	if err != nil {
		p.t.Fatal(err)
	}
	var outputs map[string][]byte
	if s.Streamed {
		outputs, err = pc.DecodeStream(bytes.NewReader(stdout), s, pc.DefaultLimits())
	} else {
		outputs, err = s.InlineOutputs()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return s, outputs
}

// TestTrialThroughTheBinary runs a trial as the Pods would: the patch agent and its collector,
// then the verifier with the harvested patch and its collector, graded by the built-in grader.
func TestTrialThroughTheBinary(t *testing.T) {
	pytest := sweeptest.Pytest(t)
	repo := sweeptest.GitRepo(t, map[string]string{"tests/__init__.py": "", "m.py": "def f():\n    return 1\n",
		"tests/test_v.py": "from m import f\n\ndef test_v():\n    assert f() in (1, 2)\n"}, "baseline")
	sweeptest.WriteFiles(t, repo, map[string]string{"tests/test_h.py": "from m import f\n\ndef test_h():\n    assert f() == 2\n"})
	testPatch := sweeptest.Diff(t, repo, "baseline")
	sweeptest.WriteFiles(t, repo, map[string]string{"m.py": "def f():\n    return 2\n"})
	agentPatch := sweeptest.Diff(t, repo, "baseline")

	agentPod := newPod(t, map[string]string{"sweep/input/agent.patch": agentPatch})
	agentPod.withSpec(pc.StageSpec{Stage: pc.StageAgent, Workdir: repo, TimeoutSeconds: 60, BaseRef: "baseline",
		Agent: &pc.AgentSpec{Kind: agentkind.Patch}, Artifacts: []pc.Artifact{{Path: agentPod.Patch, Key: pc.PatchKey}}})
	agentPod.run("agent")
	s, outputs := agentPod.harvest(agentPod.run("collect"))
	if !s.Done || s.Reason != "" || !strings.Contains(string(outputs[pc.PatchKey]), "+    return 2") {
		t.Fatalf("agent summary %+v outputs %q", s, outputs)
	}

	bundle := `{"schema": "sweep-bundle/1", "base_ref": "baseline", "base_tests": "base.json",
  "visible": {"command": "` + pytest + ` -rA -p no:cacheprovider tests", "format": "pytest"},
  "bug_tests": {"command": "` + pytest + ` -rA -p no:cacheprovider {tests}", "format": "pytest"},
  "bugs": [{"id": "b1", "test_patch": "b1.patch", "fail_to_pass": ["tests/test_h.py::test_h"]}]}`
	sweeptest.Run(t, repo, "git", "reset", "-q", "--hard", "baseline") // a fresh verifier image
	verifyPod := newPod(t, map[string]string{"sweep/input/model.patch": string(outputs[pc.PatchKey]),
		"tests/bundle.json": bundle, "tests/base.json": `["tests/test_v.py::test_v"]`, "tests/b1.patch": testPatch})
	verifyPod.withSpec(pc.StageSpec{Stage: pc.StageVerifier, Workdir: repo, TimeoutSeconds: 120,
		Artifacts: []pc.Artifact{{Path: verifyPod.Patch, Key: pc.PatchKey}},
		Verifier:  &pc.VerifierSpec{Grader: pc.GraderSWESweep, GraderDir: verifyPod.Tests}})
	verifyPod.run("verify", "-test-uid", testUID)
	s, outputs = verifyPod.harvest(verifyPod.run("collect"))
	if s.Reason != "" || s.Rewards["reward"] != 1 || s.Rewards["n_resolved"] != 1 {
		t.Fatalf("verifier summary %+v\n%s", s, outputs[pc.RecordTestStdout])
	}
	var ev map[string]any
	if err := json.Unmarshal(outputs[pc.RecordEval], &ev); err != nil || ev["schema"] != "sweep-eval/1" {
		t.Fatalf("eval.json: %v %v", ev, err)
	}
}

func TestCollectorKilledMidStream(t *testing.T) {
	spec := pc.StageSpec{Stage: pc.StageAgent, Limits: pc.Limits{MaxRecordBytes: 8 << 20, MaxStreamBytes: 16 << 20}}
	p := newPod(t, nil).withSpec(spec)
	noise := make([]byte, 4<<20)
	rand.Read(noise)
	sweeptest.WriteFiles(t, p.root, map[string]string{"logs/agent/agent.log": string(noise), "sweep/run/done": `{"stage": "agent"}`})
	cmd := exec.Command(binary, "collect", "-root", p.root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 256<<10)
	if _, err := io.ReadFull(stdout, head); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(stdout)
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) {
		t.Fatalf("wait after the kill = %v, want the kill's exit status", err)
	}
	msg, err := os.ReadFile(p.TerminationLog)
	if err != nil {
		t.Fatal(err)
	}
	s, err := pc.DecodeSummary(string(msg))
	if err != nil || !s.Streamed {
		t.Fatalf("summary %+v, %v", s, err)
	}
	got, err := pc.DecodeStream(io.MultiReader(bytes.NewReader(head), bytes.NewReader(rest)), s, spec.Limits)
	if err == nil || got != nil {
		t.Fatalf("a cut stream was accepted: %d records, error %v", len(got), err)
	}
}

func TestSIGTERM(t *testing.T) {
	t.Run("collector before done", func(t *testing.T) {
		p := newPod(t, map[string]string{"logs/verifier/test-stdout.txt": "partial"}).withSpec(pc.StageSpec{Stage: pc.StageVerifier})
		cmd, out := p.start("collect")
		time.Sleep(300 * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		s, outputs := p.harvest(out.Bytes())
		if s.Done || s.Reason != reasons.CollectorInterrupted || string(outputs[pc.RecordTestStdout]) != "partial" {
			t.Fatalf("summary %+v outputs %q", s, outputs)
		}
	})
	t.Run("collector reports once the stage's process has ended, then ends", func(t *testing.T) {
		p := newPod(t, map[string]string{"sweep/run/done": `{"stage": "agent"}`}).withSpec(pc.StageSpec{Stage: pc.StageAgent})
		// The stage's sweep-hook holds the stage lock while it runs; here the test does.
		stage, err := hook.HoldStageLock(p.StageLock)
		if err != nil {
			t.Fatal(err)
		}
		cmd, out := p.start("collect")
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			t.Fatalf("the collector ended while the stage ran (%v): a native sidecar would be restarted", err)
		case <-time.After(500 * time.Millisecond):
		}
		if msg := readOrEmpty(p.TerminationLog); msg != "" {
			t.Fatalf("the collector reported while the stage ran: %s", msg)
		}
		if err := stage.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-exited:
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the collector did not end after the stage's process did")
		}
		if s, _ := p.harvest(out.Bytes()); !s.Done {
			t.Errorf("summary %+v", s)
		}
	})
	t.Run("agent stage ends its tree", func(t *testing.T) {
		spec := pc.StageSpec{Stage: pc.StageAgent, Workdir: t.TempDir(), GraceSeconds: 0.2,
			Agent: &pc.AgentSpec{Kind: agentkind.External, Command: []string{"sh", "-c", "(setsid sleep 300 &); echo up; sleep 300"},
				Env: map[string]string{"SIGTERM_TEST": t.TempDir()}}}
		p := newPod(t, nil).withSpec(spec)
		cmd, out := p.start("agent")
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(readOrEmpty(p.AgentLog), "up"); {
			if time.Now().After(deadline) {
				t.Fatal("the agent did not start")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		d, err := hook.ReadDone(p.Done)
		if err != nil || d.Reason != reasons.AgentTimeout || d.Message != "agent terminated" {
			t.Fatalf("done %+v, %v", d, err)
		}
		// The stage's children are gone with it, the setsid daemon too.
		if alive("SIGTERM_TEST=" + spec.Agent.Env["SIGTERM_TEST"]) {
			t.Error("a process of the agent is still alive")
		}
	})
}

func readOrEmpty(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// alive reports whether a live process has tag in its environment.
func alive(tag string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if bytes.Contains(env, []byte(tag)) && !bytes.Contains(stat, []byte(") Z")) {
			return true
		}
	}
	return false
}
