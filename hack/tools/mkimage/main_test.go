package main

import (
	"archive/tar"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func writeFile(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// filesOf lists the paths in the flattened filesystem of the image.
func filesOf(t *testing.T, path string) map[string]string {
	t.Helper()
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return readFS(t, mutate.Extract(img))
}

func readFS(t *testing.T, rc io.ReadCloser) map[string]string {
	t.Helper()
	defer func() {
		if err := rc.Close(); err != nil {
			t.Errorf("closing the image filesystem: %v", err)
		}
	}()
	out := map[string]string{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = string(b)
	}
}

func TestArchiveLayersAndAutoTag(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "hook")
	writeFile(t, bin, "#!fake binary", 0o755)
	tests := filepath.Join(dir, "tests")
	writeFile(t, filepath.Join(tests, "test.sh"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(tests, "data", "a.txt"), "a", 0o644)

	base := filepath.Join(dir, "base.tar")
	ref, err := run(options{baseBinary: bin, binaryPath: "/sweep-hook", ref: "localhost/sweep/hook:auto", out: base,
		chown: "0:0", mtime: "2000-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ref, "localhost/sweep/hook:c-") || len(ref) != len("localhost/sweep/hook:c-")+16 {
		t.Fatalf("auto tag: %s", ref)
	}
	again, err := run(options{baseBinary: bin, binaryPath: "/sweep-hook", ref: "localhost/sweep/hook:auto", out: filepath.Join(dir, "again.tar"),
		chown: "0:0", mtime: "2000-01-01T00:00:00Z"})
	if err != nil || again != ref {
		t.Fatalf("same input gave %s, want %s (%v)", again, ref, err)
	}

	out := filepath.Join(dir, "v.tar")
	if _, err := run(options{baseImage: base, layers: list{tests + ":/tests"}, ref: "localhost/sweep/v:t1", out: out,
		chown: "1000:1000", mtime: "2000-01-01T00:00:00Z", workdir: "/app", user: "1000", env: list{"A=b"}}); err != nil {
		t.Fatal(err)
	}
	files := filesOf(t, out)
	for _, want := range []string{"sweep-hook", "tests/test.sh", "tests/data/a.txt"} {
		if _, ok := files[want]; !ok {
			t.Errorf("%s missing from image: %v", want, files)
		}
	}
	img, err := tarball.ImageFromPath(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if strings.Join(c.Entrypoint, " ") != "/sweep-hook" || c.WorkingDir != "/app" || c.User != "1000" || c.Env[len(c.Env)-1] != "A=b" {
		t.Errorf("config: %+v", c)
	}

	if _, err := run(options{baseBinary: bin, ref: "localhost/x:latest", out: filepath.Join(dir, "l.tar"), chown: "0:0", mtime: "2000-01-01T00:00:00Z"}); err == nil {
		t.Error("the tag latest was accepted")
	}
}

func TestPushToRegistry(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	bin := filepath.Join(dir, "manager")
	writeFile(t, bin, "fake manager", 0o755)
	ref, err := run(options{baseBinary: bin, ref: host + "/sweep/manager:auto", push: true, insecure: true,
		chown: "0:0", mtime: "2000-01-01T00:00:00Z", user: "65532:65532"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(r)
	if err != nil {
		t.Fatal(err)
	}
	files := readFS(t, mutate.Extract(img))
	if files["manager"] != "fake manager" {
		t.Errorf("pushed image files: %v", files)
	}
	cf, _ := img.ConfigFile()
	if cf.Config.User != "65532:65532" || cf.Config.Entrypoint[0] != "/manager" {
		t.Errorf("pushed config: %+v", cf.Config)
	}
}
