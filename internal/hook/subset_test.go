package hook

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// sweepBundle is shaped as a real SWE-sweep task's tests/swesweep_eval.json.
const sweepBundle = `{
  "container_repo": "/repo",
  "oracle_digest": "d1",
  "schema": 2,
  "subtasks": [
    {"f2p": ["tests/test_a.py::test_a"], "id": "t-aaa", "target_files": ["src/a.py"]},
    {"f2p": ["tests/test_b.py::test_b"], "id": "t-bbb", "target_files": ["src/b.py"]},
    {"f2p": ["tests/test_c.py::test_c"], "id": "t-ccc", "target_files": ["src/c.py"]}
  ],
  "task": "t",
  "version": "1"
}
`

// recordingTestSh copies the bundle it was handed into the verifier directory and scores it.
const recordingTestSh = `cp /dev/null "$VERIFIER_DIR/ran"
cp "$TESTS_AT/swesweep_eval.json" "$VERIFIER_DIR/seen.json"
echo '{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1, "visible_ok": 1}' > "$VERIFIER_DIR/reward.json"`

// A trial's bug subset reaches the task's own tests/test.sh as SWE-sweep's harness passes it:
// tests/swesweep_eval.json lists only the chosen subtasks, in the order given, each once, and
// keeps every other byte and its mode. When it cannot, test.sh is not run and the stage says
// why: neither a measured 0 nor every bug graded.
func TestVerifyBugSubset(t *testing.T) {
	for _, tc := range []struct {
		name       string
		bundle     string // "" : no swesweep_eval.json
		symlink    bool   // swesweep_eval.json is a symbolic link to a bundle elsewhere
		bugs       []string
		wantReason string
		wantMsg    string
		wantSeen   string
	}{
		{name: "chosen subtasks in the order given", bundle: sweepBundle, bugs: []string{"t-ccc", "t-aaa", "t-ccc"},
			wantSeen: `{
  "container_repo": "/repo",
  "oracle_digest": "d1",
  "schema": 2,
  "subtasks": [{"f2p": ["tests/test_c.py::test_c"], "id": "t-ccc", "target_files": ["src/c.py"]}, {"f2p": ["tests/test_a.py::test_a"], "id": "t-aaa", "target_files": ["src/a.py"]}],
  "task": "t",
  "version": "1"
}
`},
		{name: "no subset: the bundle as it is", bundle: sweepBundle, wantSeen: sweepBundle},
		{name: "no swesweep_eval.json", bugs: []string{"t-aaa"}, wantReason: reasons.BugSubsetUnsupported,
			wantMsg: "spec.bugs (t-aaa): the task is graded by its own tests/test.sh and has no "},
		{name: "unknown ids", bundle: sweepBundle, bugs: []string{"t-aaa", "zz", "t-yy"}, wantReason: reasons.UnknownBugs,
			wantMsg: "names bug ids that "},
		{name: "malformed bundle", bundle: `{"task": "t"}`, bugs: []string{"t-aaa"}, wantReason: reasons.BugSubsetUnsupported,
			wantMsg: `swesweep_eval.json has no "subtasks" list, so test.sh was not run: fix the task's tests/swesweep_eval.json`},
		{name: "a symbolic link is refused, not followed", bundle: sweepBundle, symlink: true, bugs: []string{"t-aaa"}, wantReason: reasons.BugSubsetUnsupported,
			wantMsg: "swesweep_eval.json is a symbolic link: refused: not a regular file, so test.sh was not run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"sweep/input/model.patch": "diff\n", "tests/test.sh": recordingTestSh + "\n"}
			if tc.bundle != "" && !tc.symlink {
				files["tests/swesweep_eval.json"] = tc.bundle
			}
			if tc.symlink {
				files["elsewhere.json"] = tc.bundle
			}
			paths := podRoot(t, files)
			bundlePath := filepath.Join(paths.Tests, "swesweep_eval.json")
			if tc.symlink {
				if err := os.Symlink(filepath.Join(podRootDir(paths), "elsewhere.json"), bundlePath); err != nil {
					t.Fatal(err)
				}
			} else if tc.bundle != "" {
				mustChmod(t, bundlePath, 0o640)
			}
			t.Setenv("VERIFIER_DIR", paths.VerifierDir)
			t.Setenv("TESTS_AT", paths.Tests)
			spec := verifierSpec(paths)
			spec.Verifier = &pc.VerifierSpec{Grader: pc.GraderTestScript, Bugs: tc.bugs}
			d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: selfBinary, TestUser: testIdentity})
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tc.wantReason || !strings.Contains(d.Message, tc.wantMsg) {
				t.Errorf("done = reason %q message %q; want %q, %q", d.Reason, d.Message, tc.wantReason, tc.wantMsg)
			}
			_, ranErr := os.Stat(filepath.Join(paths.VerifierDir, "ran"))
			if tc.wantReason != "" {
				if ranErr == nil || d.Rewards != nil || d.ExitCode != -1 {
					t.Errorf("test.sh ran (%v) or rewards %v, exit code %d: want it not run, no rewards, -1", ranErr == nil, d.Rewards, d.ExitCode)
				}
				if tc.bundle != "" {
					for _, p := range []string{bundlePath, filepath.Join(podRootDir(paths), "elsewhere.json")} {
						if got, err := os.ReadFile(p); err == nil && string(got) != tc.bundle {
							t.Errorf("%s changed to:\n%s", p, got)
						}
					}
				}
				return
			}
			if ranErr != nil || d.Rewards["reward"] != 0.5 {
				t.Fatalf("test.sh ran: %v, rewards %v", ranErr, d.Rewards)
			}
			seen, err := os.ReadFile(filepath.Join(paths.VerifierDir, "seen.json"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantSeen, string(seen)); diff != "" {
				t.Errorf("the bundle test.sh saw (-want +got):\n%s", diff)
			}
			info, err := os.Lstat(bundlePath)
			if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o640 {
				t.Errorf("%s after the rewrite: %v, %v; want a regular file of mode 0640", bundlePath, info, err)
			}
			if entries, _ := os.ReadDir(paths.Tests); len(entries) != 2 {
				t.Errorf("tests/ holds %d entries after the rewrite, want test.sh and the bundle (no temporary file left)", len(entries))
			}
		})
	}
}

// A verifier image whose /tests cannot be written takes no subset: test.sh is not run rather
// than grading every bug.
func TestSelectSubtasksReadOnly(t *testing.T) {
	requireRoot(t)
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mounting a tmpfs at %s (the test needs root with CAP_SYS_ADMIN): %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	bundle := filepath.Join(dir, "swesweep_eval.json")
	if err := os.WriteFile(bundle, []byte(sweepBundle), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remounting %s read-only: %v", dir, err)
	}
	err := selectSubtasks(dir, []string{"t-aaa"})
	var subset *subsetError
	if !errors.As(err, &subset) || subset.reason != reasons.BugSubsetUnsupported ||
		!strings.Contains(subset.message, "spec.bugs (t-aaa): rewriting "+bundle+": ") || !strings.Contains(subset.message, "so test.sh was not run: the verifier image's /tests must be writable by root") {
		t.Errorf("selectSubtasks on a read-only /tests = %v", err)
	}
}
