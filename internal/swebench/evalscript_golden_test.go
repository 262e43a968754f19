package swebench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// evalScriptGolden is one file of testdata/official-evalscripts, written by
// hack/swebench-goldens/specs_data.py evalscripts from the official harness.
type evalScriptGolden struct {
	Upstream map[string]string `json:"upstream"`
	Commits  map[string]string `json:"commits"`
	Instance Instance          `json:"instance"`
	V41      string            `json:"v4.1.0"`
	V5       string            `json:"v5.0.1"`
}

func readEvalScriptGoldens(t *testing.T) map[string]evalScriptGolden {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "official-evalscripts", "*__*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no eval-script goldens in testdata/official-evalscripts (%v): regenerate them with hack/swebench-goldens/specs_data.py evalscripts", err)
	}
	out := map[string]evalScriptGolden{}
	for _, p := range paths {
		var g evalScriptGolden
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if g.V41 == "" || g.V5 == "" || g.Commits["v4.1.0"] == "" || g.Commits["v5.0.1"] == "" {
			t.Fatalf("%s: want both tags' scripts and commits", p)
		}
		out[filepath.Base(p)] = g
	}
	return out
}

// withoutGuardLines removes the guard lines from script, failing on a line that looks like
// one but is not of the documented set (GuardNames), and returns the names it removed.
func withoutGuardLines(t *testing.T, script string) (string, []string) {
	t.Helper()
	var kept, names []string
	for _, l := range strings.Split(script, "\n") {
		rest, ok := strings.CutPrefix(l, GuardLinePrefix)
		if !ok {
			kept = append(kept, l)
			continue
		}
		name, _, _ := strings.Cut(rest, ":")
		if !slices.Contains(GuardNames(), name) || !strings.HasPrefix(l, guardLine(name)[:len(guardLine(name))-1]) {
			t.Fatalf("line %q is not one of the documented guard lines %v", l, GuardNames())
		}
		names = append(names, name)
	}
	return strings.Join(kept, "\n"), names
}

// The script the grader runs, minus the documented guard lines, is the official harness's, line
// for line, for one instance of each repository family under both versions: v4.1.0's
// make_eval_script_list, and for 5 the script a v5 dataset carries (the v4.1.0 one) with the
// exit-code record v5.0.1 inserts.
func TestEvalScriptsMatchTheOfficialOnes(t *testing.T) {
	wantGuards := map[string][]string{
		"django__django-11099.json":             {GuardPatch, GuardBuild, GuardTestFiles, GuardExitCode, GuardTestFiles},
		"sympy__sympy-18199.json":               {GuardPatch, GuardBuild, GuardExitCode},
		"astropy__astropy-12907.json":           {GuardPatch, GuardBuild, GuardPlugins, GuardExitCode},
		"scikit-learn__scikit-learn-14894.json": {GuardPatch, GuardBuild, GuardPlugins, GuardExitCode},
		"matplotlib__matplotlib-22711.json":     {GuardPatch, GuardBuild, GuardTestFiles, GuardPlugins, GuardExitCode, GuardTestFiles},
		"psf__requests-1766.json":               {GuardPatch, GuardBuild, GuardPlugins, GuardExitCode},
		"facebook__docusaurus-10130.json":       {GuardPatch, GuardExitCode},
		"gin-gonic__gin-4003.json":              {GuardPatch, GuardExitCode},
		"tokio-rs__tokio-6724.json":             {GuardPatch, GuardTestFiles, GuardExitCode, GuardTestFiles},
	}
	goldens := readEvalScriptGoldens(t)
	if len(goldens) != len(wantGuards) {
		t.Errorf("%d goldens, want one per family (%d)", len(goldens), len(wantGuards))
	}
	for file, g := range goldens {
		for _, tc := range []struct {
			version GradingVersion
			want    string
		}{{V41, g.V41}, {V5, g.V5}} {
			t.Run(file+"/"+string(tc.version), func(t *testing.T) {
				cfg, carried, err := SpecGradingConfig(g.Instance, tc.version)
				if err != nil || !carried {
					t.Fatalf("spec carried %v, error %v", carried, err)
				}
				in := GraderInput{Instance: g.Instance, Config: cfg, Version: tc.version}
				got, guards := withoutGuardLines(t, in.EvalScript(DefaultWorkdir))
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("the grader's eval script minus its guard lines differs from %s's (-official +ours):\n%s", tc.version, diff)
				}
				want := wantGuards[file]
				if tc.version == V5 {
					want = slices.DeleteFunc(slices.Clone(want), func(n string) bool { return n == GuardExitCode })
				}
				if diff := cmp.Diff(want, guards); diff != "" {
					t.Errorf("guard lines (-want +got):\n%s", diff)
				}
			})
		}
		// A v5 instance carrying that script as its eval_script runs it with v5.0.1's record,
		// exactly, so that 5's exit-code check fires for it.
		t.Run(file+"/5 with its own eval_script", func(t *testing.T) {
			inst := g.Instance
			inst.EvalScript, inst.LogParser = g.V41, "parse_log_pytest"
			in := GraderInput{Instance: inst, Config: GradingConfig{GradingVersion: string(V5)}, Version: V5}
			if diff := cmp.Diff(g.V5, in.EvalScript(DefaultWorkdir)); diff != "" {
				t.Errorf("(-official +ours):\n%s", diff)
			}
		})
	}
}

func TestRecordTestExitCode(t *testing.T) {
	tests := map[string]struct{ script, want string }{
		"the record around the first end marker": {
			script: "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npytest\n: '>>>>> End Test Output'\n: '>>>>> End Test Output'\ngit checkout x\n",
			want:   "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\npytest\nSWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\necho \">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE\"\n: '>>>>> End Test Output'\ngit checkout x\n",
		},
		"no end marker: the header lines, wherever they are, go back on top": {
			script: "\n  set -uxo pipefail\ncd /testbed\n#!/bin/bash\npytest\n",
			want:   "#!/bin/bash\nset -uxo pipefail\ncd /testbed\npytest\n",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, RecordTestExitCode(tc.script)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Under 4.1 an instance's own eval_script runs as it is: v4.1.0 has no exit-code record.
func TestOpaqueScriptPerVersion(t *testing.T) {
	script := "#!/bin/bash\nset -uxo pipefail\n: '>>>>> End Test Output'\n"
	in := GraderInput{Instance: Instance{EvalScript: script}, Version: V41}
	if got := in.EvalScript(DefaultWorkdir); got != script {
		t.Errorf("4.1: %q, want the script as it is", got)
	}
	in.Version = V5
	if got := in.EvalScript(DefaultWorkdir); !strings.Contains(got, ExitCodeVar+"=$?") {
		t.Errorf("5: %q lacks the exit-code record", got)
	}
}
