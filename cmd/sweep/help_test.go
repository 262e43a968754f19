package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestHelp(t *testing.T) {
	out, _, err := execute(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	// Only the everyday kubectl flags are listed; other verbs may join the command list.
	for _, want := range []string{"Common flows:\n  sweep infra doctor", "--kubeconfig string", "-n, --namespace string", "--context string"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep --help lacks %q:\n%s", want, out)
		}
	}
	flags := out[strings.Index(out, "\nFlags:"):]
	for _, hidden := range []string{"--token", "--as-group", "--insecure-skip-tls-verify", "--cache-dir"} {
		if strings.Contains(flags, hidden) {
			t.Errorf("sweep --help lists %s among the everyday flags", hidden)
		}
	}
	// Every verb explains itself and shows an example where it takes arguments.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Short == "" || (sub.Runnable() && sub.Long == "") {
				t.Errorf("%s: want a short and a long description", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRootCmd())
	for _, verb := range [][]string{{"info"}, {"compare"}, {"export"}, {"eval"}, {"run"}, {"watch"}, {"infra", "doctor"}, {"tasks", "bundle"}, {"tasks", "images"}, {"tasks", "check"}, {"tasks", "validate"}, {"version"}, {"get"}, {"retry"}, {"resume"}, {"regrade"}} {
		out, _, err := execute(t, append(verb, "--help")...)
		if err != nil || !strings.Contains(out, "Usage:\n  sweep "+strings.Join(verb, " ")) {
			t.Errorf("sweep %s --help: %v\n%s", strings.Join(verb, " "), err, out)
		}
	}
}
