package swebenchcli

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/swebench/specs"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// specInstance is an instance of repo in the datasets' schema: a version of v4.1.0's specs
// when it has one, else (a repository only v5.0.1 maps) a v5 instance with its own
// eval_script and log_parser, as SWE-bench Multimodal's carry them.
func specInstance(repo string) map[string]any {
	r, _ := specs.Lookup(repo)
	owner, name, _ := strings.Cut(repo, "/")
	id := owner + "__" + name + "-1"
	sum := sha1.Sum([]byte(id))
	inst := map[string]any{"instance_id": id, "repo": repo, "base_commit": hex.EncodeToString(sum[:]),
		"patch": "", "problem_statement": "A bug.", "hints_text": "", "created_at": "2024-01-02T03:04:05Z",
		"test_patch":   "diff --git a/test/test_x.py b/test/test_x.py\nindex 1111111..2222222 100644\n--- a/test/test_x.py\n+++ b/test/test_x.py\n@@ -1 +1,2 @@\n x\n+y\n",
		"FAIL_TO_PASS": `["test_x"]`, "PASS_TO_PASS": `[]`,
		"environment_setup_commit": hex.EncodeToString(sum[:]),
	}
	if versions := r.VersionNames(); len(versions) > 0 {
		inst["version"] = versions[len(versions)-1]
	} else {
		inst["version"] = "1.0"
		inst["eval_script"] = "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\nnpx jest --verbose\n: '>>>>> End Test Output'\n"
		inst["log_parser"] = r.Parsers[specs.Tag5].Name
		inst["image"], inst["eval_type"] = "swebench/sweb.eval.x86_64."+strings.ToLower(id)+":latest", "pass_and_fail"
	}
	return inst
}

// Every repository of v4.1.0's MAP_REPO_TO_PARSER imports under 4.1, and every repository of
// those and of v5.0.1's maps under 5; grading.json carries the spec of the instance's version.
func TestImportEveryKnownRepository(t *testing.T) {
	for _, tc := range []struct {
		version swebench.GradingVersion
		repos   []string
	}{{swebench.V41, specs.MappedRepos(specs.Tag41)}, {swebench.V5, specs.KnownRepos()}} {
		for _, repo := range tc.repos {
			t.Run(string(tc.version)+"/"+repo, func(t *testing.T) {
				inst := specInstance(repo)
				parser := inst["log_parser"]
				if parser == nil {
					parser, _ = logparse.ForRepo(repo)
				}
				dir := t.TempDir()
				o := importOptions(t)
				o.Grading = string(tc.version)
				o.Instances = writeRecords(t, dir, "instances.jsonl", inst)
				o.Predictions = writeRecords(t, dir, "predictions.jsonl", testPrediction(inst["instance_id"].(string), 10))
				_, err := execute(t, o)
				if err != nil {
					t.Fatalf("%v (parser %v)", err, parser)
				}
				data, err := os.ReadFile(filepath.Join(o.OutDir, "graders", catalogue.ResourceName(inst["instance_id"].(string)), swebench.GradingFile))
				if err != nil {
					t.Fatal(err)
				}
				var got swebench.GradingConfig
				if err := json.Unmarshal(data, &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(wantGrading(t, repo, inst, tc.version), got); diff != "" {
					t.Errorf("grading.json (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// wantGrading is what the specs say for the instance, written out from specs.json.
func wantGrading(t *testing.T, repo string, inst map[string]any, v swebench.GradingVersion) swebench.GradingConfig {
	t.Helper()
	want := swebench.GradingConfig{GradingVersion: string(v), TimeoutSec: swebench.DefaultTimeoutSec}
	r, _ := specs.Lookup(repo)
	spec, ok := r.Versions[inst["version"].(string)]
	if !ok || (v == swebench.V5 && inst["eval_script"] != nil) {
		return want
	}
	want.Spec = fmt.Sprintf("%s %s, %s", repo, inst["version"], spec.From)
	if r.Ext == specs.ExtPython {
		want.TestCommand, want.EvalCommands, want.Install = spec.TestCmd[0], spec.EvalCommands, strings.Join(spec.Install, "\n")
		want.PytestPlugins, want.ReinstallNetwork = spec.PytestPlugins, spec.ReinstallNetwork
		return want
	}
	none := []string{}
	want.Script, want.TestCommand, want.Directives, want.Setup, want.Build = swebench.ScriptCommon, strings.Join(spec.TestCmd, "\n"), &none, &none, spec.Build
	return want
}

// The spec data holds what the issue counts: 4.1's repository map (with babel/babel and
// facebook/docusaurus), 5.0.1's registry of 57 parser names, Django's locale commands, and
// astropy's test command per version.
func TestSpecData(t *testing.T) {
	d := specs.All()
	if n := len(specs.MappedRepos(specs.Tag41)); n != 64 {
		t.Errorf("v4.1.0 maps %d repositories to a parser, want 64", n)
	}
	for _, repo := range []string{"babel/babel", "facebook/docusaurus"} {
		if !slices.Contains(specs.MappedRepos(specs.Tag41), repo) {
			t.Errorf("v4.1.0's map lacks %s", repo)
		}
	}
	if n := len(d.ParserRegistry[specs.Tag5].Names); n != 57 {
		t.Errorf("v5.0.1's registry has %d names, want 57", n)
	}
	django, _ := specs.Lookup("django/django")
	var locale int
	for _, v := range django.Versions {
		if slices.ContainsFunc(v.EvalCommands, func(c string) bool { return strings.Contains(c, "en_US.UTF-8") }) {
			locale++
		}
	}
	if locale != 11 || len(django.Versions) != 20 {
		t.Errorf("%d of %d Django versions set the locale in eval_commands, want 11 of 20", locale, len(django.Versions))
	}
	astropy, _ := specs.Lookup("astropy/astropy")
	var vv int
	for _, v := range astropy.Versions {
		if strings.Contains(v.TestCmd[0], "-vv") {
			vv++
		}
	}
	if vv != 7 || len(astropy.Versions) != 17 {
		t.Errorf("%d of %d astropy versions use -vv, want 7 of 17", vv, len(astropy.Versions))
	}
	for tag, want := range map[string][]string{
		specs.Tag41: {"git apply --verbose", "git apply --verbose --reject", "patch --batch --fuzz=5 -p1 -i"},
		specs.Tag5:  {"git apply --verbose", "git apply --verbose --3way", "git apply --verbose --reject", "patch --batch --forward --fuzz=5 -p1 -i"},
	} {
		if diff := cmp.Diff(want, d.PatchApply[tag].Methods); diff != "" {
			t.Errorf("%s patch-apply methods (-want +got):\n%s", tag, diff)
		}
	}
	for _, r := range d.Repos {
		for name, v := range r.Versions {
			if !strings.HasPrefix(v.From, specs.Tag41+":swebench/harness/constants/") {
				t.Errorf("version %s: from %q", name, v.From)
			}
		}
	}
}

// A v5 instance's own eval_script is what 5 runs; 4.1 builds the script from the specs and
// never reads it, so under 4.1 the grader directory leaves it out when the specs have the
// version.
func TestImportOwnEvalScriptPerVersion(t *testing.T) {
	inst := specInstance("django/django")
	inst["version"], inst["eval_script"], inst["log_parser"] = "3.0", "#!/bin/bash\nset -uxo pipefail\n: '>>>>> End Test Output'\n", "parse_log_django"
	for _, tc := range []struct {
		version    swebench.GradingVersion
		wantScript bool
		wantSpec   string
	}{
		{swebench.V41, false, "django/django 3.0, v4.1.0:swebench/harness/constants/python.py"},
		{swebench.V5, true, ""},
	} {
		t.Run(string(tc.version), func(t *testing.T) {
			dir := t.TempDir()
			o := importOptions(t)
			o.Grading = string(tc.version)
			o.Instances = writeRecords(t, dir, "instances.jsonl", inst)
			o.Predictions = writeRecords(t, dir, "predictions.jsonl", testPrediction(inst["instance_id"].(string), 10))
			if _, err := execute(t, o); err != nil {
				t.Fatal(err)
			}
			in, err := swebench.ReadGraderDir(filepath.Join(o.OutDir, "graders", catalogue.ResourceName(inst["instance_id"].(string))))
			if err != nil {
				t.Fatal(err)
			}
			if (in.Instance.EvalScript != "") != tc.wantScript || in.Config.Spec != tc.wantSpec {
				t.Errorf("eval_script kept %v, spec %q; want kept %v, spec %q", in.Instance.EvalScript != "", in.Config.Spec, tc.wantScript, tc.wantSpec)
			}
		})
	}
}

// An instance whose specs' reinstall downloads build requirements is listed when the verifier
// has no network, and not when it has.
func TestImportListsReinstallsThatNeedTheNetwork(t *testing.T) {
	for _, tc := range []struct {
		repo, network string
		listed        bool
	}{
		{"astropy/astropy", taskdef.NetworkNone, true},
		{"astropy/astropy", taskdef.NetworkPublic, false},
		{"scikit-learn/scikit-learn", taskdef.NetworkNone, false}, // --no-build-isolation
	} {
		t.Run(tc.repo+"/"+tc.network, func(t *testing.T) {
			inst := specInstance(tc.repo)
			dir := t.TempDir()
			o := importOptions(t)
			o.VerifierNetwork = tc.network
			o.Instances = writeRecords(t, dir, "instances.jsonl", inst)
			o.Predictions = writeRecords(t, dir, "predictions.jsonl", testPrediction(inst["instance_id"].(string), 10))
			out, err := execute(t, o)
			if err != nil {
				t.Fatal(err)
			}
			line := "the specs' reinstall downloads build requirements, which a verifier without network cannot: compiled code a patch changes " +
				"is not rebuilt unless you import with --verifier-network public (1): " + inst["instance_id"].(string)
			if strings.Contains(out, line) != tc.listed {
				t.Errorf("listed %v, want %v; output:\n%s", !tc.listed, tc.listed, out)
			}
		})
	}
}
