package sweepbundle

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// bundleJSON is shaped as a real SWE-sweep task's tests/swesweep_eval.json (schema 2).
const bundleJSON = `{
  "build_jobs": 4,
  "container_repo": "/repo",
  "evaluation": {"suite": "pytest", "visible_timeout": 3600},
  "oracle_digest": "abc",
  "schema": 2,
  "subtasks": [
    {
      "f2p": ["tests/test_a.py::test_one"],
      "id": "demo-aaa",
      "target_files": ["src/a.py"]
    },
    {"f2p": ["tests/test_b.py::test_two[1-\u00e9]"], "id": "demo-bbb", "target_files": ["src/b.py"]},
    {"f2p": [], "id": "demo-ccc", "target_files": []}
  ],
  "task": "demo",
  "version": "1.0"
}
`

func TestIDs(t *testing.T) {
	got, err := IDs([]byte(bundleJSON))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"demo-aaa", "demo-bbb", "demo-ccc"}, got); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}
}

// The selected subtasks come in the order given, each once; every other byte of the file stays.
func TestSelect(t *testing.T) {
	out, unknown, err := Select([]byte(bundleJSON), []string{"demo-ccc", "demo-aaa", "demo-ccc"})
	if err != nil || unknown != nil {
		t.Fatalf("Select: unknown %v, %v", unknown, err)
	}
	want := `{
  "build_jobs": 4,
  "container_repo": "/repo",
  "evaluation": {"suite": "pytest", "visible_timeout": 3600},
  "oracle_digest": "abc",
  "schema": 2,
  "subtasks": [{"f2p": [], "id": "demo-ccc", "target_files": []}, {
      "f2p": ["tests/test_a.py::test_one"],
      "id": "demo-aaa",
      "target_files": ["src/a.py"]
    }],
  "task": "demo",
  "version": "1.0"
}
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("Select (-want +got):\n%s", diff)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("the rewritten bundle is not JSON: %v", err)
	}
	if ids, err := IDs(out); err != nil || !cmp.Equal(ids, []string{"demo-ccc", "demo-aaa"}) {
		t.Errorf("IDs of the rewritten bundle = %v, %v", ids, err)
	}
}

func TestSelectUnknown(t *testing.T) {
	out, unknown, err := Select([]byte(bundleJSON), []string{"demo-aaa", "zz", "nope", "zz"})
	if err != nil || out != nil {
		t.Fatalf("Select = %q, %v; want no output and no error", out, err)
	}
	if diff := cmp.Diff([]string{"nope", "zz"}, unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

func TestSubset(t *testing.T) {
	for name, tc := range map[string]struct {
		ids, known, subset, unknown []string
	}{
		"in the order given":  {ids: []string{"c", "a"}, known: []string{"a", "b", "c"}, subset: []string{"c", "a"}},
		"each once":           {ids: []string{"a", "a", "x", "x"}, known: []string{"a"}, subset: []string{"a"}, unknown: []string{"x"}},
		"unknown sorted":      {ids: []string{"z", "y", "a"}, known: []string{"a"}, subset: []string{"a"}, unknown: []string{"y", "z"}},
		"none known":          {ids: []string{"a"}, unknown: []string{"a"}},
		"nothing selected":    {known: []string{"a"}},
		"ids are not trimmed": {ids: []string{" a"}, known: []string{"a"}, unknown: []string{" a"}},
	} {
		subset, unknown := Subset(tc.ids, tc.known)
		if diff := cmp.Diff([]any{tc.subset, tc.unknown}, []any{subset, unknown}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestMalformed(t *testing.T) {
	for name, tc := range map[string]struct{ data, want string }{
		"not JSON":            {`nope`, "swesweep_eval.json is not a JSON object"},
		"a list":              {`[]`, "swesweep_eval.json is not a JSON object"},
		"no subtasks":         {`{"task": "demo"}`, `swesweep_eval.json has no "subtasks" list`},
		"subtasks twice":      {`{"subtasks": [], "subtasks": []}`, `swesweep_eval.json has the key "subtasks" twice`},
		"subtasks not a list": {`{"subtasks": {"id": "a"}}`, `swesweep_eval.json: "subtasks" is not a list of subtasks`},
		"subtasks null":       {`{"subtasks": null}`, `swesweep_eval.json: "subtasks" is not a list of subtasks`},
		"an id not a string":  {`{"subtasks": [{"id": "a"}, {"id": 7}]}`, `swesweep_eval.json: subtasks[1] has no string "id"`},
		"no id":               {`{"subtasks": [{"f2p": []}]}`, `swesweep_eval.json: subtasks[0] has no string "id"`},
		"cut short":           {`{"subtasks": [{"id": "a"}]`, "swesweep_eval.json: "},
		"data after":          {`{"subtasks": []} {}`, "swesweep_eval.json has data after its object"},
	} {
		_, err := IDs([]byte(tc.data))
		sweeptest.ErrorContains(t, err, tc.want)
		_, _, err = Select([]byte(tc.data), []string{"a"})
		if err == nil {
			t.Errorf("%s: Select accepted %s", name, tc.data)
		}
	}
	_, _, err := Select([]byte(bundleJSON), nil)
	sweeptest.ErrorContains(t, err, "no bug id to select: name at least one")
}
