// Package sweeptest holds helpers for tests that drive real programs (git, pytest, go) in
// temporary directories.
package sweeptest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Pytest returns the path of Debian's pytest, failing the test when it is not installed.
func Pytest(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"pytest-3", "pytest"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("pytest not found: install python3-pytest (apt-get install -y python3-pytest)")
	return ""
}

// Git returns the path of git, failing the test when it is not installed.
func Git(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git not found: install git")
	}
	return p
}

// WriteFiles writes files (path relative to dir → content) under dir.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Run runs name with args in dir and returns its merged output, failing the test on error.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	out, err := Output(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

// Output runs name with args in dir and returns its merged output and error.
func Output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// GitRepo creates a git repository in a new temp dir with files committed and tagged tag. The
// directory is Reachable, as a task image's work tree is, so that a grader can run the tests
// in it as the unprivileged test identity.
func GitRepo(t testing.TB, files map[string]string, tag string) string {
	t.Helper()
	Git(t)
	dir := Reachable(t, t.TempDir())
	WriteFiles(t, dir, files)
	Run(t, dir, "git", "init", "-q", "-b", "main")
	Run(t, dir, "git", "add", "-A")
	Run(t, dir, "git", "commit", "-q", "-m", "base")
	if tag != "" {
		Run(t, dir, "git", "tag", tag)
	}
	return dir
}

// Diff returns the binary diff of dir's working tree (new files included) against ref, and
// leaves the tree at ref. It is how tests make patches from edited trees.
func Diff(t testing.TB, dir, ref string) string {
	t.Helper()
	Run(t, dir, "git", "add", "-A")
	d := Run(t, dir, "git", "diff", "--cached", "--binary", ref)
	Run(t, dir, "git", "reset", "-q", "--hard", ref)
	Run(t, dir, "git", "clean", "-qfd")
	return d
}

// MainWithHook builds the static sweep-hook binary from pkgDir (the cmd/sweep-hook package,
// relative to the test's package), stores its path in *binary, runs the package's tests and
// exits. For TestMain of packages whose tests run the real binary.
func MainWithHook(m *testing.M, pkgDir string, binary *string) {
	dir, err := os.MkdirTemp("", "sweep-hook-bin")
	if err != nil {
		panic(err)
	}
	*binary = filepath.Join(dir, "sweep-hook")
	build := exec.Command("go", "build", "-o", *binary, pkgDir)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		panic("building sweep-hook: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(os.Stderr, "removing the sweep-hook build: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// ReadFile returns a file's content, failing the test when it cannot be read.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ReadJSON decodes a JSON file into v, failing the test when it cannot.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(ReadFile(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
