package reward

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// contractWords are the strings only this package may spell in non-test code.
var contractWords = map[string]bool{
	FileJSON: true, FileText: true,
	KeyReward: true, KeySubtasks: true, KeyResolved: true, KeyPartial: true, KeyVisibleOK: true,
	KeyRegressions: true, KeyPatchApplied: true, KeyBuildOK: true, KeyGraderFailed: true, KeyRegressionsCleared: true,
}

// otherContracts are literals of a different contract that shares a word with this one,
// allowed by package directory (slash-separated, from the module root) and exact value.
var otherContracts = map[string]map[string]string{
	"internal/taskdef": {
		KeySubtasks: "taskdef.MetadataBugsKey: task.toml's [metadata].n_subtasks, the task's declared bug count",
	},
	"internal/report": {
		`json:"n_subtasks"`: "`sweep info --json` task lines use SWE-sweep's report keys",
		`json:"n_resolved"`: "`sweep info --json` task lines use SWE-sweep's report keys",
		`json:"reward"`:     "`sweep info --json` task lines use SWE-sweep's report keys",
	},
	"internal/grading/swesweep": {
		`json:"reward"`: "eval.json's field that holds the result",
	},
	"internal/swebench": {
		`json:"reward"`: "eval.json's field that holds the result",
	},
}

// TestNoOtherPackageSpellsTheContract fails when a non-test Go file outside this package has
// a string literal equal to a result key or file name: such a file encodes or decodes the
// contract on its own instead of importing it.
func TestNoOtherPackageSpellsTheContract(t *testing.T) {
	var found []string
	for _, lit := range sweeptest.StringLiterals(t, sweeptest.ModuleRoot(t)) {
		if _, allowed := otherContracts[lit.Package][lit.Value]; lit.Package != "internal/reward" && spellsContract(lit.Value) && !allowed {
			found = append(found, lit.File+":"+strconv.Itoa(lit.Line)+": "+lit.Source)
		}
	}
	if len(found) > 0 {
		t.Errorf("the verifier's result contract is spelled outside internal/reward; import its constants instead:\n%s",
			strings.Join(found, "\n"))
	}
}

// spellsContract reports whether s is a contract word or quotes one, as a JSON snippet or a
// struct tag does (`{"reward": 0}`, `json:"reward"`).
func spellsContract(s string) bool {
	if contractWords[s] {
		return true
	}
	for w := range contractWords {
		if strings.Contains(s, strconv.Quote(w)) {
			return true
		}
	}
	return false
}

// TestImportsOnlyTheStandardLibrary keeps the package light: the sweep-hook binary, which
// runs in every Pod, imports it and must not grow Kubernetes' client libraries. The
// exceptions, internal/regularfile and api/v1alpha1/reasons, import only the standard library
// themselves.
func TestImportsOnlyTheStandardLibrary(t *testing.T) {
	lightImports := map[string]bool{
		"github.com/swe-sweep/sweep-operator/internal/regularfile": true,
		"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons": true,
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") && !lightImports[path] {
				t.Errorf("%s imports %s: internal/reward may import only the standard library", name, path)
			}
		}
	}
}
