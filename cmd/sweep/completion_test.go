package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
)

// complete runs cobra's hidden __complete as the shell scripts do and returns the completions
// and the directive's number.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	out, _, err := execute(t, append([]string{"__complete"}, args...)...)
	if err != nil {
		t.Fatalf("__complete %s: %v", strings.Join(args, " "), err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// Verbs complete names read from the cluster of their connection flags.
func TestCompletionFromTheCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	nightly := clitest.MakeRun(ns, "nightly").Tasks("demo").Create(t, srv.Client)
	clitest.MakeRun(ns, "nightly-2").Tasks("demo").Create(t, srv.Client)
	clitest.MakeRun(ns, "weekly").Tasks("demo").Create(t, srv.Client)
	trial := clitest.MakeTrial(nightly, "demo", 1).Create(t, srv.Client)
	for _, task := range []string{"swe-sweep__arrow", "swe-sweep__agda"} {
		clitest.Must(t, srv.Client.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns,
			Name: strings.ReplaceAll(task, "_", "-"), Labels: map[string]string{evalv1.LabelTask: task}}}))
	}
	flags := []string{"--kubeconfig", srv.Kubeconfig, "-n", ns}
	const (
		noFiles = ":4"
		files   = ":0"
	)
	for _, tc := range []struct {
		args      []string
		want      []string
		directive string
	}{
		{[]string{"watch", "night"}, []string{"nightly", "nightly-2"}, noFiles},
		{[]string{"watch", "nightly", ""}, nil, noFiles},
		{[]string{"export", "w"}, []string{"weekly"}, noFiles},
		{[]string{"regrade", "w"}, []string{"weekly"}, noFiles},
		{[]string{"info", "nightly", ""}, []string{"nightly-2", "weekly"}, files},
		{[]string{"compare", "nightly", "w"}, []string{"weekly"}, files},
		{[]string{"swebench", "report", ""}, []string{"nightly", "nightly-2", "weekly"}, noFiles},
		{[]string{"eval", "swe"}, []string{"swe-sweep__agda", "swe-sweep__arrow"}, noFiles},
		{[]string{"eval", "swe-sweep__agda", ""}, nil, files},
		{[]string{"tasks", "check", "swe-sweep__agda", ""}, []string{"swe-sweep__arrow"}, noFiles},
		{[]string{"get", "t"}, []string{"tasktrials"}, noFiles},
		{[]string{"get", "tt", ""}, []string{trial.Name}, noFiles},
		{[]string{"logs", ""}, []string{trial.Name}, noFiles},
		{[]string{"logs", trial.Name, "--stage", ""}, []string{"agent", "verifier"}, noFiles},
		{[]string{"get", "sr", "week"}, []string{"weekly"}, noFiles},
		{[]string{"get", "tt", "--run", "n"}, []string{"nightly", "nightly-2"}, noFiles},
		{[]string{"info", "-o", ""}, []string{"table", "json", "yaml"}, noFiles},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got, directive := complete(t, append(flags, tc.args...)...)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" || directive != tc.directive {
				t.Errorf("completions (-want +got):\n%s\ndirective %s, want %s", diff, directive, tc.directive)
			}
		})
	}
	// Without a cluster, or without the right to list, the shell gets no names, and the reason
	// goes to cobra's debug output.
	nobody := srv.UserKubeconfig(t, "nobody-completion")
	for _, args := range [][]string{
		{"--kubeconfig", "/nonexistent/kubeconfig", "watch", ""},
		{"--kubeconfig", nobody, "-n", ns, "watch", ""},
		{"--kubeconfig", nobody, "-n", ns, "eval", ""},
		{"--kubeconfig", nobody, "-n", ns, "get", "tt", ""},
		{"--kubeconfig", "/nonexistent/kubeconfig", "get", ""},
		{"--kubeconfig", srv.Kubeconfig, "-n", ns, "get", "pods", ""},
	} {
		if got, directive := complete(t, args...); len(got) != 0 || directive != ":1" {
			t.Errorf("%s: %q, directive %s, want none and :1 (error)", strings.Join(args, " "), got, directive)
		}
	}
}

// The shells' scripts are cobra's.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		out, _, err := execute(t, "completion", shell)
		if err != nil || !strings.Contains(out, "__complete") {
			t.Errorf("sweep completion %s: %v\n%.200s", shell, err, out)
		}
	}
}
