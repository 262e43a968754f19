package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenAndReadFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	write(t, secret, "the verifier's fixes")
	write(t, filepath.Join(dir, "plain"), "a patch")
	link(t, secret, filepath.Join(dir, "link"))
	link(t, filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "big"), strings.Repeat("x", 11))
	for _, tc := range []struct {
		name, want, wantErr string
		is                  error
	}{
		{name: "plain", want: "a patch"},
		{name: "link", wantErr: "link is a symbolic link: refused: not a regular file", is: ErrNotRegular},
		{name: "dangling", wantErr: "dangling is a symbolic link", is: ErrNotRegular},
		{name: "fifo", wantErr: "fifo is a named pipe: refused", is: ErrNotRegular},
		{name: ".", wantErr: "is a directory: refused", is: ErrNotRegular},
		{name: "missing", wantErr: "no such file", is: fs.ErrNotExist},
		{name: "big", wantErr: "big has 11 bytes, more than 10: file too large", is: ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadFile(filepath.Join(dir, tc.name), 10)
			if tc.wantErr == "" {
				if err != nil || string(got) != tc.want {
					t.Fatalf("ReadFile = %q, %v; want %q", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, tc.is) {
				t.Fatalf("ReadFile error = %v, want %q wrapping %v", err, tc.wantErr, tc.is)
			}
		})
	}
}

func TestCreateReplacesASymlinkWithoutFollowingIt(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "outside")
	write(t, target, "keep me")
	path := filepath.Join(dir, "model.patch")
	link(t, target, path)
	f, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("new"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("the symlink's target was written: %q", b)
	}
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file now: %v %v", path, st, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content = %q", b)
	}
	// A plain file is replaced too; a directory is not removed.
	if _, err := Create(path, 0o644); err != nil {
		t.Errorf("replacing a file: %v", err)
	}
	if _, err := Create(dir, 0o644); err == nil {
		t.Error("Create over a directory succeeded")
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
