package steps

import (
	"os"
	"path/filepath"
	"strings"
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

func TestRepoPatchPaths(t *testing.T) {
	repo, _ := newRepo(t, nil)
	tests := map[string]struct {
		patch   string
		want    []string
		wantErr string
	}{
		"git diff": {patch: "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n",
			want: []string{"src/a.py"}},
		"mnemonic prefixes are stripped like any other": {patch: "diff --git c/conftest.py i/conftest.py\nnew file mode 100644\n--- /dev/null\n+++ i/conftest.py\n@@ -0,0 +1 @@\n+x = 1\n",
			want: []string{"conftest.py"}},
		"a plain unified diff": {patch: "--- old/src/a.py\n+++ new/src/a.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n", want: []string{"src/a.py"}},
		"a rename names both paths": {patch: "diff --git a/src/a.py b/src/b.py\nsimilarity index 100%\nrename from src/a.py\nrename to src/b.py\n",
			want: []string{"src/a.py", "src/b.py"}},
		"not a patch":                 {patch: "diff --git a/x b/x\n@@ nonsense\n", wantErr: "git apply"},
		"a patch that does not apply": {patch: "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a = 9\n+a = 2\n", wantErr: "patch does not apply"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "p.diff")
			if err := os.WriteFile(p, []byte(tc.patch), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := repo.PatchPaths(p)
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

// Modified and Untracked together are everything that differs from the base, whatever hides
// it from git status: ignore rules, nested repositories, symlinks.
func TestRepoModifiedAndUntracked(t *testing.T) {
	repo, _ := newRepo(t, nil)
	sweeptest.WriteFiles(t, repo.Dir, map[string]string{
		"src/a.py": "changed\n", ".gitignore": "*.log\nhidden/\n", "x.log": "ignored\n", "hidden/conftest.py": "ignored too\n",
		"nested/.git/HEAD": "ref: refs/heads/main\n", "nested/conftest.py": "in a nested repository\n",
	})
	if err := os.Remove(filepath.Join(repo.Dir, "tests/test_a.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(repo.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	modified, err := repo.Modified()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"src/a.py", "tests/test_a.py"}, modified); diff != "" {
		t.Errorf("Modified (-want +got):\n%s", diff)
	}
	untracked, unreadable, err := repo.Untracked()
	if err != nil || unreadable != nil {
		t.Fatal(err, unreadable)
	}
	want := []string{".gitignore", "hidden/conftest.py", "link", "nested/.git/HEAD", "nested/conftest.py", "x.log"}
	if diff := cmp.Diff(want, untracked); diff != "" {
		t.Errorf("Untracked (-want +got):\n%s", diff)
	}
}

// Restore never follows a symlink the code under test planted: what it points at survives.
func TestRepoRestoreThroughSymlinks(t *testing.T) {
	repo, _ := newRepo(t, nil)
	outside := t.TempDir()
	sweeptest.WriteFiles(t, outside, map[string]string{"conftest.py": "victim\n", "test_a.py": "victim\n"})
	if err := os.RemoveAll(filepath.Join(repo.Dir, "tests")); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"tests": outside, "conftest.py": filepath.Join(outside, "conftest.py"), "sub": outside} {
		if err := os.Symlink(target, filepath.Join(repo.Dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	restored, removed, err := repo.Restore([]string{"tests/test_a.py", "tests/conftest.py", "conftest.py", "sub/conftest.py"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tests/test_a.py"}, restored); diff != "" {
		t.Errorf("restored (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"conftest.py", "sub/conftest.py", "tests/conftest.py"}, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, f := range []string{"conftest.py", "test_a.py"} {
		if got := sweeptest.ReadFile(t, filepath.Join(outside, f)); got != "victim\n" {
			t.Errorf("%s outside the tree = %q", f, got)
		}
	}
	if got := sweeptest.ReadFile(t, filepath.Join(repo.Dir, "tests/test_a.py")); got != baseFiles["tests/test_a.py"] {
		t.Errorf("tests/test_a.py = %q", got)
	}
	for _, p := range []string{"conftest.py", "sub"} {
		if _, err := os.Lstat(filepath.Join(repo.Dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
}

func TestPinnedGitDir(t *testing.T) {
	repo, _ := newRepo(t, nil)
	pin, err := repo.PinGitDir()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pin.Close() }()
	if replaced, err := pin.Check(); err != nil || replaced {
		t.Fatalf("Check on an untouched tree = %v, %v", replaced, err)
	}
	gitDir := filepath.Join(repo.Dir, ".git")
	if err := os.Rename(gitDir, filepath.Join(repo.Dir, "moved-away")); err != nil {
		t.Fatal(err)
	}
	sweeptest.WriteFiles(t, gitDir, map[string]string{"config": "[core]\n\tfsmonitor = touch /tmp/x\n"})
	if replaced, err := pin.Check(); err != nil || !replaced {
		t.Fatalf("Check on a swapped .git = %v, %v; want it put back", replaced, err)
	}
	if _, err := os.Stat(filepath.Join(repo.Dir, "moved-away")); !os.IsNotExist(err) {
		t.Errorf("the original is still under its other name: %v", err)
	}
	if cfg := sweeptest.ReadFile(t, filepath.Join(gitDir, "config")); strings.Contains(cfg, "fsmonitor") {
		t.Errorf("the impostor's config is in place:\n%s", cfg)
	}
	if _, err := repo.Git("rev-parse", "--verify", "base"); err != nil {
		t.Errorf("the repository does not work after Check: %v", err)
	}
}

func TestPinGitDirRefusesALinkedWorkTree(t *testing.T) {
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{".git": "gitdir: /elsewhere\n"})
	_, err := Repo{Dir: dir}.PinGitDir()
	sweeptest.ErrorContains(t, err, "is not a directory")
}
