package swesweep

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/swe-sweep/sweep-operator/internal/sandbox"
)

// within reports whether path is dir or under it.
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && filepath.IsLocal(rel)
}

// reachable checks that the test identity can get to dir: every ancestor must let it search.
func reachable(dir string, id sandbox.Identity) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			return err
		}
		if !permits(info, id, 0o1) {
			return fmt.Errorf("workdir %s cannot be reached by the test identity (uid %d): %s has mode %v; make it searchable by others (chmod o+x %s)",
				dir, id.UID, d, info.Mode().Perm(), d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// permits reports whether id has the permission bits want (1 search, 2 write) on a file.
func permits(info fs.FileInfo, id sandbox.Identity, want fs.FileMode) bool {
	perm := info.Mode().Perm()
	uid, gid := ownerOf(info)
	switch {
	case uid == id.UID:
		return perm&(want<<6) != 0
	case gid == id.GID:
		return perm&(want<<3) != 0
	}
	return perm&want != 0
}

// protectOutDir creates the result directory and takes away any write access the test
// identity would have to it, so that the code under test can neither write a result there
// nor plant a file the grader would write through.
func protectOutDir(dir string, id sandbox.Identity) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("result directory %s is not a directory", dir)
	}
	if uid, gid := ownerOf(info); uid == id.UID || gid == id.GID {
		if err := os.Lchown(dir, 0, 0); err != nil {
			return err
		}
	}
	if info.Mode().Perm()&0o002 != 0 {
		return os.Chmod(dir, info.Mode().Perm()&^0o002)
	}
	return nil
}

// ownerOf is a file's uid and gid.
func ownerOf(info fs.FileInfo) (uint32, uint32) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Uid, st.Gid
	}
	return 0, 0
}
