package recordstore

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// roundTrip checks what the controller relies on, against a store opened from url: a record
// written once, a retry that writes nothing, the bytes read back, the folder listed.
func roundTrip(t *testing.T, url string) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	defer func() { _ = s.Close() }()
	files := map[string][]byte{"config.json": []byte(`{"trial_name":"t"}`), "verifier/reward.json": []byte(`{"reward":1}`), "result.json": []byte(`{}`)}
	w, err := s.PutFiles(ctx, "ns/run-1/t__1/", files, "result.json")
	if err != nil || w.Written != 3 {
		t.Fatalf("PutFiles: %+v, %v", w, err)
	}
	if w, err = s.PutFiles(ctx, "ns/run-1/t__1/", files, "result.json"); err != nil || w.Unchanged != 3 {
		t.Fatalf("PutFiles again: %+v, %v", w, err)
	}
	got, err := s.Get(ctx, "ns/run-1/t__1/verifier/reward.json")
	if err != nil || string(got) != `{"reward":1}` {
		t.Fatalf("Get: %q, %v", got, err)
	}
	keys, err := s.List(ctx, "ns/run-1/")
	if err != nil || len(keys) != 3 {
		t.Fatalf("List: %v, %v", keys, err)
	}
}

// TestGCSEmulator runs the gs:// driver against fake-gcs-server, an emulator of Cloud
// Storage's JSON API (the real service cannot be reached here).
func TestGCSEmulator(t *testing.T) {
	// The client reads objects through the XML API at the emulator's address: the emulator
	// serves those only for its public host, which must then be that address.
	port := freePort(t)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Port: uint16(port), PublicHost: host})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "records"})
	t.Setenv("STORAGE_EMULATOR_HOST", host)
	roundTrip(t, "gs://records/campaigns")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// TestAzureEmulator runs the azblob:// driver against Azurite, Microsoft's emulator of Azure
// Blob Storage, installed from the npm registry by hack/azurite.sh (make test does it).
func TestAzureEmulator(t *testing.T) {
	out, err := exec.Command("bash", filepath.Join("..", "..", "hack", "azurite.sh"), "--path").Output()
	if err != nil {
		t.Fatalf("hack/azurite.sh --path: %v", err)
	}
	bin := strings.TrimSpace(string(out))
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("azurite is not installed (%v): run hack/azurite.sh, which installs it from the npm registry once; make test does it too", err)
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port), "--location", t.TempDir(), "--silent", "--skipApiVersionCheck")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitListening(t, addr)
	// Azurite's single account and key, the same in every copy of it.
	t.Setenv("AZURE_STORAGE_ACCOUNT", "devstoreaccount1")
	t.Setenv("AZURE_STORAGE_KEY", "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
	t.Setenv("AZURE_STORAGE_PROTOCOL", "http")
	t.Setenv("AZURE_STORAGE_DOMAIN", addr)
	t.Setenv("AZURE_STORAGE_IS_LOCAL_EMULATOR", "true")
	s, err := Open(context.Background(), "azblob://records")
	if err != nil {
		t.Fatal(err)
	}
	var cc *container.Client
	if !s.bucket.As(&cc) {
		t.Fatal("the azblob bucket is not a container client")
	}
	if _, err := cc.Create(context.Background(), nil); err != nil {
		t.Fatalf("creating the container: %v", err)
	}
	_ = s.Close()
	roundTrip(t, "azblob://records/campaigns")
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_ = c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after 30s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
