package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// testIdentity is this package's own, so that Reap here cannot kill processes of another
// package's tests running at the same time.
var testIdentity = Identity{UID: 65540, GID: 65540}

func requireRoot(t *testing.T) {
	t.Helper()
	if err := Check(); err != nil {
		t.Fatalf("%v: the sandbox tests switch users; run them as root", err)
	}
}

func runAs(t *testing.T, id Identity, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: id.Credential()}
	cmd.Env = id.Env(os.Environ())
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestCredentialDropsGroups(t *testing.T) {
	requireRoot(t)
	out, err := runAs(t, testIdentity, "id -u; id -G; echo $HOME")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if diff := cmp.Diff("65540\n65540\n"+testIdentity.Home(), out); diff != "" {
		t.Errorf("identity (-want +got):\n%s", diff)
	}
}

func TestPrepareAndPrivate(t *testing.T) {
	requireRoot(t)
	root := sweeptest.Reachable(t, t.TempDir())
	work := filepath.Join(root, "repo")
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".git/config", "src/a.py"} {
		if err := os.WriteFile(filepath.Join(work, f), []byte("x"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(root, "outside")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(root, "bundle")
	if err := os.MkdirAll(secret, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "fix.patch"), []byte("fix"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(work, testIdentity); err != nil {
		t.Fatal(err)
	}
	if err := Private(secret, filepath.Join(root, "absent")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		script string
		ok     bool
	}{
		"writes the work tree":           {"echo y > " + work + "/src/a.py && touch " + work + "/new", true},
		"cannot write .git/config":       {"echo y >> " + work + "/.git/config", false},
		"cannot add a git hook":          {"touch " + work + "/.git/hooks/pre-commit", false},
		"cannot read the private bundle": {"cat " + secret + "/fix.patch", false},
		"symlink target kept its owner":  {"echo y >> " + outside, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			out, err := runAs(t, testIdentity, tc.script)
			if (err == nil) != tc.ok {
				t.Errorf("%s: err %v, want ok=%v (%s)", tc.script, err, tc.ok, out)
			}
		})
	}
}

func TestReapKillsEscapedSessions(t *testing.T) {
	requireRoot(t)
	// The child leaves the session and the process group, and clears its environment.
	cmd := exec.Command("sh", "-c", "setsid env -i sh -c 'sleep 300 & sleep 300' &")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: testIdentity.Credential()}
	// No output pipe: the sleeps would hold it open.
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { pids, _ := testIdentity.Processes(); return len(pids) >= 2 })
	if err := Reap(testIdentity); err != nil {
		t.Fatal(err)
	}
	if pids, err := testIdentity.Processes(); err != nil || len(pids) != 0 {
		t.Errorf("after Reap: processes %v, err %v", pids, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5s")
}

func TestOwnedBy(t *testing.T) {
	tests := map[string]struct {
		status string
		want   bool
	}{
		"real uid":       {"State:\tS (sleeping)\nUid:\t65540\t65540\t65540\t65540\n", true},
		"saved uid only": {"State:\tS (sleeping)\nUid:\t0\t0\t65540\t0\n", true},
		"fs uid only":    {"State:\tS (sleeping)\nUid:\t0\t0\t0\t65540\n", false},
		"zombie":         {"State:\tZ (zombie)\nUid:\t65540\t65540\t65540\t65540\n", false},
		"other":          {"State:\tR (running)\nUid:\t0\t0\t0\t0\n", false},
	}
	for name, tc := range tests {
		if got := ownedBy(tc.status, "65540"); got != tc.want {
			t.Errorf("%s: ownedBy = %v, want %v", name, got, tc.want)
		}
	}
}
