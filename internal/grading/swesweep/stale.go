package swesweep

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// dropBytecodeCaches removes every __pycache__ directory of the work tree (but not in .git),
// as SWE-sweep does before each test run: CPython trusts a cached .pyc whose recorded source
// size and mtime (whole seconds) match, so a source patched within the second of a reset,
// at the same size, would run as the bytecode of the code it replaced. Removal goes through
// os.Root and the walk follows no symlink, so nothing outside the tree is touched.
func dropBytecodeCaches(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }() // opened to remove in
	var caches []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an entry the walk cannot read; the guard removes those
		}
		if !d.IsDir() {
			return nil
		}
		switch d.Name() {
		case ".git":
			return filepath.SkipDir
		case "__pycache__":
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			caches = append(caches, rel)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range caches {
		errs = append(errs, root.RemoveAll(c))
	}
	return errors.Join(errs...)
}

// headerExts and sourceExts are C and C++ headers and the sources compiled beside them.
var (
	headerExts = []string{".h", ".hh", ".hpp", ".hxx"}
	sourceExts = []string{".c", ".cc", ".cpp", ".cxx"}
)

// freshenMtimes dates every file the patches edited (paths, slash-separated) two seconds
// ahead, and with an edited header every C or C++ source beside it, so that an incremental
// build that compares whole-second mtimes (distutils, setuptools) rebuilds them, as SWE-sweep
// does before each build. A path that is gone or cannot be dated is skipped: dating only
// makes a rebuild more likely, never a result.
func freshenMtimes(dir string, paths []string) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return
	}
	defer func() { _ = root.Close() }() // opened to date files in
	future := time.Now().Add(2 * time.Second)
	touched := map[string]bool{}
	for _, p := range paths {
		touched[p] = true
		if !hasExt(p, headerExts) {
			continue
		}
		entries, err := fs.ReadDir(root.FS(), path.Dir(p))
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type().IsRegular() && hasExt(e.Name(), sourceExts) {
				touched[path.Join(path.Dir(p), e.Name())] = true
			}
		}
	}
	for p := range touched {
		if info, err := root.Lstat(filepath.FromSlash(p)); err == nil && info.Mode().IsRegular() {
			_ = root.Chtimes(filepath.FromSlash(p), future, future) // best effort, as above
		}
	}
}

func hasExt(p string, exts []string) bool {
	for _, e := range exts {
		if strings.HasSuffix(p, e) {
			return true
		}
	}
	return false
}

// addsSource says whether a patch adds a C or C++ source or header. A CMake tree that globs
// its sources at configure time builds such a file only once reconfigured (SWE-sweep).
func addsSource(patches ...PatchStats) bool {
	for _, p := range patches {
		for _, f := range p.Files {
			if f.OldPath == "" && (hasExt(f.NewPath, sourceExts) || hasExt(f.NewPath, headerExts)) {
				return true
			}
		}
	}
	return false
}
