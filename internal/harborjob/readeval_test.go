package harborjob

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/regularfile"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// ReadResults names the file of each trial, and ReadEval reads the eval.json beside it: not
// when it is missing, nor through a link.
func TestReadResultsAndEval(t *testing.T) {
	dir := t.TempDir()
	result := `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`
	sweeptest.WriteFiles(t, dir, map[string]string{
		"job/a/verifier/reward.json": result, "job/a/verifier/eval.json": `{"subtasks": []}`,
		"job/b/verifier/reward.json": result,
		"job/c/verifier/reward.json": result, "elsewhere.json": `{"subtasks": []}`,
	})
	if err := os.Symlink(filepath.Join(dir, "elsewhere.json"), filepath.Join(dir, "job/c/verifier/eval.json")); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadResults([]string{filepath.Join(dir, "job")})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, r := range got {
		files = append(files, r.File)
	}
	want := []string{filepath.Join(dir, "job/a/verifier/reward.json"), filepath.Join(dir, "job/b/verifier/reward.json"), filepath.Join(dir, "job/c/verifier/reward.json")}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	if data, err := ReadEval(files[0]); err != nil || string(data) != `{"subtasks": []}` {
		t.Errorf("a: %q, %v", data, err)
	}
	if _, err := ReadEval(files[1]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b: error = %v, want one of a missing file", err)
	}
	if _, err := ReadEval(files[2]); !errors.Is(err, regularfile.ErrNotRegular) {
		t.Errorf("c (a link): error = %v, want it refused", err)
	}
}
