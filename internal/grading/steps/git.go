package steps

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Repo is a git work tree and the ref graders put it back to.
type Repo struct {
	Dir, Base string
}

// Git runs git in the work tree; on failure the output is git's message, trimmed.
func (r Repo) Git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	// Paths from patches are file names, never pathspec patterns.
	cmd.Env = append(os.Environ(), "GIT_LITERAL_PATHSPECS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return strings.TrimSpace(string(out)), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

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

// Revert reverse-applies a patch file.
func (r Repo) Revert(patch string) (string, error) {
	abs, err := filepath.Abs(patch)
	if err != nil {
		return err.Error(), err
	}
	return r.Git("apply", "-R", "--whitespace=nowarn", abs)
}

// Restore puts paths back as they are at the base: checked out when they exist there,
// removed when they do not. Both lists come back sorted.
func (r Repo) Restore(paths []string) (restored, removed []string, err error) {
	if len(paths) == 0 {
		return nil, nil, nil
	}
	out, err := r.Git(append([]string{"ls-tree", "-r", "-z", "--name-only", r.Base, "--"}, paths...)...)
	if err != nil {
		return nil, nil, err
	}
	atBase := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		atBase[p] = true
	}
	for _, p := range paths {
		if atBase[p] {
			restored = append(restored, p)
			continue
		}
		if !filepath.IsLocal(p) { // git apply refuses such paths; never delete outside the tree
			return nil, nil, fmt.Errorf("patch path %q leaves the work tree", p)
		}
		if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(p))); err != nil {
			return nil, nil, err
		}
		removed = append(removed, p)
	}
	if len(restored) > 0 {
		if _, err := r.Git(append([]string{"checkout", "-q", r.Base, "--"}, restored...)...); err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(restored)
	sort.Strings(removed)
	return restored, removed, nil
}
