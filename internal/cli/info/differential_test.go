package info

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// The differential test: `sweep info --json` on generated job trees against SWE-sweep's own
// scoring on the same trees (testdata/differential/README.md says how the goldens were made).
const (
	goldenSeed  = 1
	treesPerRun = 300
	// scoringEnv names a copy of SWE-sweep's src/swesweep/scoring.py, kept outside the
	// repository; pythonEnv the interpreter that runs it (default /usr/bin/python3).
	scoringEnv = "SWEEP_SWESWEEP_SCORING"
	pythonEnv  = "SWEEP_SWESWEEP_PYTHON"
	// seedEnv, with scoringEnv, checks a fresh batch of that seed against SWE-sweep live.
	seedEnv = "SWEEP_DIFFERENTIAL_SEED"
)

var updateDifferential = flag.Bool("update-differential", false, "rewrite testdata/differential from SWE-sweep's scoring ($"+scoringEnv+")")

// golden is SWE-sweep's answer for one tree: its JSON report, or that it found no result.
type golden struct {
	Tree   string          `json:"tree"`
	Report json.RawMessage `json:"report,omitempty"`
	// Error is set when SWE-sweep's scoring refused the tree (no reward.json it keeps).
	Error bool `json:"error,omitempty"`
}

func goldenFile(seed uint64) string {
	return filepath.Join("testdata", "differential", fmt.Sprintf("seed-%d.json", seed))
}

// treeRoot writes tree below dir and returns its root, dir/tree/jobs: the names SWE-sweep
// derives from a file's grandparent may reach "tree", never the test's own folders.
func treeRoot(t *testing.T, dir string, tree jobTree, without []string) string {
	t.Helper()
	root := filepath.Join(dir, "tree", "jobs")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{}
	for _, p := range without {
		skip[p] = true
	}
	for p, content := range tree.Files {
		if skip[p] {
			continue
		}
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// reference runs SWE-sweep's scoring on the tree without its deviations.
func reference(t *testing.T, python, scoring string, tree jobTree) golden {
	t.Helper()
	root := treeRoot(t, t.TempDir(), tree, tree.Deviations)
	cmd := exec.Command(python, scoring, "--json", root)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case err == nil:
		var compact bytes.Buffer
		if err := json.Compact(&compact, stdout.Bytes()); err != nil {
			t.Fatalf("%s: SWE-sweep's output is not JSON: %v\n%s", tree.Name, err, stdout.String())
		}
		return golden{Tree: tree.Name, Report: compact.Bytes()}
	case strings.Contains(stderr.String(), "no SWE-sweep reward.json found"):
		return golden{Tree: tree.Name, Error: true}
	default:
		t.Fatalf("%s: SWE-sweep's scoring failed: %v\n%s", tree.Name, err, stderr.String())
		return golden{}
	}
}

func TestDifferentialAgainstSWESweep(t *testing.T) {
	scoring, python := os.Getenv(scoringEnv), os.Getenv(pythonEnv)
	if python == "" {
		python = "/usr/bin/python3"
	}
	seed := uint64(goldenSeed)
	live := false
	if s := os.Getenv(seedEnv); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || scoring == "" {
			t.Fatalf("$%s=%q: want a number, with $%s naming SWE-sweep's scoring.py", seedEnv, s, scoringEnv)
		}
		seed, live = n, true
	}
	if *updateDifferential && scoring == "" {
		t.Fatalf("-update-differential needs $%s naming a copy of SWE-sweep's scoring.py", scoringEnv)
	}
	trees := generateJobTrees(seed, treesPerRun)
	var goldens []golden
	if live || *updateDifferential {
		for _, tree := range trees {
			goldens = append(goldens, reference(t, python, scoring, tree))
		}
	}
	if *updateDifferential && !live {
		writeGoldens(t, seed, goldens)
	}
	if goldens == nil {
		b, err := os.ReadFile(goldenFile(seed))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &goldens); err != nil {
			t.Fatal(err)
		}
	}
	if len(goldens) != len(trees) {
		t.Fatalf("%d goldens for %d trees: regenerate with -update-differential", len(goldens), len(trees))
	}
	var compared, refused, deviations, firstTrial, outOfBounds int
	for i, tree := range trees {
		want := goldens[i]
		if want.Tree != tree.Name {
			t.Fatalf("golden %d is for %s, not %s", i, want.Tree, tree.Name)
		}
		root := treeRoot(t, t.TempDir(), tree, nil)
		out, errOut, err := clitest.Execute(context.Background(), &Options{JSON: true, Format: clioptions.OutputTable}, root)
		if want.Error {
			refused++
			if err == nil || !strings.Contains(err.Error(), "no SWE-sweep reward.json found") {
				t.Errorf("%s: SWE-sweep refuses the tree; sweep info: %v", tree.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tree.Name, err)
			continue
		}
		compared++
		firstTrial += strings.Count(errOut, "disagree on n_subtasks")
		outOfBounds += strings.Count(errOut, "out of bounds")
		if diff := cmp.Diff(typedJSON(t, want.Report), typedJSON(t, []byte(out))); diff != "" {
			t.Errorf("%s (seed %d): sweep info --json differs from SWE-sweep's scoring (-swe-sweep +ours):\n%s", tree.Name, seed, diff)
		}
		// A config.json is read only for a result kept, so only results must always be noted.
		for _, p := range tree.Deviations {
			deviations++
			if filepath.Base(p) == reward.FileJSON && !strings.Contains(errOut, filepath.Join(root, p)) {
				t.Errorf("%s: %s is skipped or passed over without a note on stderr:\n%s", tree.Name, p, errOut)
			}
		}
	}
	t.Logf("seed %d: %d trees compared key by key, %d refused by both, %d deviating files noted; %d tasks with a first trial's n_subtasks unlike the others, %d results out of bounds",
		seed, compared, refused, deviations, firstTrial, outOfBounds)
	if compared < treesPerRun/2 {
		t.Errorf("only %d of %d trees compared: the generator makes too few scorable trees", compared, treesPerRun)
	}
}

func writeGoldens(t *testing.T, seed uint64, goldens []golden) {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, g := range goldens {
		b, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		if i < len(goldens)-1 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
	buf.WriteString("]\n")
	if err := os.MkdirAll(filepath.Dir(goldenFile(seed)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenFile(seed), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// typedNumber is a JSON number with its kind: SWE-sweep's integers and floats must match in
// kind as well as in value (3 is not 3.0).
type typedNumber struct {
	Float bool
	Value float64
}

// typedJSON decodes a report keeping each number's kind, for a key-by-key comparison.
func typedJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return typed(t, v)
}

func typed(t *testing.T, v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = typed(t, e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = typed(t, e)
		}
		return v
	case json.Number:
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil {
			t.Fatalf("number %s: %v", v, err)
		}
		return typedNumber{Float: strings.ContainsAny(v.String(), ".eE"), Value: f}
	}
	return v
}
