// Package swebenchgen writes SWE-bench datasets and predictions of Verified's and Full's sizes
// (500 and 2,294 instances), in SWE-bench's schema, for the scale tests and benchmarks of
// `sweep swebench import`: the published datasets cannot be fetched here. The instances have
// the shape of the real ones (the repositories in Full's proportions, ids, 40-hex commits,
// test patches, FAIL_TO_PASS / PASS_TO_PASS as JSON strings, problem statements), and the
// predictions patches of the sizes asked. Everything is deterministic.
package swebenchgen

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

// Sizes of the published datasets.
const (
	VerifiedInstances = 500
	FullInstances     = 2294
)

// fullRepos are Full's repositories and their instance counts (2,294 together); a dataset of
// another size keeps their proportions.
var fullRepos = []struct {
	repo  string
	count int
}{
	{"django/django", 850}, {"sympy/sympy", 386}, {"scikit-learn/scikit-learn", 229},
	{"sphinx-doc/sphinx", 187}, {"matplotlib/matplotlib", 184}, {"pytest-dev/pytest", 119},
	{"pydata/xarray", 110}, {"astropy/astropy", 95}, {"pylint-dev/pylint", 57},
	{"psf/requests", 44}, {"mwaskom/seaborn", 22}, {"pallets/flask", 11},
}

// Options say what to write.
type Options struct {
	// Instances is how many instances the dataset has.
	Instances int
	// PatchBytes is the size of instance i's model patch; nil means SpreadSizes(100 KiB).
	PatchBytes func(i int) int
	// Model is the predictions' model_name_or_path.
	Model string
	// Real are instances written first, as they are, with Patches[j] as their predictions
	// (for instances built on repositories whose images exist); the others are made up.
	Real    []swebench.Instance
	Patches []string
}

// FixedSize gives every patch n bytes.
func FixedSize(n int) func(int) int { return func(int) int { return n } }

// SpreadSizes spreads the patches between 512 bytes and maxBytes, most of them small as model
// patches are (a quarter of them above maxBytes/4), the largest exactly maxBytes.
func SpreadSizes(maxBytes int) func(int) int {
	return func(i int) int {
		if i == 0 {
			return maxBytes
		}
		f := float64((i*7919)%1000) / 1000 // deterministic, evenly spread in [0, 1)
		return 512 + int(f*f*float64(maxBytes-512))
	}
}

// Row is one instance in SWE-bench's schema, as the published JSONL has it: the test lists as
// JSON strings.
type Row struct {
	InstanceID             string `json:"instance_id"`
	Repo                   string `json:"repo"`
	BaseCommit             string `json:"base_commit"`
	Patch                  string `json:"patch"`
	TestPatch              string `json:"test_patch"`
	ProblemStatement       string `json:"problem_statement"`
	HintsText              string `json:"hints_text"`
	CreatedAt              string `json:"created_at"`
	Version                string `json:"version"`
	FailToPass             string `json:"FAIL_TO_PASS"`
	PassToPass             string `json:"PASS_TO_PASS"`
	EnvironmentSetupCommit string `json:"environment_setup_commit"`
}

// Prediction is one line of a predictions file.
type Prediction struct {
	InstanceID      string `json:"instance_id"`
	ModelNameOrPath string `json:"model_name_or_path"`
	ModelPatch      string `json:"model_patch"`
}

// Files are the paths Write wrote.
type Files struct {
	Instances, Predictions string
	// PatchBytes is the sum of the model patches' sizes.
	PatchBytes int
}

// Write writes dir/instances.jsonl and dir/predictions.jsonl.
func Write(dir string, o Options) (Files, error) {
	if o.Instances < len(o.Real) || len(o.Patches) != len(o.Real) {
		return Files{}, fmt.Errorf("swebenchgen: %d instances, %d real ones and %d patches for them: want at least as many instances as real ones, and a patch each", o.Instances, len(o.Real), len(o.Patches))
	}
	size := o.PatchBytes
	if size == nil {
		size = SpreadSizes(100 << 10)
	}
	model := o.Model
	if model == "" {
		model = "swebenchgen"
	}
	var insts, preds strings.Builder
	f := Files{Instances: filepath.Join(dir, "instances.jsonl"), Predictions: filepath.Join(dir, "predictions.jsonl")}
	add := func(inst any, p Prediction) error {
		for _, rec := range []struct {
			to *strings.Builder
			v  any
		}{{&insts, inst}, {&preds, p}} {
			b, err := json.Marshal(rec.v)
			if err != nil {
				return err
			}
			rec.to.Write(b)
			rec.to.WriteByte('\n')
		}
		f.PatchBytes += len(p.ModelPatch)
		return nil
	}
	for j, inst := range o.Real {
		if err := add(inst, Prediction{InstanceID: inst.InstanceID, ModelNameOrPath: model, ModelPatch: o.Patches[j]}); err != nil {
			return f, err
		}
	}
	made := o.Instances - len(o.Real)
	for i, repo := range Repos(made) {
		row := instance(repo, i)
		if err := add(row, Prediction{InstanceID: row.InstanceID, ModelNameOrPath: model, ModelPatch: ModelPatch(row, size(i))}); err != nil {
			return f, err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	if err := os.WriteFile(f.Instances, []byte(insts.String()), 0o644); err != nil {
		return f, err
	}
	return f, os.WriteFile(f.Predictions, []byte(preds.String()), 0o644)
}

// Repos is the repository of each of n instances, in Full's proportions, repository by
// repository.
func Repos(n int) []string {
	out := make([]string, 0, n)
	for k, r := range fullRepos {
		count := r.count * n / FullInstances
		if k == len(fullRepos)-1 {
			count = n - len(out)
		}
		for range count {
			out = append(out, r.repo)
		}
	}
	return out[:n]
}

// hexOf is a 40-hex commit made from the seed.
func hexOf(seed string) string {
	sum := sha1.Sum([]byte(seed))
	return hex.EncodeToString(sum[:])
}

// instance i of repo: an id as SWE-bench writes them (owner__name-number), its module and tests.
func instance(repo string, i int) Row {
	owner, name, _ := strings.Cut(repo, "/")
	id := fmt.Sprintf("%s__%s-%d", owner, name, 10000+i)
	module := strings.ReplaceAll(name, "-", "_")
	testFile := fmt.Sprintf("tests/test_issue_%d.py", 10000+i)
	if repo == "django/django" {
		testFile = fmt.Sprintf("tests/issue_%d/tests.py", 10000+i)
	}
	failing := []string{testFile + "::test_regression"}
	passing := make([]string, 0, 40)
	for k := range 40 {
		passing = append(passing, fmt.Sprintf("%s::test_existing_behaviour_%d", testFile, k))
	}
	f2p, _ := json.Marshal(failing)
	p2p, _ := json.Marshal(passing)
	var tp strings.Builder
	fmt.Fprintf(&tp, "diff --git a/%[1]s b/%[1]s\nnew file mode 100644\n--- /dev/null\n+++ b/%[1]s\n@@ -0,0 +1,%[2]d @@\n", testFile, 4+3*40+1)
	fmt.Fprintf(&tp, "+import %s\n+\n+\n+def test_regression():\n", module)
	for k := range 40 {
		fmt.Fprintf(&tp, "+    assert %s.behaviour(%d) == %d\n+def test_existing_behaviour_%d():\n+    assert True\n", module, k, k, k)
	}
	fmt.Fprintf(&tp, "+    assert %s.fixed()\n", module)
	return Row{
		InstanceID: id, Repo: repo, BaseCommit: hexOf(id + "/base"),
		Patch:            goldPatch(module, i),
		TestPatch:        tp.String(),
		ProblemStatement: strings.Repeat(fmt.Sprintf("%s misbehaves when called with %d arguments; the traceback follows.\n", module, i%7), 20),
		CreatedAt:        fmt.Sprintf("2023-%02d-%02dT12:00:00Z", 1+i%12, 1+i%28),
		Version:          fmt.Sprintf("%d.%d", 1+i%5, i%10),
		FailToPass:       string(f2p), PassToPass: string(p2p),
		EnvironmentSetupCommit: hexOf(id + "/env"),
	}
}

func goldPatch(module string, i int) string {
	return fmt.Sprintf("diff --git a/%[1]s/core.py b/%[1]s/core.py\n--- a/%[1]s/core.py\n+++ b/%[1]s/core.py\n@@ -%[2]d,3 +%[2]d,3 @@\n def fixed():\n-    return False\n+    return True\n", module, 10+i%90)
}

// ModelPatch is a model's patch of about size bytes for row: the fix, then as many added
// lines of a new module as make up the size (the large predictions of a benchmark add code and
// data).
func ModelPatch(row Row, size int) string {
	var b strings.Builder
	b.WriteString(row.Patch)
	owner, _, _ := strings.Cut(row.Repo, "/")
	header := fmt.Sprintf("diff --git a/%[1]s/generated.py b/%[1]s/generated.py\nnew file mode 100644\n--- /dev/null\n+++ b/%[1]s/generated.py\n", owner)
	const line = 64 // a line of the table below, "\n" included
	lines := max(0, (size-b.Len()-len(header)-32)/line)
	if lines == 0 {
		return b.String()
	}
	b.WriteString(header)
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", lines)
	for k := range lines {
		fmt.Fprintf(&b, "+TABLE_%08d = %q  # %s\n", k, hexOf(row.InstanceID + fmt.Sprint(k))[:24], strings.Repeat("x", 15))
	}
	return b.String()
}
