package reasons

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// all pins every reason's value: they are API, and a renamed value breaks users' alerts and
// scripts.
var all = map[string]string{
	AgentTimeout: "AgentTimeout", AgentFailed: "AgentFailed", PatchApplyFailed: "PatchApplyFailed",
	VerifierTimeout: "VerifierTimeout", RewardMissing: "RewardMissing", GraderFailed: "GraderFailed",
	CollectorInterrupted: "CollectorInterrupted",
	ImagePullFailed:      "ImagePullFailed", PodEvicted: "PodEvicted", NodeLost: "NodeLost", Preempted: "Preempted",
	EnvironmentStartTimeout: "EnvironmentStartTimeout", CollectorLost: "CollectorLost", InvalidTask: "InvalidTask",
	PatchTooLarge: "PatchTooLarge", RewardOutOfBounds: "RewardOutOfBounds",
	Completed: "Completed", Graded: "Graded",
	TasksNotFound: "TasksNotFound", NoTasksSelected: "NoTasksSelected", TrialsRunning: "TrialsRunning",
	AllTrialsFinished: "AllTrialsFinished", NothingMeasured: "NothingMeasured", Suspended: "Suspended", Resumed: "Resumed",
}

func TestValues(t *testing.T) {
	for got, want := range all {
		if got != want {
			t.Errorf("reason %q changed to %q: reasons are API", want, got)
		}
	}
	if len(all) != 25 {
		t.Errorf("%d reasons pinned, want 25: pin a new reason here", len(all))
	}
}

// notReasons are string literals elsewhere that equal a reason's value but are something
// else, by file.
var notReasons = map[string]string{
	// The SweepRunSuspend phase and the SweepRunSuspended condition type.
	"api/v1alpha1/sweeprun_types.go": "Suspended",
	// The Pod status reason the node controller sets, which failure reads.
	"internal/failure/classify.go": "NodeLost",
}

// TestDefinedOnce fails when a non-test Go file of the module spells a reason as a string
// literal instead of importing this package.
func TestDefinedOnce(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || rel == "api/v1alpha1/reasons/reasons.go" {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if _, reason := all[s]; err == nil && reason && notReasons[filepath.ToSlash(rel)] != s {
				t.Errorf("%s spells the reason %q: use reasons.%s from api/v1alpha1/reasons", rel, s, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
