package hook

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Install copies the running binary to dir/sweep-hook (the sweep-install init container).
func Install(self, dir string) error {
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "sweep-hook"), b, 0o755)
}

// InstallBundle copies an external agent's bundle, a directory tree in the agent's image, into
// dest (the init container that hands the bundle to the task container). Modes and symbolic
// links are kept; a file src is copied into dest under its own name.
func InstallBundle(src, dest string) error {
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("agent bundle: %w", err)
	}
	if !st.IsDir() {
		return copyEntry(src, filepath.Join(dest, filepath.Base(src)), st)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		return copyEntry(path, filepath.Join(dest, rel), info)
	})
}

// copyEntry copies one directory, regular file or symbolic link.
func copyEntry(from, to string, info fs.FileInfo) error {
	switch mode := info.Mode(); {
	case mode.IsDir():
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		return os.Chmod(to, mode.Perm())
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if err := os.Remove(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return os.Symlink(target, to)
	case mode.IsRegular():
		in, err := os.Open(from)
		if err != nil {
			return err
		}
		defer func() { _ = in.Close() }() // read-only: its close has nothing to report
		out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			return errors.Join(err, out.Close())
		}
		if err := out.Close(); err != nil {
			return err
		}
		return os.Chmod(to, mode.Perm())
	}
	return fmt.Errorf("agent bundle: %s is neither a file, a directory nor a symbolic link", from)
}
