package catalogue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// writeTask writes a task directory with name and the given files besides task.toml.
func writeTask(t *testing.T, root, name, toml string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	all := map[string]string{"task.toml": "name = \"" + name + "\"\n" + toml}
	for k, v := range files {
		all[k] = v
	}
	sweeptest.WriteFiles(t, dir, all)
	return dir
}

func load(t *testing.T, dir string) *taskdef.Dir {
	t.Helper()
	d, err := taskdef.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var buildable = map[string]string{
	"instruction.md":         "Fix the bugs.\n",
	"environment/Dockerfile": "FROM debian\n",
	"tests/Dockerfile":       "FROM debian\nCOPY . /tests\n",
	"tests/test.sh":          "#!/bin/sh\n",
}

func refs(t *testing.T, d *taskdef.Dir) []string {
	t.Helper()
	images, err := TaskImages(d, "reg.example/tasks/")
	if err != nil {
		t.Fatal(err)
	}
	return []string{images[0].Ref, images[1].Ref}
}

func TestTaskImagesContentAddressed(t *testing.T) {
	dir := writeTask(t, t.TempDir(), "swe-sweep__Demo", "[metadata]\nn_subtasks = 2\n", buildable)
	d := load(t, dir)
	first := refs(t, d)
	for i, prefix := range []string{"reg.example/tasks/swe-sweep--demo-env:", "reg.example/tasks/swe-sweep--demo-verifier:"} {
		if !strings.HasPrefix(first[i], prefix) || len(first[i]) != len(prefix)+TagLength {
			t.Errorf("image %d = %q, want %s and %d hex digits", i, first[i], prefix, TagLength)
		}
	}
	if got := refs(t, d); !cmp.Equal(first, got) {
		t.Errorf("the same content gave %v then %v", first, got)
	}
	sweeptest.WriteFiles(t, dir, map[string]string{"tests/test.sh": "#!/bin/sh\nexit 0\n"})
	afterTests := refs(t, d)
	if afterTests[0] != first[0] || afterTests[1] == first[1] {
		t.Errorf("a change in tests/ must change the verifier tag only: %v → %v", first, afterTests)
	}
	if err := os.Chmod(filepath.Join(dir, "environment", "Dockerfile"), 0o755); err != nil {
		t.Fatal(err)
	}
	afterMode := refs(t, d)
	if afterMode[0] == afterTests[0] || afterMode[1] == afterTests[1] {
		t.Errorf("an executable bit in environment/ must change both tags: %v → %v", afterTests, afterMode)
	}
}

func TestTaskImagesPrebuiltAndShared(t *testing.T) {
	root := t.TempDir()
	prebuilt := load(t, writeTask(t, root, "prebuilt", "[environment]\ndocker_image = \"ghcr.io/x/env:1\"\n[verifier]\nenvironment_mode = \"shared\"\n",
		map[string]string{"tests/test.sh": "#!/bin/sh\n"}))
	images, err := TaskImages(prebuilt, "reg")
	if err != nil {
		t.Fatal(err)
	}
	if images[0].Ref != "ghcr.io/x/env:1" || images[0].Build != nil || images[0].Command() != "" {
		t.Errorf("agent image = %+v, want the prebuilt docker_image with no build", images[0])
	}
	v := images[1]
	wantCmd := `printf 'FROM ghcr.io/x/env:1\nCOPY . /tests\n' | docker build -t ` + v.Ref + " -f - " + filepath.Join(root, "prebuilt", "tests") + " && docker push " + v.Ref
	if !strings.HasPrefix(v.Ref, "reg/prebuilt-verifier:") || v.Command() != wantCmd {
		t.Errorf("verifier = %s, command:\n%s\nwant:\n%s", v.Ref, v.Command(), wantCmd)
	}
	separate := load(t, writeTask(t, root, "own-verifier", "[verifier.environment]\ndocker_image = \"ghcr.io/x/verifier:2\"\n",
		map[string]string{"environment/Dockerfile": "FROM debian\n"}))
	images, err = TaskImages(separate, "reg")
	if err != nil {
		t.Fatal(err)
	}
	if images[1].Ref != "ghcr.io/x/verifier:2" || images[1].Build != nil {
		t.Errorf("verifier = %+v, want the prebuilt verifier environment image", images[1])
	}
	if got, want := images[0].Command(), "docker build -t "+images[0].Ref+" "+filepath.Join(root, "own-verifier", "environment")+" && docker push "+images[0].Ref; got != want {
		t.Errorf("agent build = %q, want %q", got, want)
	}
}

// A tests/Dockerfile that declares AGENT_IMAGE is given the agent image it is built on; one
// that does not (Harbor's own, SWE-sweep's) is built as it is.
func TestVerifierDockerfileAgentImageArg(t *testing.T) {
	for name, dockerfile := range map[string]string{
		"declared with a default": "ARG AGENT_IMAGE=sweep-samples/x:env\nFROM ${AGENT_IMAGE}\nCOPY . /tests\n",
		"declared bare":           "arg AGENT_IMAGE\nFROM $AGENT_IMAGE\n",
		"another name's case":     "ARG agent_image=x\nFROM $agent_image\n",
		"not declared":            "FROM debian\nCOPY . /tests\n",
		"another argument":        "ARG AGENT_IMAGE_TAG=1\nFROM debian:${AGENT_IMAGE_TAG}\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			d := load(t, writeTask(t, root, "task", "", map[string]string{"environment/Dockerfile": "FROM debian\n", "tests/Dockerfile": dockerfile}))
			images, err := TaskImages(d, "reg")
			if err != nil {
				t.Fatal(err)
			}
			agent, v := images[0], images[1]
			tests := filepath.Join(root, "task", "tests")
			want := &Build{Context: tests}
			wantCmd := "docker build -t " + v.Ref + " " + tests + " && docker push " + v.Ref
			if strings.HasPrefix(name, "declared") {
				want.Args = map[string]string{AgentImageArg: agent.Ref}
				wantCmd = "docker build --build-arg AGENT_IMAGE=" + agent.Ref + " -t " + v.Ref + " " + tests + " && docker push " + v.Ref
			}
			if diff := cmp.Diff(want, v.Build); diff != "" {
				t.Errorf("verifier build (-want +got):\n%s", diff)
			}
			if got := v.Command(); got != wantCmd {
				t.Errorf("command = %q, want %q", got, wantCmd)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	cases := map[string]struct {
		tasks    map[string]map[string]string
		registry string
		want     string
	}{
		"no registry":      {tasks: map[string]map[string]string{"a": buildable}, want: "task a: its agent image is built from the task directory, so it needs a registry: pass --registry"},
		"no Dockerfile":    {tasks: map[string]map[string]string{"a": {"tests/test.sh": ""}}, registry: "r", want: filepath.Join("a", "environment", "Dockerfile") + " and no [environment].docker_image"},
		"no tests":         {tasks: map[string]map[string]string{"a": {"environment/Dockerfile": ""}}, registry: "r", want: "the verifier image holds the hidden tests; add tests/"},
		"nested solution":  {tasks: map[string]map[string]string{"a": merge(buildable, map[string]string{"solution/sub/x.patch": ""})}, registry: "r", want: "sub is not a regular file: the solution ConfigMap holds only the files directly in solution/"},
		"same object name": {tasks: map[string]map[string]string{"a_b": buildable, "a-b": buildable}, registry: "r", want: "tasks a-b and a_b both become ConfigMap a-b: rename one"},
		"malformed swesweep_eval.json": {tasks: map[string]map[string]string{"a": merge(buildable, map[string]string{"tests/swesweep_eval.json": `{"task": "a"}`})}, registry: "r",
			want: filepath.Join("a", "tests", "swesweep_eval.json") + `: swesweep_eval.json has no "subtasks" list: fix the file (a bug subset reaches tests/test.sh through it)`},
		"a comma in a bug id": {tasks: map[string]map[string]string{"a": merge(buildable, map[string]string{"tests/swesweep_eval.json": `{"subtasks": [{"id": "x,y"}]}`})}, registry: "r",
			want: `bug id "x,y": the ids are listed comma-separated in annotation eval.sweep.dev/bug-ids, so an id is neither empty nor holds a comma: rename the bug`},
		"malformed bundle.json": {tasks: map[string]map[string]string{"a": merge(buildable, map[string]string{"tests/bundle.json": `{"bugs": 1}`})}, registry: "r",
			want: filepath.Join("a", "tests", "bundle.json") + ": json: cannot unmarshal number"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			var dirs []string
			for task, files := range tc.tasks {
				dirs = append(dirs, writeTask(t, root, task, "", files))
			}
			loaded, err := taskdef.LoadDirs(dirs)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Plan(loaded, tc.registry)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	linked := writeTask(t, t.TempDir(), "linked", "", merge(buildable, map[string]string{"elsewhere.json": `{"subtasks": []}`}))
	if err := os.Symlink(filepath.Join(linked, "elsewhere.json"), filepath.Join(linked, "tests", "swesweep_eval.json")); err != nil {
		t.Fatal(err)
	}
	_, err := Plan([]*taskdef.Dir{load(t, linked)}, "r")
	sweeptest.ErrorContains(t, err, "task linked: "+filepath.Join(linked, "tests", "swesweep_eval.json")+" is a symbolic link: refused: not a regular file: make it a regular file")
	bad := &taskdef.Dir{Path: "x", Task: &taskdef.Task{Name: "org/name"}}
	if _, err := Plan([]*taskdef.Dir{bad}, "r"); err == nil || !strings.Contains(err.Error(), "the name is the value of label eval.sweep.dev/task") {
		t.Errorf("a name that is no label value: error = %v", err)
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestWriteKustomization(t *testing.T) {
	root := t.TempDir()
	dir := writeTask(t, root, "demo", "[metadata]\nn_subtasks = 3\n", merge(buildable, map[string]string{
		"tests/bundle.json": `{"bugs": [{"id": "b2"}, {"id": "b1"}, {"id": "b3"}]}`, "solution/solve.sh": "#!/bin/sh\n", "solution/fix.patch": "diff\n"}))
	plain := writeTask(t, root, "plain", "[environment]\ndocker_image = \"img:1\"\n[verifier.environment]\ndocker_image = \"vimg:1\"\n", nil)
	// A task in SWE-sweep's own format: graded by its tests/test.sh, its bugs in swesweep_eval.json.
	sweep := writeTask(t, root, "sweep", "[environment]\ndocker_image = \"img:2\"\n[verifier.environment]\ndocker_image = \"vimg:2\"\n", map[string]string{
		"tests/test.sh": "#!/bin/sh\n", "tests/swesweep_eval.json": `{"schema": 2, "subtasks": [{"id": "sweep-9f"}, {"f2p": ["t::x"], "id": "sweep-1a", "target_files": []}]}`})
	dirs, err := taskdef.LoadDirs([]string{dir, plain, sweep})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Plan(dirs, "reg")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	if err := WriteKustomization(out, entries); err != nil {
		t.Fatal(err)
	}
	rendered, err := Render(out)
	if err != nil {
		t.Fatal(err)
	}
	env, verifier := entries[0].Image(RoleAgent), entries[0].Image(RoleVerifier)
	want := `apiVersion: v1
data:
  instruction.md: |
    Fix the bugs.
  task.toml: |
    name = "demo"
    [metadata]
    n_subtasks = 3
kind: ConfigMap
metadata:
  annotations:
    eval.sweep.dev/agent-image: ` + env + `
    eval.sweep.dev/bug-ids: b2,b1,b3
    eval.sweep.dev/bugs: "3"
    eval.sweep.dev/grader: swesweep
    eval.sweep.dev/solution-configmap: demo-solution
    eval.sweep.dev/verifier-image: ` + verifier + `
  labels:
    eval.sweep.dev/task: demo
  name: demo
---
apiVersion: v1
data:
  fix.patch: |
    diff
  solve.sh: |
    #!/bin/sh
kind: ConfigMap
metadata:
  name: demo-solution
---
apiVersion: v1
data:
  task.toml: |
    name = "plain"
    [environment]
    docker_image = "img:1"
    [verifier.environment]
    docker_image = "vimg:1"
kind: ConfigMap
metadata:
  annotations:
    eval.sweep.dev/agent-image: img:1
    eval.sweep.dev/bugs: "0"
    eval.sweep.dev/verifier-image: vimg:1
  labels:
    eval.sweep.dev/task: plain
  name: plain
---
apiVersion: v1
data:
  task.toml: |
    name = "sweep"
    [environment]
    docker_image = "img:2"
    [verifier.environment]
    docker_image = "vimg:2"
kind: ConfigMap
metadata:
  annotations:
    eval.sweep.dev/agent-image: img:2
    eval.sweep.dev/bug-ids: sweep-9f,sweep-1a
    eval.sweep.dev/bugs: "0"
    eval.sweep.dev/verifier-image: vimg:2
  labels:
    eval.sweep.dev/task: sweep
  name: sweep
`
	if diff := cmp.Diff(want, string(rendered)); diff != "" {
		t.Errorf("kustomize build (-want +got):\n%s", diff)
	}
}

func TestWriteKustomizationTooLarge(t *testing.T) {
	root := t.TempDir()
	dir := writeTask(t, root, "huge", "", merge(buildable, map[string]string{"solution/data.patch": strings.Repeat("x", MaxConfigMapBytes+1)}))
	entries, err := Plan([]*taskdef.Dir{load(t, dir)}, "reg")
	if err != nil {
		t.Fatal(err)
	}
	err = WriteKustomization(filepath.Join(root, "out"), entries)
	want := "configmap huge-solution would hold 1048577 bytes, more than the 1048576 a ConfigMap can: shrink " + filepath.Join(dir, "solution")
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
}
