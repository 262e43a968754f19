// Package memlimit gives the manager a Go memory limit below its container's: without one,
// the collector lets the heap grow to twice what is live, and a manager holding a large
// campaign is OOM-killed at its container's limit with half its heap garbage.
package memlimit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Share is the part of the container's memory limit given to Go as its soft limit; the rest
// is for what the Go limit does not count exactly (the kernel's page cache charged to the
// container, memory returned to the OS lazily).
const Share = 0.9

// cgroupFiles are where a container's memory limit is read: cgroup v2, then v1.
var cgroupFiles = []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}

// unlimitedV1 is the smallest value cgroup v1 reports for no limit (the page-rounded maximum
// is larger than any machine's memory).
const unlimitedV1 = 1 << 62

// Container reads the memory limit of the container the process runs in from root (the
// file system root, os.DirFS("/")). ok is false when there is none.
func Container(root fs.FS) (limit int64, ok bool, err error) {
	for _, name := range cgroupFiles {
		b, err := fs.ReadFile(root, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, false, err
		}
		v := strings.TrimSpace(string(b))
		if v == "max" {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("/%s: %q is not a byte count: %w", name, v, err)
		}
		if n <= 0 || n >= unlimitedV1 {
			return 0, false, nil
		}
		return n, true, nil
	}
	return 0, false, nil
}

// For is the Go memory limit for a container limit.
func For(containerLimit int64) int64 {
	return int64(float64(containerLimit) * Share)
}

// Set gives the Go runtime the limit For the container's, unless GOMEMLIMIT already set one,
// and returns the limit it set (0: none).
func Set() (int64, error) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return 0, nil
	}
	limit, ok, err := Container(os.DirFS("/"))
	if err != nil || !ok {
		return 0, err
	}
	soft := For(limit)
	debug.SetMemoryLimit(soft)
	return soft, nil
}
