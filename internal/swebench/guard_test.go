package swebench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// The guard on a real repository: what a patch did to the runner's files is put back by git,
// whatever the files are (tracked, new, in a new directory, symlinks), and nothing is written or
// deleted through a symlink.
func TestGuardStepPutsBackRunnerFiles(t *testing.T) {
	requireTools(t)
	s := newSandbox(t, map[string]string{"setup.cfg": "[metadata]\nname = calc\n", "tests/conftest.py": "# base\n", "calc.py": "x = 1\n", ".gitignore": "*.egg-info/\n"})
	victimDir := t.TempDir()
	victim := filepath.Join(victimDir, "keep.txt")
	sweeptest.WriteFiles(t, victimDir, map[string]string{"keep.txt": "keep me\n"})
	repo := graderRepo{steps.Repo{Dir: s.dir, Base: strings.TrimSpace(s.mustRun(t, "git rev-parse HEAD"))}}
	before, err := snapshotTree(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	// What a patch could do.
	s.write(t, map[string]string{
		"setup.cfg":                           "[tool:pytest]\naddopts = -p evil\n",
		"evil-1.0.dist-info/entry_points.txt": "[pytest11]\nevil = evil\n",
		"pytest.py":                           "raise SystemExit(0)\n",
		"calc.py":                             "x = 2\n",
	})
	if err := os.Remove(filepath.Join(s.dir, "tests/conftest.py")); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"tests/conftest.py": victim, "lib/sitecustomize.py": victim} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(s.dir, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(s.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	after, err := snapshotTree(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	var rec GuardRecord
	if err := guardStep(repo, runnerFiles{}, before, after, &rec); err != nil {
		t.Fatal(err)
	}
	want := GuardRecord{Restored: []string{"setup.cfg", "tests/conftest.py"}, Removed: []string{"evil-1.0.dist-info/entry_points.txt", "lib/sitecustomize.py", "pytest.py"}}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("guard record (-want +got):\n%s", diff)
	}
	for p, content := range map[string]string{"setup.cfg": "[metadata]\nname = calc\n", "tests/conftest.py": "# base\n", "calc.py": "x = 2\n"} {
		if info, err := os.Lstat(filepath.Join(s.dir, p)); err != nil || !info.Mode().IsRegular() {
			t.Errorf("%s is not a regular file after the guard: %v", p, err)
		} else if got := sweeptest.ReadFile(t, filepath.Join(s.dir, p)); got != content {
			t.Errorf("%s = %q, want %q", p, got, content)
		}
	}
	for _, p := range []string{"evil-1.0.dist-info/entry_points.txt", "pytest.py", "lib/sitecustomize.py"} {
		if _, err := os.Lstat(filepath.Join(s.dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", p, err)
		}
	}
	if got := sweeptest.ReadFile(t, victim); got != "keep me\n" {
		t.Errorf("the file behind a symlink was changed: %q", got)
	}
}

func TestGuardStepRefusesAnImageFileTheBaseLacks(t *testing.T) {
	requireTools(t)
	s := newSandbox(t, map[string]string{"calc.py": "x = 1\n", ".gitignore": "*.egg-info/\n"})
	s.write(t, map[string]string{"calc.egg-info/entry_points.txt": "[console_scripts]\n"})
	repo := graderRepo{steps.Repo{Dir: s.dir, Base: "HEAD"}}
	before, err := snapshotTree(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	s.write(t, map[string]string{"calc.egg-info/entry_points.txt": "[pytest11]\nevil = evil\n"})
	after, err := snapshotTree(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	var rec GuardRecord
	if err := guardStep(repo, runnerFiles{}, before, after, &rec); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.Refused, "calc.egg-info/entry_points.txt") || !strings.Contains(rec.Refused, "not in the base commit") {
		t.Errorf("refused %q: want the path and why it cannot be put back", rec.Refused)
	}
}
