package taskdef

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/taskdef/taskdeftest"
)

// TestLoadSWESweepCorpus runs over the testdata corpus, or the real one SWEEP_CORPUS names.
func TestLoadSWESweepCorpus(t *testing.T) {
	corpus := taskdeftest.Load(t)
	dirs, err := LoadDirs([]string{corpus.Dir})
	if err != nil {
		t.Fatalf("LoadDirs(%s): %v", corpus.Dir, err)
	}
	bugs := 0
	for _, d := range dirs {
		bugs += d.Task.Bugs
		task := d.Task
		if task.Verifier.EnvironmentMode != VerifierSeparate || task.Agent.NetworkMode != NetworkNone ||
			task.Verifier.NetworkMode != NetworkNone || task.Environment.NetworkMode != NetworkPublic {
			t.Errorf("%s: modes %+v %+v %+v", task.Name, task.Verifier.EnvironmentMode, task.Agent.NetworkMode, task.Environment.NetworkMode)
		}
		if len(task.Collect) != 1 || task.Collect[0].TimeoutSec != 900 || !strings.Contains(task.Collect[0].Command, "git diff --cached --binary baseline") {
			t.Errorf("%s: collect hooks %+v", task.Name, task.Collect)
		}
		if diff := cmp.Diff([]Artifact{{Source: "/logs/artifacts/model.patch"}}, task.Artifacts); diff != "" {
			t.Errorf("%s: artifacts (-want +got):\n%s", task.Name, diff)
		}
		if task.Environment.CPUs != 16 || task.Environment.MemoryMB != 65536 || task.Agent.TimeoutSec != 43200 {
			t.Errorf("%s: resources %+v agent %+v", task.Name, task.Environment, task.Agent)
		}
		if task.Verifier.TimeoutSec < 8700 || task.Verifier.TimeoutSec > 43200 {
			t.Errorf("%s: verifier timeout %v", task.Name, task.Verifier.TimeoutSec)
		}
	}
	if len(dirs) != corpus.Tasks || bugs != corpus.Bugs {
		t.Errorf("%s totals: got %d tasks and %d bugs, want %d and %d", corpus.Dir, len(dirs), bugs, corpus.Tasks, corpus.Bugs)
	}
}

func TestParseReadsFields(t *testing.T) {
	src := `
version = "1.0"
artifacts = ["/out/a.txt", {source = "/out/dir", destination = "d", exclude = ["*.tmp"]}]
[task]
name = "org/example"
[metadata]
n_subtasks = 3
[environment]
docker_image = "example:1"
workdir = "/repo"
cpus = 2.5
memory = "2G"
storage = "512M"
allow_internet = false
env = { A = "1", N = 2 }
[agent]
timeout_sec = 12.5
user = "agent"
[verifier]
timeout_sec = 30
env = { GRADER = "x" }
[verifier.environment]
cpus = 1
[[verifier.collect]]
command = "true"
`
	got, err := Parse("task.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Task{
		Name:          "org/example",
		SchemaVersion: "1.0",
		Artifacts:     []Artifact{{Source: "/out/a.txt"}, {Source: "/out/dir", Destination: "d", Exclude: []string{"*.tmp"}}},
		Metadata:      map[string]any{"n_subtasks": int64(3)},
		Bugs:          3,
		Environment: Environment{DockerImage: "example:1", Workdir: "/repo", CPUs: 2.5, MemoryMB: 2048, StorageMB: 512,
			BuildTimeoutSec: 600, NetworkMode: NetworkNone, Env: map[string]string{"A": "1", "N": "2"}},
		Agent: Stage{TimeoutSec: 12.5, User: "agent", NetworkMode: NetworkNone},
		Verifier: Verifier{
			Stage:           Stage{TimeoutSec: 30, NetworkMode: NetworkNone},
			Env:             map[string]string{"GRADER": "x"},
			EnvironmentMode: VerifierSeparate,
			Environment:     &Environment{CPUs: 1, BuildTimeoutSec: 600, NetworkMode: NetworkNone},
		},
		Collect: []CollectHook{{Command: "true", TimeoutSec: 60, Service: "main"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse (-want +got):\n%s", diff)
	}
}

func TestParseDefaults(t *testing.T) {
	got, err := Parse("task.toml", []byte(`name = "minimal"`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Agent.TimeoutSec != DefaultAgentTimeoutSec || got.Verifier.TimeoutSec != DefaultVerifierTimeoutSec ||
		got.Verifier.EnvironmentMode != VerifierShared || got.Environment.NetworkMode != NetworkPublic || got.Environment.CPUs != 1 {
		t.Errorf("defaults: %+v", got)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]struct {
		src  string
		want string
	}{
		"not toml":            {`name = `, `t/task.toml: not valid TOML: line 1`},
		"timeout string":      {"[agent]\ntimeout_sec = \"long\"", `t/task.toml: key "agent.timeout_sec": want a number, got string "long"`},
		"negative cpus":       {"[environment]\ncpus = -1", `key "environment.cpus": must not be negative`},
		"zero timeout":        {"[verifier]\ntimeout_sec = 0", `key "verifier.timeout_sec": must be greater than 0`},
		"bad network":         {"[agent]\nnetwork_mode = \"lan\"", `key "agent.network_mode": want one of no-network, public, allowlist, got "lan"`},
		"hosts without list":  {"[agent]\nallowed_hosts = [\"a.example\"]", `key "agent.allowed_hosts": only allowed with network_mode = "allowlist"`},
		"relative workdir":    {"[environment]\nworkdir = \"repo\"", `key "environment.workdir": must be an absolute path`},
		"shared with env":     {"[verifier]\nenvironment_mode = \"shared\"\n[verifier.environment]\ncpus = 1", `key "verifier.environment_mode": "shared" cannot have a [verifier.environment]`},
		"bad env mode":        {"[verifier]\nenvironment_mode = \"both\"", `key "verifier.environment_mode": want "shared" or "separate"`},
		"collect no command":  {"[[verifier.collect]]\ntimeout_sec = 5", `key "verifier.collect[0].command": is required`},
		"collect not array":   {"[verifier]\ncollect = \"x\"", `key "verifier.collect": want an array of tables`},
		"artifact relative":   {`artifacts = ["out.txt"]`, `key "artifacts[0]": must be an absolute path`},
		"artifact dotdot":     {`artifacts = ["/a/../etc"]`, `key "artifacts[0]": must not contain ".."`},
		"artifact number":     {`artifacts = [1]`, `key "artifacts[0]": want a path or a table`},
		"bugs fraction":       {"[metadata]\nn_subtasks = 1.5", `key "metadata.n_subtasks": want a whole number`},
		"bugs negative":       {"[metadata]\nn_subtasks = -2", `key "metadata.n_subtasks": must not be negative`},
		"bad size":            {"[environment]\nmemory = \"lots\"", `key "environment.memory": want a size such as "2G"`},
		"agent not table":     {`agent = 3`, `key "agent": want a table, got int64 3`},
		"env value table":     {"[environment.env]\nA = {b = 1}", `key "environment.env.A": want a string, got a table`},
		"allow_internet type": {"[environment]\nallow_internet = \"no\"", `key "environment.allow_internet": want true or false`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("t/task.toml", []byte(tc.src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadDirsErrors(t *testing.T) {
	empty := t.TempDir()
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "task.toml"), []byte("[agent]\ntimeout_sec = \"x\""), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		paths []string
		want  string
	}{
		"missing path": {[]string{filepath.Join(empty, "nope")}, "not a task directory or a folder of them"},
		"empty folder": {[]string{empty}, "no task.toml here or in its subdirectories"},
		"bad task":     {[]string{bad}, `task.toml: key "agent.timeout_sec": want a number`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := LoadDirs(tc.paths)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadDirs error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadDirNamesTaskAfterDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-task")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "task.toml"), []byte("[verifier]\nenvironment_mode = \"separate\""), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d.Task.Name != "my-task" || len(d.Warnings) != 2 {
		t.Errorf("LoadDir: name %q warnings %v", d.Task.Name, d.Warnings)
	}
}
