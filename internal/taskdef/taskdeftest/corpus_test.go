package taskdeftest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeTask(t *testing.T, dir, name, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "task.toml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestShape(t *testing.T) {
	cases := map[string]struct {
		src  string
		want []Pair
	}{
		"scalars": {
			"s = \"x\"\ni = 1\nf = 1.5\nb = true\n",
			[]Pair{{"b", "boolean"}, {"f", "float"}, {"i", "integer"}, {"s", "string"}},
		},
		"dates": {
			"o = 2026-01-02T03:04:05Z\nl = 2026-01-02T03:04:05\nd = 2026-01-02\nt = 03:04:05\n",
			[]Pair{{"d", "local date"}, {"l", "local datetime"}, {"o", "offset datetime"}, {"t", "local time"}},
		},
		"tables, standard and inline": {
			"[a]\nx = 1\n[b]\nenv = { K = \"v\" }\n",
			[]Pair{{"a", "table"}, {"a.x", "integer"}, {"b", "table"}, {"b.env", "table"}, {"b.env.K", "string"}},
		},
		"arrays": {
			"list = [\"a\", 2]\ninline = [{ k = 1 }]\n[[hooks]]\ncommand = \"c\"\n",
			[]Pair{
				{"hooks", "array of tables"}, {"hooks[]", "table"}, {"hooks[].command", "string"},
				{"inline", "array"}, {"inline[]", "table"}, {"inline[].k", "integer"},
				{"list", "array"}, {"list[]", "integer"}, {"list[]", "string"},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeTask(t, dir, "one", tc.src)
			shape, err := Shape(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []Pair
			for p, file := range shape {
				if file != filepath.Join(dir, "one", "task.toml") {
					t.Errorf("%s: file %s", p, file)
				}
				got = append(got, p)
			}
			sort.Slice(got, func(i, j int) bool { return got[i].String() < got[j].String() })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Shape (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShapeBadTOML(t *testing.T) {
	dir := t.TempDir()
	writeTask(t, dir, "bad", "name = ")
	if _, err := Shape(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "bad", "task.toml")) {
		t.Errorf("Shape error = %v, want one naming the file", err)
	}
}

// fatalRecorder stands in for testing.TB to see what Load fails with.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper()             {}
func (r *fatalRecorder) Logf(string, ...any) {}
func (r *fatalRecorder) Fatalf(f string, a ...any) {
	r.msg = fmt.Sprintf(f, a...)
	runtime.Goexit()
}

// load runs Load with SWEEP_CORPUS=value and returns its failure, or "" when it returned.
func load(t *testing.T, value string) (Corpus, string) {
	t.Setenv(CorpusEnv, value)
	r := &fatalRecorder{TB: t}
	var c Corpus
	done := make(chan struct{})
	go func() {
		defer close(done)
		c = Load(r)
	}()
	<-done
	return c, r.msg
}

func TestLoadUnsetIsTestdata(t *testing.T) {
	c, msg := load(t, "")
	if msg != "" {
		t.Fatal(msg)
	}
	if diff := cmp.Diff(Corpus{Dir: TestdataDir(), Tasks: testdataTasks, Bugs: testdataBugs}, c); diff != "" {
		t.Errorf("Load (-want +got):\n%s", diff)
	}
	files, err := TaskFiles(c.Dir)
	if err != nil || len(files) != testdataTasks {
		t.Errorf("testdata has %d task.toml files (%v), want %d", len(files), err, testdataTasks)
	}
}

func TestLoadTestdataAsRealCorpus(t *testing.T) {
	c, msg := load(t, TestdataDir())
	if msg != "" {
		t.Fatal(msg)
	}
	if !c.Real || c.Dir != TestdataDir() {
		t.Errorf("Load = %+v, want the named folder as the real corpus", c)
	}
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	extra := t.TempDir()
	writeTask(t, extra, "x", "name = \"x\"\n[metadata]\nn_subtasks = 2.5\nreleased = 2026-01-02\n")
	cases := map[string]struct {
		value string
		want  []string
	}{
		"relative":     {"relative/corpus", []string{`SWEEP_CORPUS="relative/corpus": want an absolute path`}},
		"missing":      {filepath.Join(empty, "nope"), []string{"the corpus is missing"}},
		"empty folder": {empty, []string{"no */task.toml there"}},
		"pairs the testdata lacks": {extra, []string{
			"uses key paths or types that " + TestdataDir() + " lacks",
			"metadata.n_subtasks (float), used by " + filepath.Join(extra, "x", "task.toml"),
			"metadata.released (local date), used by ",
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, msg := load(t, tc.value)
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("Load failure = %q, want it to contain %q", msg, want)
				}
			}
		})
	}
}
