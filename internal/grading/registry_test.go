package grading

import (
	"time"

	"context"
	"flag"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// apiGraderNames reads the values the CRD allows for TaskTrial spec.grader from its
// kubebuilder marker, so that a value added to the API without a registry entry fails here.
func apiGraderNames(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "api", "v1alpha1", "tasktrial_types.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\+kubebuilder:validation:Enum=(.*)\n(?:\s*//.*\n)*\s*Grader string`).FindSubmatch(src)
	if m == nil {
		t.Fatal("tasktrial_types.go: no Enum marker above the Grader field")
	}
	var names []string
	for _, v := range strings.Split(string(m[1]), ";") {
		names = append(names, strings.Trim(v, `"`))
	}
	return names
}

func TestRegistryIsConsistent(t *testing.T) {
	names := append(apiGraderNames(t), pc.GraderTestScript, pc.GraderSWESweep, pc.GraderSWEBench)
	for _, name := range names {
		if _, err := Lookup(name); err != nil {
			t.Errorf("the API or pod contract can name grader %q, but: %v", name, err)
		}
	}
	seen := map[string]bool{}
	common := map[string]bool{pc.RecordReward: true, pc.RecordEval: true, pc.RecordTestStdout: true}
	for _, g := range registry {
		if seen[g.Name()] {
			t.Errorf("grader %q is registered twice", g.Name())
		}
		seen[g.Name()] = true
		if got, err := Lookup(g.Name()); err != nil || got != g {
			t.Errorf("Lookup(%q) = %v, %v; want the entry itself", g.Name(), got, err)
		}
		for _, out := range g.Outputs() {
			if !pc.ValidRecordName(out) || common[out] {
				t.Errorf("grader %q: output %q is not a record name of its own", g.Name(), out)
			}
		}
	}
	if got, _ := Lookup(""); got.Name() != TestScriptName {
		t.Errorf(`Lookup("") = %q, want %q`, got.Name(), TestScriptName)
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := Lookup("magic")
	want := `unknown grader "magic": use one of ` + strings.Join(Names(), ", ") + ` (empty means test-script)`
	if err == nil || err.Error() != want {
		t.Errorf("Lookup(magic) error = %v, want %q", err, want)
	}
	for _, name := range []string{pc.GraderSWEBench, pc.GraderSWESweep, TestScriptName} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error does not name grader %q", name)
		}
	}
}

// The production graders say what they need and write.
func TestGraderDescriptions(t *testing.T) {
	tests := map[string]struct {
		builtIn  bool
		inputDir string
		outputs  []string
	}{
		TestScriptName:    {},
		pc.GraderSWESweep: {builtIn: true, inputDir: pc.TestsDir},
		pc.GraderSWEBench: {builtIn: true, inputDir: pc.TestsDir, outputs: []string{pc.RecordSWEBenchReport}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g, _ := Lookup(name)
			if g.BuiltIn() != tc.builtIn || g.InputDir() != tc.inputDir {
				t.Errorf("built in %v, input %q; want %v, %q", g.BuiltIn(), g.InputDir(), tc.builtIn, tc.inputDir)
			}
			if diff := cmp.Diff(tc.outputs, g.Outputs()); diff != "" {
				t.Errorf("outputs (-want +got):\n%s", diff)
			}
			for _, cm := range []bool{false, true} {
				want := tc.inputDir
				if cm {
					want = pc.GraderConfigDir
				}
				if got := InputDir(g, cm); got != want {
					t.Errorf("InputDir(configMap %v) = %q, want %q", cm, got, want)
				}
			}
		})
	}
}

func TestValidateTrial(t *testing.T) {
	tests := map[string]struct {
		grader  string
		opts    TrialOptions
		wantErr string
	}{
		"test script, bugs":        {grader: TestScriptName, opts: TrialOptions{Task: "t", Bugs: []string{"b1"}}},
		"swesweep, bugs":           {grader: pc.GraderSWESweep, opts: TrialOptions{Task: "t", Bugs: []string{"b1"}}},
		"swebench, whole":          {grader: pc.GraderSWEBench, opts: TrialOptions{Task: "t"}},
		"swebench, bug subset":     {grader: pc.GraderSWEBench, opts: TrialOptions{Task: "inst", Bugs: []string{"b1"}}, wantErr: `spec.bugs: a SWE-bench instance is one bug and cannot be graded in part; remove task "inst" from spec.tasks.bugs of the SweepRun`},
		"swesweep, flake re-check": {grader: pc.GraderSWESweep, opts: TrialOptions{Task: "t", FlakeRechecks: swesweep.MaxFlakeRechecks}},
		"swesweep, too many re-checks": {grader: pc.GraderSWESweep, opts: TrialOptions{Task: "t", FlakeRechecks: swesweep.MaxFlakeRechecks + 1},
			wantErr: "spec.grading.flakeRechecks is 11: give 0 (off) to 10 re-runs of a visible regression"},
		"swebench, flake re-check": {grader: pc.GraderSWEBench, opts: TrialOptions{Task: "inst", FlakeRechecks: 2},
			wantErr: `spec.grading.flakeRechecks is 2, but task "inst" is graded by swebench, which has no flake re-check (only the swesweep grader re-runs visible regressions): set it to 0 in the SweepRun, or run this task in a campaign of its own without it`},
		"test script, flake re-check": {grader: TestScriptName, opts: TrialOptions{Task: "t", FlakeRechecks: 1},
			wantErr: `spec.grading.flakeRechecks is 1, but task "t" is graded by test-script, which has no flake re-check (only the swesweep grader re-runs visible regressions): set it to 0 in the SweepRun, or run this task in a campaign of its own without it`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g, _ := Lookup(tc.grader)
			err := g.ValidateTrial(tc.opts)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("err = %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCommand(t *testing.T) {
	tests := dirWithTestScript(t)
	stage := StageInput{Self: "/sweep/bin/sweep-hook", TestsDir: "/tests", PatchPath: "/logs/artifacts/model.patch", OutDir: "/logs/verifier"}
	cases := map[string]struct {
		grader  string
		stage   func(StageInput) StageInput
		want    Invocation
		wantErr string
	}{
		"swesweep, defaults": {grader: pc.GraderSWESweep, stage: func(s StageInput) StageInput { return s },
			want: Invocation{Path: "/sweep/bin/sweep-hook", Args: []string{"grade", "swesweep", "/tests", "--patch", "/logs/artifacts/model.patch", "--out", "/logs/verifier"}}},
		"swesweep, workdir and bugs": {grader: pc.GraderSWESweep, stage: func(s StageInput) StageInput { s.Workdir, s.Bugs = "/app", []string{"b1", "b2"}; return s },
			want: Invocation{Path: "/sweep/bin/sweep-hook", Args: []string{"grade", "swesweep", "/tests", "--patch", "/logs/artifacts/model.patch", "--out", "/logs/verifier", "--workdir", "/app", "--bugs", "b1,b2"}}},
		"swesweep, test user and deadline": {grader: pc.GraderSWESweep, stage: func(s StageInput) StageInput {
			s.TestUser, s.Deadline = sandbox.Identity{UID: 70000, GID: 70000}, time.Date(2026, 12, 1, 12, 0, 0, 5e8, time.UTC)
			return s
		},
			want: Invocation{Path: "/sweep/bin/sweep-hook", Args: []string{"grade", "swesweep", "/tests", "--patch", "/logs/artifacts/model.patch", "--out", "/logs/verifier", "--test-uid", "70000", "--deadline", "2026-12-01T12:00:00.5Z"}}},
		"swesweep, flake re-check": {grader: pc.GraderSWESweep, stage: func(s StageInput) StageInput { s.FlakeRechecks = 3; return s },
			want: Invocation{Path: "/sweep/bin/sweep-hook", Args: []string{"grade", "swesweep", "/tests", "--patch", "/logs/artifacts/model.patch", "--out", "/logs/verifier", "--flake-rechecks", "3"}}},
		"swebench, grader dir": {grader: pc.GraderSWEBench, stage: func(s StageInput) StageInput { s.InputDir = pc.GraderConfigDir; return s },
			want: Invocation{Path: "/sweep/bin/sweep-hook", Args: []string{"grade", "swebench", "/sweep/grader", "--patch", "/logs/artifacts/model.patch", "--out", "/logs/verifier"}}},
		"test script": {grader: TestScriptName, stage: func(s StageInput) StageInput { s.TestsDir = tests; return s },
			want: Invocation{Path: "SHELL", Args: []string{filepath.Join(tests, "test.sh")}}},
		"no test script": {grader: TestScriptName, stage: func(s StageInput) StageInput { s.TestsDir = t.TempDir(); return s }, wantErr: "no test script: stat "},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			g, _ := Lookup(tc.grader)
			got, err := g.Command(tc.stage(stage))
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.Path == "SHELL" {
				if base := filepath.Base(got.Path); base != "bash" && base != "sh" {
					t.Errorf("path = %q, want bash or sh", got.Path)
				}
				tc.want.Path = got.Path
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("invocation (-want +got):\n%s", diff)
			}
		})
	}
}

func dirWithTestScript(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "test.sh"), []byte("echo 1 > reward.txt\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestFlags(t *testing.T) {
	tests := map[string]struct {
		grader  string
		args    []string
		want    Request
		wantErr string
	}{
		"swesweep, defaults": {grader: pc.GraderSWESweep,
			want: Request{Dir: "D", PatchPath: "/logs/artifacts/model.patch", OutDir: "/logs/verifier", TestUser: sandbox.Test}},
		"swesweep, everything": {grader: pc.GraderSWESweep, args: []string{"-patch", "p", "-out", "o", "-workdir", "w", "-bugs", "b1,b2", "-oracle"},
			want: Request{Dir: "D", PatchPath: "p", OutDir: "o", Workdir: "w", Bugs: []string{"b1", "b2"}, Oracle: true, TestUser: sandbox.Test}},
		"swesweep, test user and deadline": {grader: pc.GraderSWESweep, args: []string{"-test-uid", "70000", "-deadline", "2026-12-01T12:00:00.5Z"},
			want: Request{Dir: "D", PatchPath: "/logs/artifacts/model.patch", OutDir: "/logs/verifier", TestUser: sandbox.Identity{UID: 70000, GID: 70000},
				Deadline: time.Date(2026, 12, 1, 12, 0, 0, 5e8, time.UTC)}},
		"swesweep, flake re-check": {grader: pc.GraderSWESweep, args: []string{"-flake-rechecks", "3"},
			want: Request{Dir: "D", PatchPath: "/logs/artifacts/model.patch", OutDir: "/logs/verifier", TestUser: sandbox.Test, FlakeRechecks: 3}},
		"swebench, no flake re-check":    {grader: pc.GraderSWEBench, args: []string{"-flake-rechecks", "1"}, wantErr: "flag provided but not defined: -flake-rechecks"},
		"swesweep, root is no test user": {grader: pc.GraderSWESweep, args: []string{"-test-uid", "0"}, wantErr: `"0" is not a uid other than 0`},
		"swesweep, bad deadline":         {grader: pc.GraderSWESweep, args: []string{"-deadline", "soon"}, wantErr: `"soon" is not an RFC 3339 time`},
		"swesweep, empty bugs": {grader: pc.GraderSWESweep, args: []string{"-bugs", ""},
			want: Request{Dir: "D", PatchPath: "/logs/artifacts/model.patch", OutDir: "/logs/verifier", TestUser: sandbox.Test}},
		"swebench, defaults": {grader: pc.GraderSWEBench,
			want: Request{Dir: "D", PatchPath: "/logs/artifacts/model.patch", OutDir: "/logs/verifier", Workdir: swebench.DefaultWorkdir, TestUser: sandbox.Test}},
		"swebench, no bugs":     {grader: pc.GraderSWEBench, args: []string{"-bugs", "b1"}, wantErr: "flag provided but not defined: -bugs"},
		"swebench, no oracle":   {grader: pc.GraderSWEBench, args: []string{"-oracle"}, wantErr: "flag provided but not defined: -oracle"},
		"test script, no flags": {grader: TestScriptName, args: []string{"-patch", "p"}, wantErr: "flag provided but not defined: -patch"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g, _ := Lookup(tc.grader)
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			r := Request{Dir: "D"}
			g.Flags(fs, &r)
			err := fs.Parse(tc.args)
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

// The adapters hand the request to their grader: a missing input is a grader failure that
// leaves reward.json saying so.
func TestGradeFailures(t *testing.T) {
	tests := map[string]struct {
		grader, wantErr string
		wantReward      bool
	}{
		pc.GraderSWESweep: {grader: pc.GraderSWESweep, wantErr: "bundle.json", wantReward: true},
		pc.GraderSWEBench: {grader: pc.GraderSWEBench, wantErr: "instance.json", wantReward: true},
		TestScriptName:    {grader: TestScriptName, wantErr: "`sweep-hook grade` runs only built-in graders"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			g, _ := Lookup(tc.grader)
			out := filepath.Join(t.TempDir(), "out")
			err := g.Grade(context.Background(), Request{Dir: t.TempDir(), PatchPath: "/nonexistent", OutDir: out, Workdir: t.TempDir(), Log: io.Discard})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			b, _ := os.ReadFile(filepath.Join(out, "reward.json"))
			if got := strings.Contains(string(b), `"grader_failed": 1`) || strings.Contains(string(b), `"grader_failed":1`); got != tc.wantReward {
				t.Errorf("reward.json = %q; want grader_failed %v", b, tc.wantReward)
			}
		})
	}
}

// TestFlakeRechecksMaximum keeps the API's bound on spec.grading.flakeRechecks (a kubebuilder
// marker, which cannot name a constant) the grader's.
func TestFlakeRechecksMaximum(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "api", "v1alpha1", "sweeprun_types.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\+kubebuilder:validation:Maximum=(\d+)\n(?:\s*//.*\n)*\s*FlakeRechecks int32`).FindSubmatch(src)
	if m == nil {
		t.Fatal("sweeprun_types.go: no Maximum marker above the FlakeRechecks field")
	}
	if got, want := string(m[1]), strconv.Itoa(swesweep.MaxFlakeRechecks); got != want {
		t.Errorf("spec.grading.flakeRechecks Maximum=%s, want swesweep.MaxFlakeRechecks (%s)", got, want)
	}
}
