package logparse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// officialGolden is one testdata/official/<parser>.json: the parse maps of SWE-bench's own
// parser of that name (per tag) on a generated corpus, written by hack/swebench-goldens/run.sh.
type officialGolden struct {
	Upstream map[string]string `json:"upstream"`
	Seed     int64             `json:"seed"`
	Cases    []officialCase    `json:"cases"`
}

type officialCase struct {
	Name string `json:"name"`
	Log  string `json:"log"`
	// A nil map: the parser does not exist in that tag.
	V41 *Statuses `json:"v4.1.0"`
	V5  *Statuses `json:"v5.0.1"`
}

// officialTags are the upstream tags each dialect reproduces.
var officialTags = []struct {
	tag     string
	dialect Dialect
	want    func(officialCase) *Statuses
}{
	{"v4.1.0", Official41, func(c officialCase) *Statuses { return c.V41 }},
	{"v5.0.1", Official5, func(c officialCase) *Statuses { return c.V5 }},
}

// TestOfficialGoldens compares every parser's Official41 and Official5 readings with the
// official parsers' maps on the goldens' corpus (SWEBENCH_GOLDENS names another folder of them). A parser absent from a tag must have no map in
// that tag and Exists must say so.
func TestOfficialGoldens(t *testing.T) {
	forEachGolden(t, filepath.Join("testdata", "official"), "SWEBENCH_GOLDENS", "hack/swebench-goldens/run.sh", func(t *testing.T, file, name string, p Parser, g officialGolden) {
		if len(g.Cases) == 0 {
			t.Fatalf("%s has no case", file)
		}
		for _, tag := range officialTags {
			if _, ok := g.Upstream[tag.tag]; !ok {
				t.Fatalf("%s: upstream has no entry for %s", file, tag.tag)
			}
			exists := g.Upstream[tag.tag] != ""
			if got := p.Exists(tag.dialect); got != exists {
				t.Errorf("%s: Exists(%s) = %v, but the golden's upstream for %s is %q", name, tag.dialect, got, tag.tag, g.Upstream[tag.tag])
			}
			agree, differ := 0, 0
			for _, c := range g.Cases {
				want := tag.want(c)
				if (want != nil) != exists {
					t.Errorf("%s: case %q: %s map present = %v, upstream %q", name, c.Name, tag.tag, want != nil, g.Upstream[tag.tag])
					continue
				}
				if want == nil {
					continue
				}
				if diff := cmp.Diff(*want, p.ParseAs(c.Log, tag.dialect)); diff != "" {
					differ++
					t.Errorf("%s %s (%s), case %q (-official +ours):\n%s\nlog: %q", name, tag.tag, tag.dialect, c.Name, diff, c.Log)
					continue
				}
				agree++
			}
			t.Logf("%s %s: %d cases, %d agree, %d differ (seed %d)", name, tag.tag, len(g.Cases), agree, differ, g.Seed)
		}
	})
}

// forEachGolden decodes every golden file of dir (or of the folder the environment variable
// env names: a fresh batch made with another seed) into a G and runs check on it as a subtest
// named after its parser; it fails when there is none (regenerate says how to make them) or a
// file names a parser that is not registered.
func forEachGolden[G any](t *testing.T, dir, env, regenerate string, check func(t *testing.T, file, name string, p Parser, g G)) {
	if other := os.Getenv(env); other != "" {
		dir = other
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s holds no golden: regenerate them with %s", dir, regenerate)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var g G
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			p, err := Get(name)
			if err != nil {
				t.Fatalf("%s: the golden's parser is not registered: %v", file, err)
			}
			check(t, file, name, p, g)
		})
	}
}
