package hook

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
)

// The stage lock (podcontract.StageLockPath) tells the collector, a native sidecar, when the
// main container has ended. A sidecar that exits while the main container runs is restarted,
// so the collector used to stay until the kubelet stopped it, which the kubelet does only
// after it has seen the main container end, and sees the sidecar end at its next look (its
// PLEG relists once a second): the Pod stayed Running about a second longer than its work.
// Holding the lock for its whole life, the stage's sweep-hook (the container's first process)
// releases it only when it exits, and the kernel ends the container's other processes with it.

// OpenStageLock opens the stage lock, making it when it is not there yet: the collector does
// this when it starts, before the main container starts, so that the file it waits on is the
// one the stage locks, whatever the agent does to the path later.
func OpenStageLock(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
}

// HoldStageLock takes the stage lock for the calling process until it exits (the caller keeps
// the file referenced until then); the kernel releases it when the process ends, however it
// ends.
func HoldStageLock(path string) (*os.File, error) {
	f, err := OpenStageLock(path)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close() // the lock failed; the file is of no use
		return nil, err
	}
	return f, nil
}

// waitStageEnd waits until no process holds the stage lock exclusively, i.e. the stage's
// sweep-hook has exited, or ctx ends. It reports whether the stage ended.
func waitStageEnd(ctx context.Context, lock *os.File) bool {
	ended := make(chan error, 1)
	go func() { ended <- syscall.Flock(int(lock.Fd()), syscall.LOCK_SH) }()
	select {
	case err := <-ended:
		return err == nil
	case <-ctx.Done():
		return false
	}
}
