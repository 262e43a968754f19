package logparse

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// instanceGolden is one testdata/official-instance/<parser>.json, written by
// hack/swebench-goldens/instance_goldens.py: the goldens of the parsers that read the instance
// (its id or version) besides the log, so each case names the instance it was parsed for.
type instanceGolden struct {
	Upstream map[string]string `json:"upstream"`
	Seed     int64             `json:"seed"`
	Cases    []struct {
		Name       string    `json:"name"`
		Log        string    `json:"log"`
		InstanceID string    `json:"instance_id"`
		Version    string    `json:"version"`
		V41        *Statuses `json:"v4.1.0"`
		V5         *Statuses `json:"v5.0.1"`
	} `json:"cases"`
}

// TestOfficialInstanceGoldens is TestOfficialGoldens for those parsers (SWEBENCH_INSTANCE_GOLDENS
// names another folder of them, e.g. a batch made with another seed).
func TestOfficialInstanceGoldens(t *testing.T) {
	forEachGolden(t, filepath.Join("testdata", "official-instance"), "SWEBENCH_INSTANCE_GOLDENS", "hack/swebench-goldens/instance_goldens.py", func(t *testing.T, file, name string, p Parser, g instanceGolden) {
		if len(g.Cases) == 0 {
			t.Fatalf("%s has no case", file)
		}
		for _, c := range g.Cases {
			in := p.For(Instance{ID: c.InstanceID, Version: c.Version})
			for _, tag := range []struct {
				tag     string
				dialect Dialect
				want    *Statuses
			}{{"v4.1.0", Official41, c.V41}, {"v5.0.1", Official5, c.V5}} {
				exists := g.Upstream[tag.tag] != ""
				if p.Exists(tag.dialect) != exists || (tag.want != nil) != exists {
					t.Errorf("%s %s: Exists = %v, map present = %v, upstream %q", name, tag.tag, p.Exists(tag.dialect), tag.want != nil, g.Upstream[tag.tag])
					continue
				}
				if tag.want == nil {
					if got := in.ParseAs(c.Log, tag.dialect); got != nil {
						t.Errorf("%s %s, case %q: the tag has no such parser, but ParseAs gave %v", name, tag.tag, c.Name, got)
					}
					continue
				}
				if diff := cmp.Diff(*tag.want, in.ParseAs(c.Log, tag.dialect)); diff != "" {
					t.Errorf("%s %s, case %q (%s %s) (-official +ours):\n%s\nlog: %q", name, tag.tag, c.Name, c.InstanceID, c.Version, diff, c.Log)
				}
			}
		}
	})
}
