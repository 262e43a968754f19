// Package regularfile opens and creates files without following a symbolic link at the last
// path component. Trial Pods read files that code under test could have replaced (the agent's
// model.patch, a verifier's reward.json) and write to paths a task image chose; a symlink there
// would make sweep-hook read or overwrite whatever it points at. Only regular files are read:
// a FIFO, device or directory is refused as well, so that a read never blocks or runs forever.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// ErrNotRegular is wrapped by the errors of a path that is a symbolic link or not a regular
// file.
var ErrNotRegular = errors.New("refused: not a regular file")

// ErrTooLarge is wrapped by ReadFile's error for a file above its bound.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading when it is a regular file and not a symbolic link, and returns
// its metadata as of the open. A missing file is an error for which errors.Is(err,
// fs.ErrNotExist) holds.
func Open(path string) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%s is a symbolic link: %w", path, ErrNotRegular)
	}
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close() // read-only, and already failing: the stat error is the one to report
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close() // read-only: its close has nothing to report
		return nil, nil, fmt.Errorf("%s is a %s: %w", path, kind(st.Mode()), ErrNotRegular)
	}
	return f, st, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "file of mode " + m.Type().String()
}

// ReadFile reads a regular file of at most maxBytes; a longer one is an error wrapping
// ErrTooLarge, whatever its size claimed when it was opened.
func ReadFile(path string, maxBytes int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: its close has nothing to report
	if st.Size() > maxBytes {
		return nil, fmt.Errorf("%s has %d bytes, more than %d: %w", path, st.Size(), maxBytes, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > maxBytes {
		return nil, fmt.Errorf("%s grew past %d bytes as it was read: %w", path, maxBytes, ErrTooLarge)
	}
	return b, nil
}

// Create creates path afresh for writing: whatever was there (a file, or a symbolic link,
// which is removed and not followed) is replaced by a new regular file. O_EXCL makes the open
// fail if anything appeared at path in between, a symlink included.
func Create(path string, perm fs.FileMode) (*os.File, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
}

// Walk calls visit for every entry below dir except the directories it descends into, in
// lexical order of the names in each directory, and stops after maxEntries entries (the
// directories counted): complete says whether it saw them all. rel is the entry's path below
// dir, slash-separated. For a regular file, f is open for reading (visit closes it) and st is
// its metadata; for anything else f is nil and err says why: a symbolic link or a FIFO,
// device or socket is refused (ErrNotRegular), an unreadable entry has its open error.
//
// Every component is opened relative to its parent's descriptor without following a
// symbolic link, so a directory swapped for a symlink while the walk runs cannot lead it
// outside dir: code under test may write there as it likes.
func Walk(dir string, maxEntries int, visit func(rel string, f *os.File, st fs.FileInfo, err error)) (complete bool, err error) {
	root, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, err
	}
	w := walker{left: maxEntries, visit: visit}
	w.dir(root, "")
	return !w.stopped, nil
}

type walker struct {
	left    int
	stopped bool
	visit   func(rel string, f *os.File, st fs.FileInfo, err error)
}

// dir walks the open directory d, whose path below the root is rel, and closes it.
func (w *walker) dir(d *os.File, rel string) {
	defer func() { _ = d.Close() }() // read-only: its close has nothing to report
	// One name more than the entries still allowed tells that the walk stops here.
	entries, err := d.ReadDir(max(w.left, 0) + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		w.take()
		if !w.stopped {
			w.visit(rel, nil, nil, err)
		}
		return
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		if w.take(); w.stopped {
			return
		}
		path := e.Name()
		if rel != "" {
			path = rel + "/" + path
		}
		f, st, err := openAt(d, e)
		switch {
		case err != nil:
			w.visit(path, nil, nil, err)
		case st.IsDir():
			w.dir(f, path)
		default:
			w.visit(path, f, st, nil)
		}
	}
}

// take counts one entry; the walk stops when there is no room for it.
func (w *walker) take() {
	if w.left <= 0 {
		w.stopped = true
	}
	w.left--
}

// openAt opens the entry e of the directory d without following a symbolic link, and keeps it
// open only when it is a regular file or a directory. What the directory lists as neither is
// not even opened (opening a device can act on it); the type is checked again once open, in
// case the entry was replaced in between.
func openAt(d *os.File, e fs.DirEntry) (*os.File, fs.FileInfo, error) {
	name := e.Name()
	if t := e.Type(); !t.IsRegular() && !t.IsDir() {
		return nil, nil, fmt.Errorf("%s is a %s: %w", name, kind(t), ErrNotRegular)
	}
	fd, err := syscall.Openat(int(d.Fd()), name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, nil, fmt.Errorf("%s is a symbolic link: %w", name, ErrNotRegular)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	// Its full path, for what os.File.ReadDir looks up by name.
	f := os.NewFile(uintptr(fd), filepath.Join(d.Name(), name))
	st, err := f.Stat()
	if err != nil {
		_ = f.Close() // read-only, and already failing: the stat error is the one to report
		return nil, nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		_ = f.Close() // read-only: its close has nothing to report
		return nil, nil, fmt.Errorf("%s is a %s: %w", name, kind(st.Mode()), ErrNotRegular)
	}
	return f, st, nil
}
