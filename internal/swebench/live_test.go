package swebench

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// These tests run the scripts for real, with bash, git, patch and pytest, on a small repository.
// A missing tool fails the test with how to install it: a skipped test would hide a gap.

func requireTools(t *testing.T) {
	t.Helper()
	for tool, install := range map[string]string{
		"bash":   "apt-get install -y bash",
		"git":    "apt-get install -y git",
		"patch":  "apt-get install -y patch",
		"diff":   "apt-get install -y diffutils",
		"pytest": "apt-get update && apt-get install -y python3-pytest",
	} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed; install it with: %s", tool, install)
		}
	}
}

// testRepo is a git repository in a temporary directory, with a private HOME so that the eval
// script's "git config --global" stays inside it.
type testRepo struct {
	dir string
	env []string
}

func newSandbox(t *testing.T, files map[string]string) *testRepo {
	t.Helper()
	s := &testRepo{dir: filepath.Join(sweeptest.Reachable(t, t.TempDir()), "repo")}
	s.env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "PYTHONDONTWRITEBYTECODE=1",
		"GIT_AUTHOR_NAME=sweep", "GIT_AUTHOR_EMAIL=sweep@example.com", "GIT_COMMITTER_NAME=sweep", "GIT_COMMITTER_EMAIL=sweep@example.com")
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s.write(t, files)
	s.mustRun(t, "git init -q && git add -A && git commit -qm base")
	return s
}

func (s *testRepo) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(s.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs a bash script in the repository with stdout and stderr merged, as the harness does.
func (s *testRepo) run(t *testing.T, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = s.dir
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		return string(out), exitErr.ExitCode()
	case err != nil:
		t.Fatalf("run bash: %v", err)
	}
	return string(out), 0
}

func (s *testRepo) mustRun(t *testing.T, script string) string {
	t.Helper()
	out, code := s.run(t, script)
	if code != 0 {
		t.Fatalf("%s: exit %d\n%s", script, code, out)
	}
	return out
}

// diff returns the patch that turns the committed tree into one with files written, and puts the
// tree back.
func (s *testRepo) diff(t *testing.T, files map[string]string) string {
	t.Helper()
	s.write(t, files)
	patch := s.mustRun(t, "git add -A && git diff --cached")
	s.mustRun(t, "git reset -q --hard && git clean -fdq")
	return patch
}

func (s *testRepo) writePatch(t *testing.T, patch string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.patch")
	if err := os.WriteFile(path, []byte(patch), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPatchApplyScriptForReal(t *testing.T) {
	requireTools(t)
	var numbered strings.Builder
	for i := 1; i <= 20; i++ {
		numbered.WriteString("line " + itoa(i) + "\n")
	}
	base := numbered.String()
	tests := map[string]struct {
		// patchFrom, when set, is the text the patch was made against (else the base); tree, when
		// set, is committed after the patch is made.
		patchFrom, tree map[string]string
		patchTo         map[string]string
		alreadyApplied  bool
		wantMethod      string
		wantExit        int
		wantFile        string
		// wantLeftover is an untracked file the method leaves, as it does in the official harness.
		wantLeftover string
		// version is the grading version whose chain runs; "" means 5.
		version GradingVersion
	}{
		"4.1: clean": {
			version:    V41,
			patchTo:    map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			wantMethod: ">>>>> Applied Patch (git apply --verbose)",
			wantFile:   strings.Replace(base, "line 5\n", "line five\n", 1),
		},
		"4.1: context moved on: no three-way merge, the fuzzy patch on the tree the reject left": {
			version:      V41,
			tree:         map[string]string{"f.txt": strings.Replace(base, "line 8\n", "line eight\n", 1)},
			patchTo:      map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			wantMethod:   ">>>>> Applied Patch (patch --batch --fuzz=5 -p1 -i)",
			wantFile:     strings.Replace(strings.Replace(base, "line 8\n", "line eight\n", 1), "line 5\n", "line five\n", 1),
			wantLeftover: "?? f.txt.orig\n?? f.txt.rej\n",
		},
		"4.1: already applied: patch without --forward takes it as reversed and undoes it": {
			version:        V41,
			patchFrom:      map[string]string{"f.txt": base},
			patchTo:        map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			alreadyApplied: true,
			wantMethod:     ">>>>> Applied Patch (patch --batch --fuzz=5 -p1 -i)",
			wantFile:       base,
			wantLeftover:   "?? f.txt.orig\n?? f.txt.rej\n",
		},
		"clean": {
			patchTo:    map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			wantMethod: ">>>>> Applied Patch (git apply --verbose)",
			wantFile:   strings.Replace(base, "line 5\n", "line five\n", 1),
		},
		"context moved on: three-way merge": {
			tree:       map[string]string{"f.txt": strings.Replace(base, "line 8\n", "line eight\n", 1)},
			patchTo:    map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			wantMethod: ">>>>> Applied Patch (git apply --verbose --3way)",
			wantFile:   strings.Replace(strings.Replace(base, "line 8\n", "line eight\n", 1), "line 5\n", "line five\n", 1),
		},
		"context differs and the blob is unknown: fuzzy patch": {
			patchFrom:    map[string]string{"f.txt": strings.Replace(base, "line 3\n", "line three\n", 1)},
			patchTo:      map[string]string{"f.txt": strings.Replace(strings.Replace(base, "line 3\n", "line three\n", 1), "line 5\n", "line five\n", 1)},
			wantMethod:   ">>>>> Applied Patch (patch --batch --forward --fuzz=5 -p1 -i)",
			wantFile:     strings.Replace(base, "line 5\n", "line five\n", 1),
			wantLeftover: "?? f.txt.orig\n",
		},
		"already applied, git patch: the three-way merge takes it": {
			patchTo:        map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			alreadyApplied: true,
			wantMethod:     ">>>>> Applied Patch (git apply --verbose --3way)",
			wantFile:       strings.Replace(base, "line 5\n", "line five\n", 1),
		},
		"already applied, plain diff": {
			patchFrom:      map[string]string{"f.txt": base},
			patchTo:        map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			alreadyApplied: true,
			wantMethod:     ">>>>> Patch Already Applied",
			wantFile:       strings.Replace(base, "line 5\n", "line five\n", 1),
		},
		"three-way conflict, then nothing applies: the tree is left clean": {
			tree:       map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line FIVE\n", 1)},
			patchTo:    map[string]string{"f.txt": strings.Replace(base, "line 5\n", "line five\n", 1)},
			wantMethod: ">>>>> Patch Apply Failed",
			wantExit:   1,
			wantFile:   strings.Replace(base, "line 5\n", "line FIVE\n", 1),
		},
		"does not apply": {
			patchFrom:  map[string]string{"f.txt": "something else entirely\n"},
			patchTo:    map[string]string{"f.txt": "something else, changed\n"},
			wantMethod: ">>>>> Patch Apply Failed",
			wantExit:   1,
			wantFile:   base,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := newSandbox(t, map[string]string{"f.txt": base})
			var patch string
			if tc.patchFrom != nil {
				patch = unifiedDiff(t, s, "f.txt", tc.patchFrom["f.txt"], tc.patchTo["f.txt"])
			} else {
				patch = s.diff(t, tc.patchTo)
				if tc.tree != nil {
					s.write(t, tc.tree)
					s.mustRun(t, "git commit -qam 'moved on'")
				}
			}
			patchPath := s.writePatch(t, patch)
			if tc.alreadyApplied {
				// Committed: each failed attempt resets the tree to HEAD, as the official one does.
				s.mustRun(t, "git apply "+patchPath+" && git commit -qam applied")
			}
			version := tc.version
			if version == "" {
				version = V5
			}
			out, code := s.run(t, PatchApplyScript(patchPath, version))
			if code != tc.wantExit || !strings.Contains(out, tc.wantMethod) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s", code, tc.wantExit, tc.wantMethod, out)
			}
			if got := sweeptest.ReadFile(t, filepath.Join(s.dir, "f.txt")); got != tc.wantFile {
				t.Errorf("f.txt after the script:\n%s\nwant:\n%s", got, tc.wantFile)
			}
			if unmerged := s.mustRun(t, "git diff --name-only --diff-filter=U"); unmerged != "" {
				t.Errorf("the script left unmerged paths: %s", unmerged)
			}
			if leftovers := s.mustRun(t, "git status --porcelain --untracked-files=all -- . ':!f.txt'"); leftovers != tc.wantLeftover {
				t.Errorf("untracked files after the script:\n%s\nwant:\n%s", leftovers, tc.wantLeftover)
			}
		})
	}
}

func TestPatchApplyScriptMissingPatch(t *testing.T) {
	requireTools(t)
	s := newSandbox(t, map[string]string{"f.txt": "x\n"})
	path := filepath.Join(t.TempDir(), "no $(such) patch")
	for _, v := range []GradingVersion{V41, V5} {
		out, code := s.run(t, PatchApplyScript(path, v))
		if want := ">>>>> Patch Apply Failed: cannot read " + path; code != 1 || !strings.Contains(out, want) {
			t.Fatalf("%s: exit %d, output lacks %q:\n%s", v, code, want, out)
		}
	}
}

// unifiedDiff makes a plain diff -u patch (no git index line, so git cannot merge it three-way).
func unifiedDiff(t *testing.T, s *testRepo, name, from, to string) string {
	t.Helper()
	dir := t.TempDir()
	for side, content := range map[string]string{"a": from, "b": to} {
		if err := os.MkdirAll(filepath.Join(dir, side), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, side, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := s.run(t, "cd "+steps.ShellQuote(dir)+" && diff -u a/"+name+" b/"+name)
	return out
}
