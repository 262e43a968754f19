package catalogue

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// Lines of a TOML or YAML document whose value a format verb fills in: a template that writes
// the document by hand. A value with a newline or a quote in it then adds keys or tables of its
// own (an instance id once injected [verifier] settings through `sweep swebench import`).
var (
	tomlTable      = regexp.MustCompile(`^\s*\[\[?[A-Za-z0-9_.-]+\]\]?\s*$`)
	tomlTemplated  = regexp.MustCompile(`^\s*[A-Za-z0-9_."-]+\s+=\s+["'\[]?%`)
	yamlTemplated  = regexp.MustCompile(`^\s*(- )?[A-Za-z0-9_.-]+:\s+["']?%`)
	yamlAPIVersion = regexp.MustCompile(`^\s*apiVersion:\s`)
)

// writesDocumentByHand reports whether a string literal is a TOML or YAML template: a TOML
// table header or a TOML line filled by a format verb, or two YAML lines filled by one (or a
// manifest's apiVersion), on lines of their own.
func writesDocumentByHand(s string) bool {
	if !strings.Contains(s, "\n") {
		return false
	}
	yamlLines := 0
	for _, line := range strings.Split(s, "\n") {
		switch {
		case tomlTable.MatchString(line) && strings.Contains(s, "%"), tomlTemplated.MatchString(line), yamlAPIVersion.MatchString(line):
			return true
		case yamlTemplated.MatchString(line):
			yamlLines++
		}
	}
	return yamlLines >= 2
}

func TestWritesDocumentByHand(t *testing.T) {
	cases := map[string]bool{
		// What `sweep swebench import` once wrote task.toml with.
		"schema_version = \"1.4\"\nname = %s\nartifacts = [%s]\n\n": true,
		"[metadata]\nn_subtasks = 1\n%s = %s\n\n":                   true,
		"[metadata]\nswebench_instance_id = %q\n":                   true,
		"name = \"%s\"\n[agent]\ntimeout_sec = %d\n":                true,
		"[verifier]\n%s":                                        true,
		"[[verifier.collect]]\ncommand = '%s'\n":                true,
		"apiVersion: eval.sweep.dev/v1alpha1\nkind: SweepRun\n": true,
		"metadata:\n  name: %s\n  namespace: %s\n":              true,
		"- name: %s\n  image: %q\n":                             true,
		"warning: %s\n":                                         false,
		"\t\tfix: %s\n":                                         false,
		"usage:\n  sweep-hook install DIR\n":                    false,
		"x=%s\nset -e\n":                                        false,
		"not run, empty patch (%d): %s\n":                       false,
		"[grader] the agent's patch does not apply: %s\n":       false,
		"name = \"fixed\"\n":                                    false,
		"a one-line message: key %q = %v":                       false,
	}
	for s, want := range cases {
		if got := writesDocumentByHand(s); got != want {
			t.Errorf("writesDocumentByHand(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestNoHandWrittenTOMLOrYAML fails when a non-test Go file of the module holds a TOML or YAML
// template: task.toml goes through github.com/BurntSushi/toml, manifests and kustomizations
// through sigs.k8s.io/yaml (docs/design.md §8), which quote every value they write.
func TestNoHandWrittenTOMLOrYAML(t *testing.T) {
	var found []string
	for _, lit := range sweeptest.StringLiterals(t, sweeptest.ModuleRoot(t)) {
		if writesDocumentByHand(lit.Value) {
			found = append(found, lit.File+":"+strconv.Itoa(lit.Line)+": "+lit.Source)
		}
	}
	if len(found) > 0 {
		t.Errorf("TOML or YAML written by hand; encode a Go value with the TOML or YAML encoder instead:\n%s", strings.Join(found, "\n"))
	}
}
