package regularfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walked is what Walk reported of one entry.
type walked struct {
	Rel, Data string
	Refused   bool
}

func walkAll(t *testing.T, dir string, maxEntries int) ([]walked, bool) {
	t.Helper()
	var got []walked
	complete, err := Walk(dir, maxEntries, func(rel string, f *os.File, st fs.FileInfo, err error) {
		w := walked{Rel: rel, Refused: errors.Is(err, ErrNotRegular)}
		if f != nil {
			b, rerr := io.ReadAll(f)
			if rerr != nil || int64(len(b)) != st.Size() {
				t.Errorf("%s: read %d bytes (%v), stat says %d", rel, len(b), rerr, st.Size())
			}
			w.Data = string(b)
			_ = f.Close()
		} else if err == nil {
			t.Errorf("%s: no file and no error", rel)
		}
		got = append(got, w)
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, complete
}

func TestWalkListsNestedFilesAndRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret"), "the verifier's fixes")
	for _, d := range []string{"sub/deeper", "empty"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "reward.json"), `{"reward": 1}`)
	write(t, filepath.Join(dir, "sub", "b.txt"), "b")
	write(t, filepath.Join(dir, "sub", "deeper", "c.bin"), "\x00\xff")
	link(t, filepath.Join(outside, "secret"), filepath.Join(dir, "link"))
	link(t, outside, filepath.Join(dir, "sub", "linkdir"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, complete := walkAll(t, dir, 100)
	want := []walked{
		{Rel: "fifo", Refused: true},
		{Rel: "link", Refused: true},
		{Rel: "reward.json", Data: `{"reward": 1}`},
		{Rel: "sub/b.txt", Data: "b"},
		{Rel: "sub/deeper/c.bin", Data: "\x00\xff"},
		{Rel: "sub/linkdir", Refused: true},
	}
	if diff := cmp.Diff(want, got); diff != "" || !complete {
		t.Errorf("Walk (-want +got), complete %v:\n%s", complete, diff)
	}
}

func TestWalkStopsAtMaxEntries(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c"} {
		write(t, filepath.Join(dir, name), name)
	}
	got, complete := walkAll(t, dir, 2)
	if diff := cmp.Diff([]walked{{Rel: "a", Data: "a"}, {Rel: "b", Data: "b"}}, got); diff != "" || complete {
		t.Errorf("Walk (-want +got), complete %v:\n%s", complete, diff)
	}
	if _, complete := walkAll(t, dir, 3); !complete {
		t.Error("three entries within a bound of three: not complete")
	}
}

func TestWalkRefusesASymlinkedRoot(t *testing.T) {
	dir := t.TempDir()
	link(t, t.TempDir(), filepath.Join(dir, "root"))
	if _, err := Walk(filepath.Join(dir, "root"), 10, func(string, *os.File, fs.FileInfo, error) {}); err == nil {
		t.Error("Walk followed a symlinked root")
	}
}

// A device below the tree is refused without being opened: opening one can act on it.
func TestWalkRefusesADevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test creates a device node and needs root: run it as root")
	}
	dir := t.TempDir()
	// 1:3 is /dev/null, harmless should the walk open it after all.
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Fatal(err)
	}
	var got error
	if _, err := Walk(dir, 10, func(_ string, f *os.File, _ fs.FileInfo, err error) {
		if f != nil {
			t.Error("the device was opened")
			_ = f.Close()
		}
		got = err
	}); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(got, ErrNotRegular) || got.Error() != "null is a device: refused: not a regular file" {
		t.Errorf("device: %v", got)
	}
}
