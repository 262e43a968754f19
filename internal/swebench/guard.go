package swebench

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/swe-sweep/sweep-operator/internal/grading/steps"
)

// graderRepo is the repository as the grader (root) works on it: every command is git's own,
// so nothing is ever deleted or written through a path the code under test may have made a
// symlink. steps.Repo's git trusts the work tree, which belongs to the test user after
// sandbox.Prepare, and runs no hook or fsmonitor.
type graderRepo struct{ steps.Repo }

// atBase lists which of paths exist in the base commit.
func (r graderRepo) atBase(paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	list, err := r.Git(append([]string{"ls-tree", "-r", "-z", "--name-only", r.Base, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	for _, p := range strings.Split(list, "\x00") {
		if p != "" {
			out[p] = true
		}
	}
	return out, nil
}

// resetToBase puts paths back as they are in the base commit: checked out by git when the
// base has them, dropped from the index and cleaned by git (ignored files included) when it
// does not.
func (r graderRepo) resetToBase(paths []string) (restored, removed []string, err error) {
	base, err := r.atBase(paths)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range paths {
		if base[p] {
			restored = append(restored, p)
		} else {
			removed = append(removed, p)
		}
	}
	if len(restored) > 0 {
		if _, err := r.Git(append([]string{"checkout", "-q", "-f", r.Base, "--"}, restored...)...); err != nil {
			return nil, nil, err
		}
	}
	if len(removed) > 0 {
		if _, err := r.Git(append([]string{"rm", "-q", "-r", "-f", "--cached", "--ignore-unmatch", "--"}, removed...)...); err != nil {
			return nil, nil, err
		}
		if _, err := r.Git(append([]string{"clean", "-q", "-f", "-d", "-x", "--"}, removed...)...); err != nil {
			return nil, nil, err
		}
	}
	return restored, removed, nil
}

// fileState is what tells a file changed: ctime changes on every write, rename or chmod and
// cannot be set back from user space.
type fileState struct {
	ino, size   uint64
	mode        fs.FileMode
	ctimeNsec   int64
	isDirectory bool
}

// treeSnapshot records every path of the work tree but .git, without following symlinks:
// compared before and after a step, it is everything the step touched, tracked, untracked and
// ignored alike (git's own view leaves ignored files out, and a plugin's dist-info usually is).
type treeSnapshot map[string]fileState

func snapshotTree(workdir string) (treeSnapshot, error) {
	snap := treeSnapshot{}
	err := filepath.WalkDir(workdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone while walking
			}
			return err
		}
		rel, err := filepath.Rel(workdir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ".git" {
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		st := fileState{mode: info.Mode(), size: uint64(info.Size()), isDirectory: d.IsDir()}
		if sys, ok := info.Sys().(*syscall.Stat_t); ok {
			st.ino, st.ctimeNsec = sys.Ino, sys.Ctim.Nano()
		}
		if st.isDirectory {
			st.size, st.ctimeNsec = 0, 0 // a directory changes when its entries do; those are listed
		}
		snap[rel] = st
		return nil
	})
	return snap, err
}

// treeChange is one path that differs between two snapshots.
type treeChange struct {
	Path string
	// Existed: the path was there before (changed or deleted), rather than created.
	Existed bool
}

// changesBetween lists the files that were created, changed or deleted, sorted by path.
func changesBetween(before, after treeSnapshot) []treeChange {
	var out []treeChange
	for p, st := range after {
		old, ok := before[p]
		switch {
		case !ok && !st.isDirectory:
			out = append(out, treeChange{Path: p})
		case ok && old != st:
			out = append(out, treeChange{Path: p, Existed: true})
		}
	}
	for p, st := range before {
		if _, ok := after[p]; !ok && !st.isDirectory {
			out = append(out, treeChange{Path: p, Existed: true})
		}
	}
	slices.SortFunc(out, func(a, b treeChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// runnerConfigNames are files pytest reads its configuration from, wherever they are (the
// rootdir is found from the test paths upwards), and the files Python runs at start-up.
var runnerConfigNames = []string{"pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini", "setup.cfg", "pyproject.toml",
	"sitecustomize.py", "usercustomize.py"}

// shadowingModules are the top-level modules a file at the root of the repository would shadow
// (the root is on sys.path before site-packages when the tests run from it).
var shadowingModules = []string{"pytest", "_pytest", "pluggy", "py"}

// runnerFiles decides which changed paths are the test runner's and not the patch's to change:
// its configuration, conftest.py (unless allowed), Python's start-up hooks (*.pth, site and
// user customisation), installed-package metadata that can register a plugin (*.dist-info,
// *.egg-info/entry_points.txt) and top-level modules named like the runner or one of its
// plugins (any extension: .py, .pyc, .so, or a package directory).
type runnerFiles struct {
	allowConftest bool
	modules       []string
	// build leaves out what an install step legitimately writes (package metadata and path
	// files); with plugin autoload off they register nothing.
	build bool
}

// Match says why p is a runner file, or "" when it is not.
func (g runnerFiles) Match(p string) string {
	base := path.Base(p)
	parts := strings.Split(p, "/")
	switch {
	case base == "conftest.py" && !g.allowConftest:
		return "conftest.py"
	case slices.Contains(runnerConfigNames, base):
		return "runner configuration"
	case g.build:
	case strings.HasSuffix(base, ".pth"):
		return "start-up path file"
	case slices.ContainsFunc(parts[:len(parts)-1], func(d string) bool { return strings.HasSuffix(d, ".dist-info") }):
		return "installed-package metadata"
	case base == "entry_points.txt" && len(parts) > 1 && strings.HasSuffix(parts[len(parts)-2], ".egg-info"):
		return "installed-package metadata"
	}
	top, _, _ := strings.Cut(parts[0], ".")
	if slices.Contains(shadowingModules, top) || slices.Contains(g.modules, top) {
		return "shadows the module " + top
	}
	return ""
}

// GuardRecord is what the guard did to the runner's files, for eval.json.
type GuardRecord struct {
	// Restored were put back from the base commit; Removed did not exist there and were
	// removed, both by git.
	Restored []string `json:"restored,omitempty"`
	Removed  []string `json:"removed,omitempty"`
	// Refused is why the patch was refused: a runner file that neither the base nor git can
	// put back (an untracked file of the image the patch changed).
	Refused string `json:"refused,omitempty"`
}

func (g *GuardRecord) add(restored, removed []string) {
	g.Restored = append(g.Restored, restored...)
	g.Removed = append(g.Removed, removed...)
}

// guardStep puts back the runner files that step changed (from before to after): those
// tracked at the base are checked out, new ones removed. A runner file that existed before
// the step but is not in the base commit (an image's untracked file) cannot be put back: the
// step's result is then refused.
func guardStep(repo graderRepo, files runnerFiles, before, after treeSnapshot, rec *GuardRecord) error {
	var paths, existed []string
	why := map[string]string{}
	for _, c := range changesBetween(before, after) {
		if why[c.Path] = files.Match(c.Path); why[c.Path] == "" {
			continue
		}
		paths = append(paths, c.Path)
		if c.Existed {
			existed = append(existed, c.Path)
		}
	}
	base, err := repo.atBase(existed)
	if err != nil {
		return err
	}
	for _, p := range existed {
		if !base[p] {
			rec.Refused = fmt.Sprintf("it changes %s (%s), a file of the image that is not in the base commit, so the grader cannot put it back", p, why[p])
			return nil
		}
	}
	restored, removed, err := repo.resetToBase(paths)
	if err != nil {
		return fmt.Errorf("put back the runner's files: %w", err)
	}
	rec.add(restored, removed)
	return nil
}
