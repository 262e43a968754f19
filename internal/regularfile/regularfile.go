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
