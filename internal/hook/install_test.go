package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// tree lists a directory as path → "mode content-or-link-target".
func tree(t *testing.T, root string) map[string]string {
	out := map[string]string{}
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || path == root {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[rel] = "link " + target
		case info.IsDir():
			out[rel] = info.Mode().String()
		default:
			b, _ := os.ReadFile(path)
			out[rel] = info.Mode().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInstallBundle(t *testing.T) {
	src := t.TempDir()
	sweeptest.WriteFiles(t, src, map[string]string{"bin/agent": "#!/bin/sh\necho hi\n", "lib/data/model.json": "{}", "README": "r"})
	if err := os.Chmod(filepath.Join(src, "bin/agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(src, "README"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bin/agent", filepath.Join(src, "run")); err != nil {
		t.Fatal(err)
	}
	dest := t.TempDir()
	if err := InstallBundle(src, dest); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tree(t, src), tree(t, dest)); d != "" {
		t.Errorf("installed bundle differs (-src +dest):\n%s", d)
	}

	file := filepath.Join(t.TempDir(), "agent.bin")
	if err := os.WriteFile(file, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := InstallBundle(file, dest); err != nil {
		t.Fatal(err)
	}
	if got := sweeptest.ReadFile(t, filepath.Join(dest, "agent.bin")); got != "x" {
		t.Errorf("single-file bundle = %q", got)
	}

	if err := InstallBundle("/nonexistent/bundle", dest); err == nil || !strings.Contains(err.Error(), "agent bundle: stat /nonexistent/bundle") {
		t.Errorf("error = %v", err)
	}
}
