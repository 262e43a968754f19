package swebenchcli

import (
	"os"
	"syscall"
	"unsafe"
)

// readLog maps the log file read-only instead of copying it: a log can be hundreds of
// megabytes, and copying it into fresh memory costs as much as parsing it. The string is valid
// until release; nothing writes to it. A file that cannot be mapped (a pipe, an empty file) is
// read.
func readLog(path string) (log string, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer func() { _ = f.Close() }() // read-only: a mapping outlives its descriptor
	info, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	if size := info.Size(); info.Mode().IsRegular() && size > 0 && int64(int(size)) == size {
		if data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE); err == nil {
			return unsafe.String(unsafe.SliceData(data), len(data)), func() { _ = syscall.Munmap(data) }, nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	return unsafe.String(unsafe.SliceData(data), len(data)), func() {}, nil
}
