package swesweep

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
)

// runnerConfigNames are files through which pytest and Python find, load or configure what
// runs, wherever they are: pytest looks for its configuration in every ancestor of the paths
// it is given and loads conftest.py from each directory it collects, and site customisation
// runs from any directory on the import path.
var runnerConfigNames = map[string]bool{
	"conftest.py": true, "pytest.ini": true, ".pytest.ini": true, "tox.ini": true, "setup.cfg": true,
	"pyproject.toml": true, "sitecustomize.py": true, "usercustomize.py": true,
}

// importableExts are the endings of a file Python imports as a module.
var importableExts = []string{".py", ".pyc", ".pyo", ".pyw", ".so", ".pyd"}

// isRunnerConfig reports whether p (slash-separated, relative to the work tree) is runner
// configuration: a file that can change how the tests are found, loaded or reported rather
// than what the tested code does. baseTop holds the names at the top of the tree at the base
// (tracked, or already there untracked).
//
// Besides the configuration files above, that is: *.pth files and *.dist-info / *.egg-info
// metadata (entry points load plugins), bytecode caches (a stale or forged .pyc stands in for
// its source), pytest's own cache (it selects tests under --lf and --sw), and anything that would shadow a module the runner imports. Python searches the
// work tree's top first (python -m puts the current directory ahead of the standard library
// and site-packages), so a top-level module or package the base does not have could replace
// pytest, pluggy or a standard module pytest imports later; any such new top-level name is
// runner configuration. New modules inside a package the base has (the usual shape of a fix)
// are not.
func isRunnerConfig(p string, baseTop map[string]bool) bool {
	segs := strings.Split(p, "/")
	base := segs[len(segs)-1]
	if runnerConfigNames[base] || strings.HasSuffix(base, ".pth") || strings.HasSuffix(base, ".pyc") || strings.HasSuffix(base, ".pyo") {
		return true
	}
	for _, s := range segs {
		if s == "__pycache__" || s == ".pytest_cache" || strings.HasSuffix(s, ".dist-info") || strings.HasSuffix(s, ".egg-info") {
			return true
		}
	}
	top := segs[0]
	if baseTop[top] {
		return false
	}
	if len(segs) > 1 { // a directory: a package, now or once an __init__ appears in it
		return isIdentifier(top)
	}
	for _, ext := range importableExts {
		if strings.HasSuffix(top, ext) {
			stem, _, _ := strings.Cut(top, ".") // name.cpython-311-x86_64-linux-gnu.so imports as name
			return isIdentifier(stem)
		}
	}
	return false
}

// isIdentifier reports whether s can be a Python module name.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !unicode.IsLetter(r) && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// guard keeps test files and runner configuration as they are at the base, whatever the
// patch or the code under test did to them: it asks git what differs from the base (and
// walks the tree for what git does not track) and puts the protected paths back by git.
type guard struct {
	repo  steps.Repo
	tests testMatcher
	// hidden are the paths of every bug's test patch: the grader applies them, and nothing
	// else may put a file there.
	hidden  map[string]bool
	baseTop map[string]bool
	// untracked are the files git does not track at the base (build products of the image),
	// each with the digest of its content when it is protected, "" otherwise.
	untracked map[string]string
}

// newGuard records the base: call it on a tree just reset to the base.
func newGuard(repo steps.Repo, tests testMatcher, hidden []string) (*guard, error) {
	g := &guard{repo: repo, tests: tests, hidden: map[string]bool{}, baseTop: map[string]bool{}, untracked: map[string]string{}}
	for _, p := range hidden {
		g.hidden[p] = true
	}
	top, err := repo.GitZ("ls-tree", "-z", "--name-only", "--full-tree", repo.Base)
	if err != nil {
		return nil, err
	}
	for _, name := range top {
		g.baseTop[name] = true
	}
	files, unreadable, err := repo.Untracked()
	if err != nil {
		return nil, err
	}
	if len(unreadable) > 0 {
		return nil, fmt.Errorf("the work tree at the base has entries the grader cannot read: %v", unreadable)
	}
	// The image's own untracked top-level entries (a build directory, a virtualenv) are no
	// module the patch added.
	for _, p := range files {
		top, _, _ := strings.Cut(p, "/")
		g.baseTop[top] = true
	}
	for _, p := range files {
		digest := ""
		if g.protected(p) {
			if digest, err = g.digest(p); err != nil {
				return nil, err
			}
		}
		g.untracked[p] = digest
	}
	return g, nil
}

func (g *guard) protected(p string) bool {
	return g.tests.isTest(p) || isConventionalTest(p) || g.hidden[p] || isRunnerConfig(p, g.baseTop)
}

// conventionalTestSuffixes end the names of test files by their framework's convention.
var (
	conventionalTestSuffixes = []string{"_test.py", "_test.go", "_test.c", "_test.cc", "_test.cpp", "Test.java", "_test.v", "_test.exs", ".vv"}
	scriptTestFile           = regexp.MustCompile(`\.(?:test|spec|tests)\.[cm]?[jt]sx?$`)
)

// isConventionalTest reports whether p is a test file by SWE-sweep's rule, which holds
// whatever the bundle's test_paths say: a file under a directory named test, tests or
// __tests__ at any depth, a test_* file, a file with a test suffix of its framework, or a
// conftest.py.
func isConventionalTest(p string) bool {
	segs := strings.Split(p, "/")
	base := segs[len(segs)-1]
	for _, d := range segs[:len(segs)-1] {
		if d == "test" || d == "tests" || d == "__tests__" {
			return true
		}
	}
	if strings.HasPrefix(base, "test_") || base == "conftest.py" || scriptTestFile.MatchString(base) {
		return true
	}
	for _, suf := range conventionalTestSuffixes {
		if strings.HasSuffix(base, suf) {
			return true
		}
	}
	return false
}

// digest identifies a file's type and content without following a symlink.
func (g *guard) digest(p string) (string, error) {
	full := filepath.Join(g.repo.Dir, filepath.FromSlash(p))
	info, err := os.Lstat(full)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%v\x00", info.Mode())
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(full)
		if err != nil {
			return "", err
		}
		h.Write([]byte(target)) // a hash.Hash never fails to write
	case info.Mode().IsRegular():
		f, err := os.Open(full)
		if err != nil {
			return "", err
		}
		defer func() { _ = f.Close() }() // read-only
		if _, err := io.Copy(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// changed lists every path that differs from the base: tracked files changed or deleted,
// untracked files that were not there at the base, and protected untracked files of the base
// whose content changed. unreadable are entries the walk could not read.
func (g *guard) changed() (paths, unreadable []string, err error) {
	if paths, err = g.repo.Modified(); err != nil {
		return nil, nil, err
	}
	files, unreadable, err := g.repo.Untracked()
	if err != nil {
		return nil, nil, err
	}
	for _, p := range files {
		digest, atBase := g.untracked[p]
		switch {
		case !atBase:
			paths = append(paths, p)
		case digest != "":
			now, err := g.digest(p)
			if err != nil {
				return nil, nil, err
			}
			if now != digest {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	return paths, unreadable, nil
}

// enforce puts every protected path that differs from the base back as it is there, and
// removes whatever the tree walk could not read (only the code under test makes such
// entries; left in place they would fail the grader's own walks); extra are paths known to
// have changed besides those git and the walk report (a patch's own).
func (g *guard) enforce(extra ...string) (restored, removed []string, err error) {
	paths, unreadable, err := g.changed()
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	touched := slices.Clone(unreadable)
	for _, p := range append(paths, extra...) {
		if !seen[p] && g.protected(p) {
			seen[p] = true
			touched = append(touched, p)
		}
	}
	return g.repo.Restore(touched)
}

// refusal says why a patch, as git applied it, is not graded ("" when it is): a path in .git,
// or a symlink that does not resolve inside the work tree (out of it, or in a loop) or that
// points into .git.
func (g *guard) refusal(paths []string) (string, error) {
	root, err := os.OpenRoot(g.repo.Dir)
	if err != nil {
		return "", err
	}
	defer func() { _ = root.Close() }() // opened to read
	var whys []string
	for _, p := range paths {
		if insideGitDir(p) {
			whys = append(whys, fmt.Sprintf("%q is inside .git", p))
		}
		info, err := root.Lstat(filepath.FromSlash(p))
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue // deleted, or not a symlink
		}
		target, err := os.Readlink(filepath.Join(g.repo.Dir, filepath.FromSlash(p)))
		if err != nil {
			return "", err
		}
		if _, err := root.Stat(filepath.FromSlash(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			whys = append(whys, fmt.Sprintf("symlink %q points outside the work tree or cannot be resolved in it (%s)", p, target))
			continue
		}
		if resolved := path.Join(path.Dir(p), target); !path.IsAbs(target) && strings.EqualFold(strings.SplitN(resolved, "/", 2)[0], ".git") {
			whys = append(whys, fmt.Sprintf("symlink %q points into .git (%s)", p, target))
		}
	}
	return strings.Join(whys, "; "), nil
}

// insideGitDir reports whether a path has a .git component, spelled as any file system that
// folds case or drops trailing dots and spaces would read it.
func insideGitDir(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.EqualFold(strings.TrimRight(seg, ". "), ".git") {
			return true
		}
	}
	return false
}
