package swebench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadInstances(t *testing.T) {
	django := Instance{
		InstanceID: "django__django-11099", Repo: "django/django", BaseCommit: "d26b242", Patch: "p", TestPatch: "tp",
		FailToPass: TestList{"test_a (x.Y)"}, PassToPass: TestList{"test_b (x.Y)", "test_c (x.Y)"}, Version: "3.0",
		EnvironmentSetupCommit: "419a78", ProblemStatement: "ignored",
	}
	v5 := Instance{
		InstanceID: "o__r-2", Repo: "o/r", FailToPass: TestList{"t"}, Image: "reg/img:1", EvalScript: "#!/bin/bash\n",
		LogParser: "parse_log_gotest", EvalType: FailOnly,
	}
	const djangoJSON = `{"instance_id":"django__django-11099","repo":"django/django","base_commit":"d26b242","patch":"p","test_patch":"tp",` +
		`"FAIL_TO_PASS":"[\"test_a (x.Y)\"]","PASS_TO_PASS":"[\"test_b (x.Y)\", \"test_c (x.Y)\"]","version":"3.0",` +
		`"environment_setup_commit":"419a78","problem_statement":"ignored","created_at":"2019-01-01"}`
	const v5JSON = `{"instance_id":"o__r-2","repo":"o/r","FAIL_TO_PASS":["t"],"PASS_TO_PASS":null,"image":"reg/img:1",` +
		`"eval_script":"#!/bin/bash\n","log_parser":"parse_log_gotest","eval_type":"fail_only"}`
	tests := map[string]struct {
		name, content string
		want          []Instance
	}{
		"jsonl with string-encoded lists": {name: "d.jsonl", content: djangoJSON + "\n\n" + v5JSON + "\n", want: []Instance{django, v5}},
		"json list":                       {name: "d.json", content: "[" + djangoJSON + "," + v5JSON + "]", want: []Instance{django, v5}},
		"json single object":              {name: "d.json", content: v5JSON, want: []Instance{v5}},
		"json keyed by id":                {name: "d.json", content: `{"o__r-2":` + v5JSON + `}`, want: []Instance{v5}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := LoadInstances(writeFile(t, tc.name, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("instances (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadInstancesErrors(t *testing.T) {
	tests := map[string]struct {
		name, content string
		wantErr       []string
	}{
		"unknown extension": {name: "d.csv", content: "x", wantErr: []string{"d.csv", `unknown extension ".csv"`, ".json or .jsonl"}},
		"bad jsonl line":    {name: "d.jsonl", content: `{"instance_id":"a"}` + "\n{oops\n", wantErr: []string{"d.jsonl:2"}},
		"FAIL_TO_PASS not a list": {name: "d.jsonl", content: `{"instance_id":"a__b-1","FAIL_TO_PASS":"not json"}`,
			wantErr: []string{"d.jsonl:1", "(instance a__b-1)", "does not hold a JSON list of test ids"}},
		"FAIL_TO_PASS a number": {name: "d.jsonl", content: `{"instance_id":"a__b-1","FAIL_TO_PASS":3}`,
			wantErr: []string{"(instance a__b-1)", "want a list of test ids or a JSON string holding one"}},
		"no instance id":          {name: "d.json", content: `[{"repo":"a/b"}]`, wantErr: []string{"d.json: item 0", "no instance_id; add one"}},
		"duplicate ids":           {name: "d.jsonl", content: `{"instance_id":"x"}` + "\n" + `{"instance_id":"x"}`, wantErr: []string{"duplicate instance ids x"}},
		"bad eval_type":           {name: "d.jsonl", content: `{"instance_id":"x","eval_type":"strict"}`, wantErr: []string{"instance x", `eval_type "strict"`}},
		"key and id differ":       {name: "d.json", content: `{"a":{"instance_id":"b","repo":"r"}}`, wantErr: []string{`keyed "a" but its instance_id is "b"`}},
		"not a list or dict":      {name: "d.json", content: `"x"`, wantErr: []string{"want a JSON list or object of instances"}},
		"missing file":            {name: "", wantErr: []string{"read instances"}},
		"broken json list":        {name: "d.json", content: `[{"instance_id":"a"},`, wantErr: []string{"d.json: not a JSON list of instances"}},
		"broken json object":      {name: "d.json", content: `{"a": {`, wantErr: []string{"d.json: not a JSON object"}},
		"list item not an object": {name: "d.json", content: `["django__django-1"]`, wantErr: []string{"d.json: item 0", "not a JSON object"}},
		"newline in id": {name: "d.jsonl", content: `{"instance_id":"a"}` + "\n" + `{"instance_id":"x\n[verifier]"}`,
			wantErr: []string{"d.jsonl:2", `instance_id "x\n[verifier]" contains U+000A`, "fix the id in the file"}},
		"space in id":       {name: "d.jsonl", content: `{"instance_id":"a b"}`, wantErr: []string{"d.jsonl:1", "contains U+0020"}},
		"id not UTF-8":      {name: "d.jsonl", content: "{\"instance_id\":\"a\xff\"}", wantErr: []string{"d.jsonl:1", "not valid UTF-8"}},
		"id too long":       {name: "d.jsonl", content: `{"instance_id":"` + strings.Repeat("a", 129) + `"}`, wantErr: []string{"d.jsonl:1", "is 129 bytes, more than 128"}},
		"id without a name": {name: "d.json", content: `{"--":{"repo":"r"}}`, wantErr: []string{`d.json: key "--"`, "no ASCII letter or digit"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "absent.json")
			if tc.name != "" {
				path = writeFile(t, tc.name, tc.content)
			}
			_, err := LoadInstances(path)
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

func strp(s string) *string { return &s }

func TestLoadPredictions(t *testing.T) {
	want := []Prediction{
		{InstanceID: "a__b-1", ModelNameOrPath: "m", ModelPatch: strp("diff")},
		{InstanceID: "a__b-2", ModelNameOrPath: "m"},
	}
	tests := map[string]struct {
		name, content string
	}{
		"jsonl": {name: "p.jsonl", content: `{"instance_id":"a__b-1","model_name_or_path":"m","model_patch":"diff"}` + "\n" +
			`{"instance_id":"a__b-2","model_name_or_path":"m","model_patch":null}` + "\n"},
		"json list": {name: "p.json", content: `[{"instance_id":"a__b-1","model_name_or_path":"m","model_patch":"diff"},` +
			`{"instance_id":"a__b-2","model_name_or_path":"m","model_patch":null}]`},
		"json keyed by id": {name: "p.json", content: `{"a__b-1":{"model_name_or_path":"m","model_patch":"diff"},` +
			`"a__b-2":{"instance_id":"a__b-2","model_name_or_path":"m"}}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := LoadPredictions(writeFile(t, tc.name, tc.content))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("predictions (-want +got):\n%s", diff)
			}
		})
	}
	errTests := map[string]struct {
		name, content string
		wantErr       string
	}{
		"wrong type names the file, line and instance": {name: "p.jsonl", content: `{"instance_id":"a__b-1","model_patch":5}`,
			wantErr: "p.jsonl:1 (instance a__b-1): field model_patch: want string, got JSON number"},
		"no instance id": {name: "p.json", content: `[{"model_patch":"x"}]`, wantErr: "p.json: item 0: prediction has no instance_id; add one"},
		"key and id differ": {name: "p.json", content: `{"a__b-1":{"instance_id":"a__b-2","model_patch":"x"}}`,
			wantErr: `p.json: key "a__b-1": keyed "a__b-1" but its instance_id is "a__b-2"; make them the same`},
		"unknown extension": {name: "p.txt", content: "x", wantErr: `unknown extension ".txt"; predictions are read from .json or .jsonl`},
	}
	for name, tc := range errTests {
		t.Run(name, func(t *testing.T) {
			_, err := LoadPredictions(writeFile(t, tc.name, tc.content))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestMatchPredictions(t *testing.T) {
	instances := []Instance{{InstanceID: "a"}, {InstanceID: "b"}, {InstanceID: "c"}, {InstanceID: "d"}}
	tests := map[string]struct {
		preds   []Prediction
		want    Matching
		wantErr string
	}{
		"run, empty, null, missing": {
			preds: []Prediction{{InstanceID: "a", ModelPatch: strp("diff")}, {InstanceID: "b", ModelPatch: strp("")}, {InstanceID: "c"}},
			want: Matching{
				ToRun:         []Match{{Instance: Instance{InstanceID: "a"}, Prediction: Prediction{InstanceID: "a", ModelPatch: strp("diff")}}},
				EmptyPatchIDs: []string{"b", "c"},
				MissingIDs:    []string{"d"},
			},
		},
		"duplicates": {
			preds:   []Prediction{{InstanceID: "a"}, {InstanceID: "a"}, {InstanceID: "b"}, {InstanceID: "b"}},
			wantErr: "more than one prediction for a, b (keep one each)",
		},
		"unknown ids": {
			preds:   []Prediction{{InstanceID: "zz"}, {InstanceID: "a"}, {InstanceID: "yy"}},
			wantErr: "predictions for instances not in the dataset: yy, zz (check the dataset and split)",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := MatchPredictions(instances, tc.preds)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("matching (-want +got):\n%s", diff)
			}
		})
	}
}

func TestImageName(t *testing.T) {
	tests := map[string]struct {
		id, template, want string
	}{
		"official":           {id: "django__django-11099", want: "swebench/sweb.eval.x86_64.django_1776_django-11099:latest"},
		"lower-cased":        {id: "Owner__Repo-3", want: "swebench/sweb.eval.x86_64.owner_1776_repo-3:latest"},
		"template":           {id: "astropy__astropy-12907", template: "registry.local/swe/{id}:v1", want: "registry.local/swe/astropy_1776_astropy-12907:v1"},
		"template, verbatim": {id: "A__b-1", template: "r/{instance_id}", want: "r/A__b-1"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := ImageName(tc.id, tc.template); got != tc.want {
				t.Errorf("ImageName(%q, %q) = %q, want %q", tc.id, tc.template, got, tc.want)
			}
		})
	}
	if got := (Instance{InstanceID: "a__b-1", Image: "own/image:5"}).EvalImage(""); got != "own/image:5" {
		t.Errorf("EvalImage of a v5 instance = %q", got)
	}
}
