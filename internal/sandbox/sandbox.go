// Package sandbox is where the verifier keeps the code under test away from the grader. The
// agent's patch and the code it adds run in the verifier as part of the build and the tests;
// a built-in grader (root in the verifier) runs those steps as the unprivileged test identity,
// which cannot write the grader's files or read what the grader keeps, cannot signal the
// grader, and leaves no process behind a step. docs/security.md describes the identities and
// file modes.
package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Identity is a uid and gid with no supplementary groups.
type Identity struct {
	UID, GID uint32
}

// Test is the identity the build and the tests of a built-in grader run as. It is not the
// hook containers' 65532 (the Pod's fsGroup, which owns the stage directories), and no file
// of a task image belongs to it.
var Test = Identity{UID: 65533, GID: 65533}

// Home is the identity's home, which Prepare creates: some tools need a writable $HOME. Each
// identity has its own, so that two graders with different identities never share one.
func (id Identity) Home() string { return fmt.Sprintf("/tmp/sweep-test-home-%d", id.UID) }

// Credential runs a process as id with its supplementary groups cleared (in particular the
// Pod's fsGroup, through which the grader's directories are reachable).
func (id Identity) Credential() *syscall.Credential {
	return &syscall.Credential{Uid: id.UID, Gid: id.GID, Groups: []uint32{}}
}

// Env is env with HOME (and the XDG cache) set to the identity's home, which Prepare creates.
func (id Identity) Env(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+id.Home(), "XDG_CACHE_HOME="+id.Home()+"/.cache")
}

// ErrNotRoot is returned by Check when this process cannot switch to the test identity.
var ErrNotRoot = errors.New("the verifier does not run as root, so it cannot run the tests as the unprivileged test user")

// Check reports whether this process can run commands as another identity.
func Check() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w (uid %d): run the verifier image as root (the default; see docs/security.md)", ErrNotRoot, os.Geteuid())
	}
	return nil
}

// Prepare gives the work tree to id, except its .git directory, which stays the grader's and
// is made unwritable for anyone else: the grader's own git commands must not read hooks,
// config or refs that the code under test wrote. It also creates id's home. Symlinks are
// changed themselves, never followed.
func Prepare(workdir string, id Identity) error {
	if err := os.MkdirAll(id.Home(), 0o700); err != nil {
		return err
	}
	if err := os.Lchown(id.Home(), int(id.UID), int(id.GID)); err != nil {
		return err
	}
	gitDir := filepath.Join(workdir, ".git")
	return filepath.WalkDir(workdir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == gitDir {
			if err := lockDown(path); err != nil || !d.IsDir() {
				return err // a .git file (a linked work tree) is locked down alone
			}
			return fs.SkipDir
		}
		return os.Lchown(path, int(id.UID), int(id.GID))
	})
}

// lockDown makes dir and everything in it root's, writable by root alone.
func lockDown(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, 0, 0); err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(path, info.Mode().Perm()&^0o022)
	})
}

// Private makes each path root's and reachable by root alone (mode 0700 for a directory, 0600
// for a file): the bundle with its fixes, the grader's input, the grader's scratch files.
// A path that does not exist is skipped.
func Private(paths ...string) error {
	var errs []error
	for _, p := range paths {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mode := os.FileMode(0o600)
		if info.IsDir() {
			mode = 0o700
		}
		errs = append(errs, os.Lchown(p, 0, 0), os.Chmod(p, mode))
	}
	return errors.Join(errs...)
}

// Reap kills every process of id in this PID namespace (the container's), including those
// that left the step's session or process group: it signals until a scan of /proc finds
// none, so that a process forking as it is killed is caught by the next scan.
func Reap(id Identity) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids, err := id.Processes()
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes of uid %d still running after 10s: %v", id.UID, pids)
		}
		for _, pid := range pids {
			// A process that exited since the scan is what we want anyway.
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Processes lists the processes of this PID namespace whose real, effective or saved uid is
// id's. Zombies are left out: they run nothing, and their parent (or a subreaper) reaps them.
func (id Identity) Processes() ([]int, error) {
	uid := id.UID
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	want := strconv.FormatUint(uint64(uid), 10)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue // gone since the listing
		}
		if ownedBy(string(status), want) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func ownedBy(status, uid string) bool {
	var owned, zombie bool
	for _, line := range strings.Split(status, "\n") {
		switch {
		case strings.HasPrefix(line, "State:"):
			zombie = strings.Contains(line, "Z (zombie)") || strings.Contains(line, "X (dead)")
		case strings.HasPrefix(line, "Uid:"):
			f := strings.Fields(strings.TrimPrefix(line, "Uid:"))
			for _, u := range f[:min(3, len(f))] {
				owned = owned || u == uid
			}
		}
	}
	return owned && !zombie
}
