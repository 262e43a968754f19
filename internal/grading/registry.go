package grading

import (
	"fmt"
	"slices"
	"strings"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// registry holds every grader, one entry each.
var registry = []Grader{
	testScript{},
	bundleGrader{},
	sweBenchGrader{},
}

// Lookup returns the grader called name. The empty name, which the API and the stage spec
// use for "no built-in grader", is the task's own tests/test.sh.
func Lookup(name string) (Grader, error) {
	if name == pc.GraderTestScript {
		name = TestScriptName
	}
	for _, g := range registry {
		if g.Name() == name {
			return g, nil
		}
	}
	return nil, fmt.Errorf("unknown grader %q: use one of %s (empty means %s)", name, strings.Join(Names(), ", "), TestScriptName)
}

// Names are the registered graders' names, sorted.
func Names() []string {
	names := make([]string, len(registry))
	for i, g := range registry {
		names[i] = g.Name()
	}
	slices.Sort(names)
	return names
}

// InputDir is where grader g reads its input in the verifier: the grader ConfigMap's mount
// when the trial has one, else the grader's own input directory.
func InputDir(g Grader, hasConfigMap bool) string {
	if hasConfigMap {
		return pc.GraderConfigDir
	}
	return g.InputDir()
}

// Versioned is a grader's name and version as provenance records it: "swesweep/1".
func Versioned(g Grader) string { return versioned(g.Name(), g.Version()) }

func versioned(name, version string) string { return name + "/" + version }
