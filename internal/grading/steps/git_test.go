package steps

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

var baseFiles = map[string]string{"src/a.py": "a = 1\n", "tests/test_a.py": "def test_a(): pass\n"}

// newRepo is a repository tagged "base" and a patch made by edits ("" deletes a file).
func newRepo(t *testing.T, edits map[string]string) (Repo, string) {
	t.Helper()
	dir := sweeptest.GitRepo(t, baseFiles, "base")
	for p, content := range edits {
		if content == "" {
			if err := os.Remove(filepath.Join(dir, p)); err != nil {
				t.Fatal(err)
			}
		}
	}
	sweeptest.WriteFiles(t, dir, nonEmpty(edits))
	patch := filepath.Join(t.TempDir(), "p.diff")
	if err := os.WriteFile(patch, []byte(sweeptest.Diff(t, dir, "base")), 0o644); err != nil {
		t.Fatal(err)
	}
	return Repo{Dir: dir, Base: "base"}, patch
}

func nonEmpty(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

func TestRepoApplyReset(t *testing.T) {
	repo, patch := newRepo(t, map[string]string{"src/a.py": "a = 2\n"})
	if msg, err := repo.Apply(patch, true); err != nil {
		t.Fatalf("apply: %s", msg)
	}
	if got := sweeptest.ReadFile(t, filepath.Join(repo.Dir, "src/a.py")); got != "a = 2\n" {
		t.Errorf("after apply: %q", got)
	}
	if msg, err := repo.Apply(patch, false); err == nil || msg == "" {
		t.Errorf("applying twice: want git's message and an error, got %q, %v", msg, err)
	}
	sweeptest.WriteFiles(t, repo.Dir, map[string]string{"src/a.py": "dirty\n", "new.txt": "untracked\n"})
	if err := repo.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := sweeptest.ReadFile(t, filepath.Join(repo.Dir, "src/a.py")); got != "a = 1\n" {
		t.Errorf("after reset: %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo.Dir, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("reset kept an untracked file: %v", err)
	}
}

func TestRepoRestore(t *testing.T) {
	tests := map[string]struct {
		edits                 map[string]string
		paths                 []string
		wantRestored, wantRmd []string
		wantErr               bool
	}{
		"nothing":  {},
		"modified": {edits: map[string]string{"tests/test_a.py": "def test_a(): assert 0\n"}, paths: []string{"tests/test_a.py"}, wantRestored: []string{"tests/test_a.py"}},
		"deleted":  {edits: map[string]string{"tests/test_a.py": ""}, paths: []string{"tests/test_a.py"}, wantRestored: []string{"tests/test_a.py"}},
		"added": {edits: map[string]string{"tests/test_z.py": "x\n", "tests/conftest.py": "y\n"}, paths: []string{"tests/test_z.py", "tests/conftest.py"},
			wantRmd: []string{"tests/conftest.py", "tests/test_z.py"}},
		"outside the tree": {paths: []string{"../escape"}, wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			repo, patch := newRepo(t, tc.edits)
			if len(tc.edits) > 0 {
				if msg, err := repo.Apply(patch, true); err != nil {
					t.Fatalf("apply: %s", msg)
				}
			}
			restored, removed, err := repo.Restore(tc.paths)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantRestored, restored); diff != "" {
				t.Errorf("restored (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantRmd, removed); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
			if tc.wantErr {
				return
			}
			if status := sweeptest.Run(t, repo.Dir, "git", "status", "--porcelain"); status != "" {
				t.Errorf("the tree differs from the base after Restore:\n%s", status)
			}
		})
	}
}
