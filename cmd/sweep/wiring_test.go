package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// The verbs' behaviour is tested in their packages (internal/cli/...); these tests check what
// package main adds: argument counts, and that each verb's flags and arguments reach its
// Options.

func TestInfoArgs(t *testing.T) {
	_, _, err := execute(t, "info")
	sweeptest.ErrorContains(t, err, "requires at least 1 arg")
}

func TestArgumentCounts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export"}, "accepts 1 arg(s), received 0"},
		{[]string{"compare", "run1"}, "accepts 2 arg(s), received 1"},
		{[]string{"eval", "demo"}, "accepts 2 arg(s), received 1"},
		{[]string{"watch", "a", "b"}, "accepts 1 arg(s), received 2"},
		{[]string{"run", "extra"}, `unknown command "extra" for "sweep run"`},
		{[]string{"infra", "doctor", "extra"}, `unknown command "extra" for "sweep infra doctor"`},
		{[]string{"tasks", "check"}, "name the tasks to check: task names, -l/--selector LABELS, --all, or --from-runs ORACLE_RUN,NOP_RUN"},
		{[]string{"swebench", "report"}, "accepts 1 arg(s), received 0"},
		{[]string{"version", "extra"}, `unknown command "extra" for "sweep version"`},
		{[]string{"get"}, "requires at least 1 arg(s), only received 0"},
		{[]string{"retry"}, "accepts 1 arg(s), received 0"},
		{[]string{"resume"}, "accepts 1 arg(s), received 0"},
		{[]string{"regrade", "a", "b"}, "accepts 1 arg(s), received 2"},
		{[]string{"logs"}, "accepts 1 arg(s), received 0"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			sweeptest.ErrorContains(t, err, tc.want)
		})
	}
}

// Each verb reaches its Options: a flag's value, or an argument, comes back in the error of
// Validate or Run, before any cluster is reached.
func TestVerbsReachTheirOptions(t *testing.T) {
	noCluster := []string{"--kubeconfig", "/nonexistent/kubeconfig"}
	manifest := filepath.Join(t.TempDir(), "missing.yaml")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"info", []string{"info", "run1", "-o", "xml"}, []string{`flag -o/--output: want table, json or yaml, got "xml"`}},
		{"info kubeconfig", append(noCluster, "info", "run1", "--per-task"), []string{"run1 is not a directory, so it names a sweeprun", "--kubeconfig"}},
		{"info pass-at", []string{"info", "run1", "--pass-at", "1,0"}, []string{"flag --pass-at: want attempts to draw of 1 or more, got 0"}},
		{"compare", []string{"compare", "run1", "run2", "-o", "xml"}, []string{`got "xml"`}},
		{"compare kubeconfig", append(noCluster, "compare", "run1", "run2"), []string{"argument A: run1 is not a directory, so it names a sweeprun", "--kubeconfig"}},
		{"export", []string{"export", "run1"}, []string{"flag -o/--output-dir is required", "-o jobs/run1"}},
		{"eval", []string{"eval", "demo", "fix.patch", "--attempts", "0"}, []string{"flag --attempts: want 1 to 100, got 0"}},
		{"eval output", []string{"eval", "demo", "fix.patch", "-o", "xml"}, []string{`got "xml"`}},
		{"run", []string{"run"}, []string{"flag -f/--filename is required"}},
		{"run filename", []string{"run", "-f", manifest, "--watch"}, []string{manifest}},
		{"run output", []string{"run", "-f", manifest, "-o", "xml"}, []string{"flag -o/--output: want one of json, yaml", "custom-columns=HEADER:PATH", `got "xml"`}},
		{"run output watch", []string{"run", "-f", manifest, "-o", "name", "--watch"}, []string{"flags -o/--output and --watch"}},
		{"run template", []string{"run", "-f", manifest, "--template", "{{.kind}}"}, []string{manifest}},
		{"watch", append(noCluster, "watch", "run1"), []string{"--kubeconfig"}},
		{"infra doctor", []string{"infra", "doctor", "-o", "xml"}, []string{`got "xml"`}},
		{"tasks check", []string{"tasks", "check", "demo", "-o", "xml"}, []string{`got "xml"`}},
		{"tasks bundle", []string{"tasks", "bundle", "tasks/", "--registry", "r"}, []string{"flag -o/--output-dir is required"}},
		{"tasks images", []string{"tasks", "images", "no-such-dir/", "--registry", "r", "-o", "xml"}, []string{`got "xml"`}},
		{"tasks validate", []string{"tasks", "validate", "no-such-dir/"}, []string{"no-such-dir"}},
		{"swebench import", []string{"swebench", "import", "--predictions", "p.jsonl", "-o", "out"}, []string{"flag --instances is required"}},
		{"swebench import grading", []string{"swebench", "import", "--instances", "i.jsonl", "--predictions", "p.jsonl", "-o", "out", "--grading", "3"}, []string{"flag --grading"}},
		{"swebench parse", []string{"swebench", "parse", "eval.log"}, []string{"flag --parser is required"}},
		{"swebench grade", []string{"swebench", "grade", "--log", "eval.log"}, []string{"flags --instance and --log are required"}},
		{"swebench report", append(noCluster, "swebench", "report", "run1"), []string{"--kubeconfig"}},
		{"version output", []string{"version", "-o", "xml"}, []string{`got "xml"`}},
		{"get output", []string{"get", "sr", "-o", "xml"}, []string{"flag -o/--output: want one of wide, json", `got "xml"`}},
		{"retry reason", []string{"retry", "run1", "--reason", "PodEvicted,Flaky"}, []string{"flag --reason: Flaky: not a trial reason"}},
		{"retry kubeconfig", append(noCluster, "retry", "run1", "--watch"), []string{"--kubeconfig"}},
		{"regrade kubeconfig", append(noCluster, "regrade", "run1", "--watch"), []string{"--kubeconfig"}},
		{"get kubeconfig", append(noCluster, "get", "tt", "--run", "run1"), []string{"--kubeconfig"}},
		{"logs stage", []string{"logs", "t1", "--stage", "collector"}, []string{`flag --stage: want agent or verifier, got "collector"`}},
		{"logs store", []string{"logs", "t1", "--store", "http://minio:9000/b"}, []string{"flag --store", `unknown scheme "http"`}},
		{"logs kubeconfig", append(noCluster, "logs", "t1", "-f"), []string{"--kubeconfig"}},
		{"info store", []string{"info", "ftp://host/store/ns/run1"}, []string{`unknown scheme "ftp"`}},
		{"export store", []string{"export", "file:///nonexistent/store/ns/run1", "-o", "out"}, []string{"no job folder at file:///nonexistent/store/ns/run1", "no such file or directory"}},
		{"version kubeconfig", append(noCluster, "version"), []string{"operator version", "--kubeconfig", "sweep version --client"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
}

// -n reaches the verbs that write a namespace without talking to the cluster.
func TestNamespaceFlag(t *testing.T) {
	data := filepath.Join("..", "..", "internal", "cli", "swebenchcli", "testdata")
	out := filepath.Join(t.TempDir(), "swebench")
	if _, stderr, err := execute(t, "swebench", "import", "--instances", filepath.Join(data, "instances.jsonl"),
		"--predictions", filepath.Join(data, "predictions.jsonl"), "-o", out, "-n", "evals"); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	kustomization, err := os.ReadFile(filepath.Join(out, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(kustomization), "namespace: evals\n") {
		t.Errorf("kustomization.yaml lacks the namespace of -n:\n%s", kustomization)
	}
}

// The defaults the verbs' package tests give their Options are the flags' defaults.
func TestFlagDefaults(t *testing.T) {
	root := newRootCmd()
	for _, tc := range []struct{ verb, flag, want string }{
		{"info", "output", "table"},
		{"eval", "attempts", "1"},
		{"run", "output", ""},
		{"version", "output", "table"},
		{"get", "output", ""},
		{"version", "client", "false"},
		{"eval", "output", "table"},
		{"infra doctor", "output", "table"},
		{"tasks check", "parallelism", "10"},
		{"tasks check", "repeat", "1"},
		{"tasks check", "output", "table"},
		{"tasks images", "output", "table"},
		{"swebench import", "grading", "5"},
		{"swebench import", "score", "hardened"},
		{"swebench import", "timeout", "1800"},
		{"swebench import", "name", "swebench"},
		{"swebench import", "verifier-network", "no-network"},
		{"swebench report", "attempt", "1"},
		{"logs", "stage", "agent"},
		{"logs", "follow", "false"},
	} {
		cmd, _, err := root.Find(strings.Fields(tc.verb))
		if err != nil {
			t.Fatal(err)
		}
		f := cmd.Flags().Lookup(tc.flag)
		if f == nil || f.DefValue != tc.want {
			t.Errorf("sweep %s --%s: default %v, want %s", tc.verb, tc.flag, f, tc.want)
		}
	}
}
