package hook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// failedNineKeys is the reward.json SWE-sweep's grader writes when it fails: all nine keys,
// grader_failed 1, in its own layout.
var failedNineKeys = []byte(`{"reward": 0.0, "n_subtasks": 3, "n_resolved": 0, "n_partial": 0, "visible_ok": 0, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 0, "grader_failed": 1}` + "\n")

// manifestOf decodes the manifest the collector sent.
func manifestOf(t *testing.T, outputs map[string][]byte) pc.VerifierFiles {
	t.Helper()
	m, err := pc.DecodeVerifierFiles(outputs[pc.RecordVerifierFiles])
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// entry is what a test checks of a manifest entry.
type entry struct {
	Path, Record       string
	Kept, TooLarge     bool
	Refused            string
	Size, OriginalSize int64
}

func entries(m pc.VerifierFiles) []entry {
	var out []entry
	for _, f := range m.Files {
		out = append(out, entry{Path: f.Path, Record: f.Name, Kept: f.Kept(), TooLarge: f.TooLarge, Refused: f.Refused, Size: f.Size, OriginalSize: f.OriginalSize})
	}
	return out
}

// Every file below /logs/verifier travels, nested ones and binary ones too, byte for byte,
// and the manifest lists each; symbolic links and FIFOs are refused, never followed.
func TestCollectorSendsEveryVerifierFile(t *testing.T) {
	binary := []byte{0, 0xff, 0x1f, '\n', 0x8b}
	paths := podRoot(t, map[string]string{
		"logs/verifier/reward.json":             string(failedNineKeys),
		"logs/verifier/eval.json":               `{"subtasks": {}}`,
		"logs/verifier/eval_output.json":        `{"tests": []}`,
		"logs/verifier/grader_error.txt":        "build failed\n",
		"logs/verifier/test-stdout.txt":         "ran\n",
		"logs/verifier/runs/bug 1/junit.xml":    "<testsuite/>",
		"logs/verifier/runs/bug 1/sub/core.bin": string(binary),
		"logs/secret":                           "not the verifier's",
	})
	mustSymlink(t, filepath.Join(filepath.Dir(paths.VerifierDir), "secret"), filepath.Join(paths.VerifierDir, "link.txt"))
	mustSymlink(t, filepath.Dir(paths.VerifierDir), filepath.Join(paths.VerifierDir, "runs", "up"))
	if err := syscall.Mkfifo(filepath.Join(paths.VerifierDir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	rewards, err := reward.ParseJSON(failedNineKeys)
	if err != nil {
		t.Fatal(err)
	}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier, Reason: reasons.GraderFailed, Rewards: rewards})
	s, outputs := collectNow(t, context.Background(), verifierSpec(paths), paths)
	if !s.Streamed || s.Reason != reasons.GraderFailed || cmp.Diff(map[string]float64(rewards), s.Rewards) != "" {
		t.Errorf("summary = %+v", s)
	}
	if !bytes.Equal(outputs[pc.RecordReward], failedNineKeys) {
		t.Errorf("reward.json sent as %q, want it as written", outputs[pc.RecordReward])
	}
	m := manifestOf(t, outputs)
	refused := "is a symbolic link: refused: not a regular file"
	want := []entry{
		{Path: "eval.json", Record: "eval.json", Kept: true, Size: 16, OriginalSize: 16},
		{Path: "eval_output.json", Record: "eval_5foutput.json", Kept: true, Size: 13, OriginalSize: 13},
		{Path: "grader_error.txt", Record: "grader_5ferror.txt", Kept: true, Size: 13, OriginalSize: 13},
		{Path: "link.txt", Record: "link.txt", Refused: "link.txt " + refused},
		{Path: "pipe", Record: "pipe", Refused: "pipe is a named pipe: refused: not a regular file"},
		{Path: "reward.json", Record: "reward.json", Kept: true, Size: int64(len(failedNineKeys)), OriginalSize: int64(len(failedNineKeys))},
		{Path: "runs/bug 1/junit.xml", Record: "runs_2fbug_201_2fjunit.xml", Kept: true, Size: 12, OriginalSize: 12},
		{Path: "runs/bug 1/sub/core.bin", Record: "runs_2fbug_201_2fsub_2fcore.bin", Kept: true, Size: 5, OriginalSize: 5},
		{Path: "runs/up", Record: "runs_2fup", Refused: "up " + refused},
		{Path: "test-stdout.txt", Record: "test-stdout.txt", Kept: true, Size: 4, OriginalSize: 4},
	}
	if diff := cmp.Diff(want, entries(m)); diff != "" || m.Incomplete {
		t.Errorf("manifest (-want +got), incomplete %v:\n%s", m.Incomplete, diff)
	}
	for _, f := range m.Files {
		if b, _ := json.Marshal(f); len(b)+1 > manifestCost(f) {
			t.Errorf("%s takes %d bytes of the manifest, more than the %d charged", f.Path, len(b)+1, manifestCost(f))
		}
	}
	for path, data := range map[string][]byte{"eval_output.json": []byte(`{"tests": []}`), "runs/bug 1/sub/core.bin": binary, "grader_error.txt": []byte("build failed\n")} {
		if got := outputs[pc.VerifierFileRecord(path)]; !bytes.Equal(got, data) {
			t.Errorf("%s sent as %q, want %q", path, got, data)
		}
	}
	for _, o := range s.Outputs {
		if o.Name != pc.RecordVerifierFiles && strings.Contains(o.Name, "_") {
			t.Errorf("summary lists %s: the other files belong in the manifest only, so that the summary fits", o.Name)
		}
	}
}

// Files share the stream's budget after the declared outputs and before the log: one that does
// not fit is listed with its size, not sent, and the trial still has its reward.json.
func TestCollectorListsVerifierFilesThatDoNotFit(t *testing.T) {
	noise := func(n int) string {
		b := make([]byte, n)
		rand.Read(b) // incompressible: compression cannot rescue an overflow
		return string(b)
	}
	paths := podRoot(t, map[string]string{
		"logs/verifier/reward.json":     `{"reward": 1}`,
		"logs/verifier/eval.json":       noise(20 << 10),
		"logs/verifier/a-small.txt":     "small",
		"logs/verifier/b-big.bin":       noise(40 << 10),
		"logs/verifier/c-too-long.bin":  noise(80 << 10),
		"logs/verifier/test-stdout.txt": noise(60 << 10),
	})
	spec := verifierSpec(paths)
	spec.Limits = pc.Limits{MaxStreamBytes: 64 << 10, MaxRecordBytes: 64 << 10}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier, Rewards: map[string]float64{reward.KeyReward: 1}})
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if s.Rewards[reward.KeyReward] != 1 || string(outputs[pc.RecordReward]) != `{"reward": 1}` || len(outputs[pc.RecordEval]) != 20<<10 {
		t.Fatalf("declared outputs not sent first: summary %+v", s)
	}
	m := manifestOf(t, outputs)
	got := map[string]entry{}
	for _, e := range entries(m) {
		got[e.Path] = e
	}
	if e := got["a-small.txt"]; !e.Kept {
		t.Errorf("a-small.txt = %+v, want kept", e)
	}
	for path, size := range map[string]int64{"b-big.bin": 40 << 10, "c-too-long.bin": 80 << 10} {
		if e := got[path]; e.Kept || !e.TooLarge || e.OriginalSize != size {
			t.Errorf("%s = %+v, want listed too large with its %d bytes", path, e, size)
		}
		if _, sent := outputs[pc.VerifierFileRecord(path)]; sent {
			t.Errorf("%s sent though too large", path)
		}
	}
	if e := got["test-stdout.txt"]; !e.Kept || e.Size == 0 || e.Size >= 60<<10 || e.OriginalSize != 60<<10 {
		t.Errorf("test-stdout.txt = %+v, want cut to what is left", e)
	}
}

// The collector stops listing at MaxVerifierEntries, or before the manifest passes
// MaxVerifierManifestBytes, and says so; the trial keeps its reward.json.
func TestCollectorSaysWhenItStoppedListing(t *testing.T) {
	for name, nameLength := range map[string]int{"entries": 8, "manifest bytes": 250} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{"logs/verifier/reward.json": `{"reward": 1}`}
			for i := range pc.MaxVerifierEntries + 5 {
				files[filepath.Join("logs/verifier/many", fmt.Sprintf("%0*d", nameLength, i))] = "."
			}
			paths := podRoot(t, files)
			mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier, Rewards: map[string]float64{reward.KeyReward: 1}})
			s, outputs := collectNow(t, context.Background(), verifierSpec(paths), paths)
			m := manifestOf(t, outputs)
			if !m.Incomplete || len(m.Files) >= pc.MaxVerifierEntries || s.Rewards[reward.KeyReward] != 1 || string(outputs[pc.RecordReward]) != `{"reward": 1}` {
				t.Errorf("manifest lists %d files, incomplete %v; rewards %v", len(m.Files), m.Incomplete, s.Rewards)
			}
			if n := len(outputs[pc.RecordVerifierFiles]); n > pc.MaxVerifierManifestBytes {
				t.Errorf("manifest has %d bytes, above %d", n, pc.MaxVerifierManifestBytes)
			}
			if name == "manifest bytes" && len(m.Files) > pc.MaxVerifierManifestBytes/500 {
				t.Errorf("manifest lists %d files of long names: the byte bound did not stop it", len(m.Files))
			}
		})
	}
}

// A test.sh whose grader failed writes SWE-sweep's nine keys with grader_failed 1: the stage
// leaves the file as it is (only a built-in grader's missing result is replaced by
// reward.GraderFailed) and the collector sends it as written, with the grader's other files.
func TestTestScriptGraderFailureKeepsItsNineKeys(t *testing.T) {
	paths := podRoot(t, map[string]string{
		"sweep/input/model.patch": "diff\n",
		"tests/test.sh": `printf '%s' '` + string(bytes.TrimSuffix(failedNineKeys, []byte("\n"))) + `' > "$VERIFIER_DIR/reward.json"
echo 'Traceback: build failed' > "$VERIFIER_DIR/grader_error.txt"
`,
	})
	t.Setenv("VERIFIER_DIR", paths.VerifierDir)
	openToOthers(t, paths)
	spec := verifierSpec(paths)
	d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: selfBinary, TestUser: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != reasons.GraderFailed {
		t.Errorf("done reason = %q, want %s", d.Reason, reasons.GraderFailed)
	}
	s, outputs := collectNow(t, context.Background(), spec, paths)
	want := bytes.TrimSuffix(failedNineKeys, []byte("\n"))
	if !bytes.Equal(outputs[pc.RecordReward], want) {
		t.Errorf("reward.json sent as %q, want %q as test.sh wrote it", outputs[pc.RecordReward], want)
	}
	if s.Rewards[reward.KeyGraderFailed] != 1 || len(s.Rewards) != 9 {
		t.Errorf("rewards = %v, want the nine keys", s.Rewards)
	}
	if got := string(outputs[pc.VerifierFileRecord("grader_error.txt")]); got != "Traceback: build failed\n" {
		t.Errorf("grader_error.txt sent as %q", got)
	}
	if diff := cmp.Diff([]string{"grader_error.txt", "reward.json", "test-stdout.txt"}, paths0(manifestOf(t, outputs)), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("manifest paths (-want +got):\n%s", diff)
	}
}

func paths0(m pc.VerifierFiles) []string {
	var out []string
	for _, f := range m.Files {
		out = append(out, f.Path)
	}
	return out
}

// The manifest's bound of the summary: it stays within a termination message however many
// files there are, because they ride in the manifest.
func TestCollectorSummaryFitsWithManyFiles(t *testing.T) {
	files := map[string]string{"logs/verifier/reward.json": `{"reward": 1}`}
	for i := range 200 {
		files[filepath.Join("logs/verifier/out", strings.Repeat("f", 1+i))] = "x"
	}
	paths := podRoot(t, files)
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier, Rewards: map[string]float64{reward.KeyReward: 1}})
	_, outputs := collectNow(t, context.Background(), verifierSpec(paths), paths)
	if m := manifestOf(t, outputs); len(m.Files) != 201 || m.Incomplete {
		t.Errorf("manifest lists %d files, incomplete %v", len(m.Files), m.Incomplete)
	}
	if _, err := os.Stat(paths.TerminationLog); err != nil {
		t.Fatal(err)
	}
}
