package steps

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Repo is a git work tree and the ref graders put it back to. Its Dir may belong to the test
// identity (sandbox.Prepare); the grader's git runs as root with the tree named safe, which
// is sound because .git itself stays root's.
type Repo struct {
	Dir, Base string
	// env is added to git's environment.
	env []string
}

func (r Repo) command(args ...string) *exec.Cmd {
	dir := r.Dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	// No hook or file-system monitor runs for the grader's git, whatever config it reads.
	cmd := exec.Command("git", append([]string{"-c", "safe.directory=" + dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = r.Dir
	// Paths from patches are file names, never pathspec patterns.
	cmd.Env = append(append(os.Environ(), "GIT_LITERAL_PATHSPECS=1"), r.env...)
	return cmd
}

// Git runs git in the work tree; on failure the output is git's message, trimmed.
func (r Repo) Git(args ...string) (string, error) {
	out, err := r.command(args...).CombinedOutput()
	if err != nil {
		return strings.TrimSpace(string(out)), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// GitZ runs git for its NUL-separated standard output; git's messages go into the error.
func (r Repo) GitZ(args ...string) ([]string, error) {
	cmd := r.command(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &GitError{Args: args, Err: err, Message: strings.TrimSpace(stderr.String())}
	}
	fields := strings.Split(string(out), "\x00")
	if n := len(fields); n > 0 && fields[n-1] == "" {
		fields = fields[:n-1]
	}
	return fields, nil
}

// GitError is a git command that failed, with git's own message.
type GitError struct {
	Args    []string
	Err     error
	Message string
}

func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Err, e.Message)
}

func (e *GitError) Unwrap() error { return e.Err }

// Reset puts the work tree back at the base: tracked files reset, untracked files removed
// (ignored ones, such as build products of the image, are kept).
func (r Repo) Reset() error {
	if _, err := r.Git("reset", "-q", "--hard", r.Base); err != nil {
		return err
	}
	_, err := r.Git("clean", "-q", "-f", "-d")
	return err
}

// Apply applies a patch file to the work tree with git apply; on failure it returns git's
// message.
func (r Repo) Apply(patch string, binary bool) (string, error) {
	args := []string{"apply", "--whitespace=nowarn"}
	if binary {
		args = append(args, "--binary")
	}
	abs, err := filepath.Abs(patch)
	if err != nil {
		return err.Error(), err
	}
	return r.Git(append(args, abs)...)
}

// PatchPaths is git's own reading of a patch file: every path git apply changes when it
// applies the patch to the base (created, modified, deleted, both names of a rename), after
// it strips the first component of each name whatever it is, and whether or not the patch has
// "diff --git" lines. The patch is applied to a scratch index of the base, not to the tree. A
// patch git cannot apply to the base is an error with git's message.
func (r Repo) PatchPaths(patch string) ([]string, error) {
	abs, err := filepath.Abs(patch)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "sweep-index-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = os.RemoveAll(scratch) }() // a scratch index, never read again
	scratchIndex := r
	scratchIndex.env = []string{"GIT_INDEX_FILE=" + filepath.Join(scratch, "index")}
	if _, err := scratchIndex.GitZ("read-tree", r.Base); err != nil {
		return nil, err
	}
	if _, err := scratchIndex.GitZ("apply", "--cached", "--binary", "--whitespace=nowarn", abs); err != nil {
		var ge *GitError
		if errors.As(err, &ge) {
			return nil, fmt.Errorf("git apply: %s", ge.Message) // the patch's own path means nothing to the reader
		}
		return nil, err
	}
	return scratchIndex.GitZ("diff-index", "--cached", "-z", "--name-only", "--no-renames", r.Base)
}

// Modified lists the tracked paths whose work-tree file is not the index's (graders keep the
// index at the base): changed, deleted, or of another mode or type.
func (r Repo) Modified() ([]string, error) {
	fields, err := r.GitZ("status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames", "--ignore-submodules=none")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range fields {
		if len(f) < 4 {
			return nil, fmt.Errorf("git status: unexpected record %q", f)
		}
		paths = append(paths, f[3:])
	}
	return paths, nil
}

// Untracked lists every file of the work tree (anything but a directory: regular files,
// symlinks, fifos) that git does not track, ignored ones included. It walks the tree itself
// rather than asking git status, which does not look inside nested repositories; symlinks are
// listed, never followed, and .git is left out. Entries it cannot read (a directory nested
// past the longest path the system takes) come back apart, as unreadable: no legitimate
// change makes one, and the caller decides what to do with them.
func (r Repo) Untracked() (files, unreadable []string, err error) {
	tracked, err := r.GitZ("ls-files", "-z", "--cached")
	if err != nil {
		return nil, nil, err
	}
	isTracked := make(map[string]bool, len(tracked))
	for _, p := range tracked {
		isTracked[p] = true
	}
	err = filepath.WalkDir(r.Dir, func(path string, d fs.DirEntry, err error) error {
		rel, relErr := filepath.Rel(r.Dir, path)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		switch {
		case err != nil && rel == ".":
			return err
		case err != nil:
			unreadable = append(unreadable, rel)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case rel == ".git":
			return fs.SkipDir
		case d.IsDir():
			return nil
		case !isTracked[rel]:
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	sort.Strings(unreadable)
	return files, unreadable, err
}

// Restore puts paths back as they are at the base, by git: checked out when the base has them,
// removed when it does not. Removal goes through os.Root, so that a symlink planted in the
// tree never sends it outside: RemoveAll removes a final symlink itself, not its target, and a
// leading component that is no longer a directory is removed instead of followed. Both lists
// come back sorted.
func (r Repo) Restore(paths []string) (restored, removed []string, err error) {
	if len(paths) == 0 {
		return nil, nil, nil
	}
	for _, p := range paths {
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			return nil, nil, fmt.Errorf("path %q leaves the work tree", p)
		}
	}
	files, err := r.GitZ("ls-tree", "-r", "-z", "--name-only", "--full-tree", r.Base)
	if err != nil {
		return nil, nil, err
	}
	atBase := make(map[string]bool, len(files))
	for _, p := range files {
		atBase[p] = true
	}
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = root.Close() }() // a directory opened to read: its close reports nothing
	for _, p := range paths {
		if atBase[p] {
			restored = append(restored, p)
			continue
		}
		if err := removeInTree(root, p); err != nil {
			return nil, nil, err
		}
		removed = append(removed, p)
	}
	if len(restored) > 0 {
		cmd := r.command("checkout", "-q", r.Base, "--pathspec-from-file=-", "--pathspec-file-nul")
		cmd.Stdin = strings.NewReader(strings.Join(restored, "\x00"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, nil, fmt.Errorf("git checkout %s of %d paths: %w: %s", r.Base, len(restored), err, strings.TrimSpace(string(out)))
		}
	}
	sort.Strings(restored)
	sort.Strings(removed)
	return restored, removed, nil
}

// removeInTree removes the slash-separated path p under root, whatever it is. When one of its
// leading components is a symlink or a file, p cannot be reached without following it: that
// component goes instead.
func removeInTree(root *os.Root, p string) error {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		prefix := filepath.Join(parts[:i]...)
		info, err := root.Lstat(prefix)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !info.IsDir() {
			return root.Remove(prefix)
		}
	}
	return root.RemoveAll(filepath.FromSlash(p))
}

// PinnedGitDir is a work tree's .git as the grader found it, held open. The work tree belongs
// to the test identity, which cannot change .git (root's, sandbox.Prepare) but can rename it
// within the tree's top directory and put a repository of its own in its place: one whose
// config runs commands (core.fsmonitor) for the grader's git, or whose base ref names forged
// test files. Check puts the original back before the grader's git reads it again.
type PinnedGitDir struct {
	workdir string
	dir     *os.File
	info    fs.FileInfo
}

// PinGitDir holds the work tree's .git directory open. Call it before any code under test runs.
func (r Repo) PinGitDir() (*PinnedGitDir, error) {
	path := filepath.Join(r.Dir, ".git")
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: grade a repository of its own, not a linked work tree or a submodule", path)
	}
	workdir, err := filepath.EvalSymlinks(r.Dir) // the name the kernel reports a move under
	if err != nil {
		return nil, err
	}
	dir, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &PinnedGitDir{workdir: workdir, dir: dir, info: info}, nil
}

// Check puts the pinned .git back at the top of the work tree when something else is there
// now, removing the impostor; it reports whether it had to. Run it only while no process of
// the test identity runs.
func (p *PinnedGitDir) Check() (bool, error) {
	path := filepath.Join(p.workdir, ".git")
	if now, err := os.Lstat(path); err == nil && os.SameFile(now, p.info) {
		return false, nil
	}
	// The kernel knows where the directory went: only to another name in the same directory,
	// since moving a directory to another parent needs write access to it.
	moved, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(p.dir.Fd())))
	if err != nil {
		return false, err
	}
	if filepath.Dir(moved) != p.workdir {
		return false, fmt.Errorf("the repository's .git was moved to %s, out of the work tree's top", moved)
	}
	root, err := os.OpenRoot(p.workdir)
	if err != nil {
		return false, err
	}
	defer func() { _ = root.Close() }() // opened to remove in
	if err := root.RemoveAll(".git"); err != nil {
		return false, err
	}
	return true, os.Rename(moved, path)
}

// Close releases the directory.
func (p *PinnedGitDir) Close() error { return p.dir.Close() }
