// Package taskdeftest says which task.toml corpus the corpus tests run over: by default the
// invented tasks in internal/taskdef/testdata/corpus, so that a clone with nothing beside it
// passes its tests; the real SWE-sweep corpus when SWEEP_CORPUS names its tasks folder.
package taskdeftest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// CorpusEnv names the environment variable that selects the real corpus: the folder of task
// directories, each with a task.toml (the SWE-sweep release: 100 tasks).
const CorpusEnv = "SWEEP_CORPUS"

// Corpus is the folder of task directories a corpus test reads and what its tasks add up to.
type Corpus struct {
	Dir string
	// Real is true for the corpus SWEEP_CORPUS names, false for the testdata.
	Real  bool
	Tasks int
	Bugs  int
}

// The totals of each corpus: the SWE-sweep release, and the testdata.
const (
	realTasks, realBugs         = 100, 4068
	testdataTasks, testdataBugs = 3, 29
)

// TestdataDir is the absolute path of internal/taskdef/testdata/corpus. It is found from this
// file's path because the corpus tests run in different package directories.
func TestdataDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("taskdeftest: no caller information to find the testdata")
	}
	return filepath.Join(filepath.Dir(file), "..", "testdata", "corpus")
}

// Load returns the corpus the test runs over. With SWEEP_CORPUS set it fails the test when the
// path is not absolute, is missing, holds no task.toml, or uses a (key path, TOML type) pair
// that the testdata lacks; unset, it returns the testdata and logs that it did.
func Load(t testing.TB) Corpus {
	t.Helper()
	dir, set := os.LookupEnv(CorpusEnv)
	if !set || dir == "" {
		t.Logf("%s is not set: running over the testdata corpus %s", CorpusEnv, TestdataDir())
		return Corpus{Dir: TestdataDir(), Tasks: testdataTasks, Bugs: testdataBugs}
	}
	if !filepath.IsAbs(dir) {
		t.Fatalf("%s=%q: want an absolute path (tests run in their package's directory)", CorpusEnv, dir)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("%s=%s: the corpus is missing: %v", CorpusEnv, dir, err)
	}
	files, err := TaskFiles(dir)
	if err != nil {
		t.Fatalf("%s=%s: %v", CorpusEnv, dir, err)
	}
	if len(files) == 0 {
		t.Fatalf("%s=%s: no */task.toml there: point it at the folder of task directories", CorpusEnv, dir)
	}
	if missing := MissingFromTestdata(t, dir); len(missing) > 0 {
		t.Fatalf("%s=%s uses key paths or types that %s lacks; add them to a task there:\n%s",
			CorpusEnv, dir, TestdataDir(), strings.Join(missing, "\n"))
	}
	return Corpus{Dir: dir, Real: true, Tasks: realTasks, Bugs: realBugs}
}

// TaskFiles lists DIR/*/task.toml, sorted.
func TaskFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "task.toml"))
	sort.Strings(files)
	return files, err
}

// Pair is one key path and the TOML type of its value. Array elements add "[]" to the path:
// {"verifier.collect[].timeout_sec", "integer"}.
type Pair struct {
	Path string
	Type string
}

func (p Pair) String() string { return p.Path + " (" + p.Type + ")" }

// Shape maps each (key path, TOML type) pair used by the task.toml files of the task
// directories in dir to the first file that uses it.
func Shape(dir string) (map[Pair]string, error) {
	files, err := TaskFiles(dir)
	if err != nil {
		return nil, err
	}
	shape := map[Pair]string{}
	for _, file := range files {
		var doc map[string]any
		if _, err := toml.DecodeFile(file, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		addShape(shape, file, "", doc)
	}
	return shape, nil
}

func addShape(shape map[Pair]string, file, path string, v any) {
	if path != "" {
		p := Pair{Path: path, Type: tomlType(v)}
		if _, seen := shape[p]; !seen {
			shape[p] = file
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for k, item := range v {
			addShape(shape, file, joinKey(path, k), item)
		}
	case []map[string]any:
		for _, item := range v {
			addShape(shape, file, path+"[]", item)
		}
	case []any:
		for _, item := range v {
			addShape(shape, file, path+"[]", item)
		}
	}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// tomlType names a decoded value's TOML type. A standard table and an inline table decode
// alike, and the task reader treats them alike, so both are "table".
func tomlType(v any) string {
	switch v := v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case time.Time:
		// The decoder marks the local kinds with these zone names.
		switch v.Location().String() {
		case "datetime-local":
			return "local datetime"
		case "date-local":
			return "local date"
		case "time-local":
			return "local time"
		}
		return "offset datetime"
	case map[string]any:
		return "table"
	case []map[string]any:
		return "array of tables"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// MissingFromTestdata lists, sorted, each pair the corpus in dir uses and the testdata does
// not, with a file that uses it.
func MissingFromTestdata(t testing.TB, dir string) []string {
	t.Helper()
	corpus, err := Shape(dir)
	if err != nil {
		t.Fatalf("reading the corpus %s: %v", dir, err)
	}
	testdata, err := Shape(TestdataDir())
	if err != nil {
		t.Fatalf("reading the testdata corpus: %v", err)
	}
	var missing []string
	for p, file := range corpus {
		if _, ok := testdata[p]; !ok {
			missing = append(missing, fmt.Sprintf("  %s, used by %s", p, file))
		}
	}
	sort.Strings(missing)
	t.Logf("key path and type pairs: corpus %d, testdata %d, missing from the testdata %d", len(corpus), len(testdata), len(missing))
	return missing
}
