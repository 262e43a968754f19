package recordstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		url, wantErr string
	}{
		{url: "file:///var/lib/store"},
		{url: "s3://bucket/prefix?region=us-east-1&endpoint=http://10.0.0.1:8333&use_path_style=true"},
		{url: "gs://bucket"},
		{url: "azblob://container/p"},
		{url: "mem://"},
		{url: "file://", wantErr: "needs a directory"},
		{url: "s3:///prefix", wantErr: "needs a bucket"},
		{url: "ftp://host/x", wantErr: `unknown scheme "ftp"`},
		{url: "/var/lib/store", wantErr: `unknown scheme ""`},
	}
	for _, c := range cases {
		_, err := ParseURL(c.url)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (c.wantErr == "") != (err == nil) || !strings.Contains(got, c.wantErr) {
			t.Errorf("ParseURL(%q) = %q, want an error containing %q", c.url, got, c.wantErr)
		}
	}
}

func TestPutIsIdempotentAndVerified(t *testing.T) {
	ctx := context.Background()
	s, dir := openTemp(t)
	wrote, err := s.Put(ctx, "ns/run-1234/trial/result.json", []byte(`{"a":1}`))
	if err != nil || !wrote {
		t.Fatalf("first Put: wrote %v, %v", wrote, err)
	}
	wrote, err = s.Put(ctx, "ns/run-1234/trial/result.json", []byte(`{"a":1}`))
	if err != nil || wrote {
		t.Fatalf("same bytes again: wrote %v, %v; want no write", wrote, err)
	}
	wrote, err = s.Put(ctx, "ns/run-1234/trial/result.json", []byte(`{"a":2}`))
	if err != nil || !wrote {
		t.Fatalf("new bytes: wrote %v, %v", wrote, err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "ns/run-1234/trial/result.json"))
	if err != nil || string(got) != `{"a":2}` {
		t.Fatalf("on disk: %q, %v", got, err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "ns/run-1234/trial"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("a file store keeps no sidecars or temporary files: %v, %v", entries, err)
	}
}

func TestGetMissing(t *testing.T) {
	s, _ := openTemp(t)
	if _, err := s.Get(context.Background(), "nothing/here"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing key: %v, want ErrNotFound", err)
	}
}

func TestKeysThatLeaveTheirFolderAreRefused(t *testing.T) {
	s, _ := openTemp(t)
	for _, key := range []string{"", "/abs", "../up", "a/../../b", "a//b", "a/./b", `a\b`, "..", "a\x00b"} {
		if _, err := s.Put(context.Background(), key, []byte("x")); err == nil || !strings.Contains(err.Error(), "not a plain relative path") {
			t.Errorf("Put(%q) = %v, want a refusal", key, err)
		}
	}
}

func TestPutFilesWritesLastFilesLast(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "mem://")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"result.json": []byte("r"), "agent/agent.log": []byte("log"), "verifier/reward.json": []byte("{}")}
	w, err := s.PutFiles(ctx, "ns/run-1/t__1/", files, "result.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Write{Written: 3, Bytes: 6}, w); diff != "" {
		t.Errorf("first write (-want +got):\n%s", diff)
	}
	w, err = s.PutFiles(ctx, "ns/run-1/t__1/", files, "result.json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Write{Unchanged: 3}, w); diff != "" {
		t.Errorf("a retry writes nothing (-want +got):\n%s", diff)
	}
	keys, err := s.List(ctx, "ns/run-1/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ns/run-1/t__1/agent/agent.log", "ns/run-1/t__1/result.json", "ns/run-1/t__1/verifier/reward.json"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if _, err := s.PutFiles(ctx, "no-slash", files); err == nil {
		t.Error("a folder without its slash is refused")
	}
}

func TestPrefixFromURLPath(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "mem:///campaigns/2026")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "ns/x", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if got, want := s.KeyURL("ns/x"), "mem:///campaigns/2026/ns/x"; got != want {
		t.Errorf("KeyURL = %q, want %q", got, want)
	}
}

func TestListSkipsStrandedTemporaryFiles(t *testing.T) {
	ctx := context.Background()
	s, dir := openTemp(t)
	if _, err := s.Put(ctx, "job/t/result.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	// What a manager killed mid-write leaves beside its target.
	if err := os.WriteFile(filepath.Join(dir, "job/t/reward.json.18a3f0c2b1.tmp"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	keys, err := s.List(ctx, "job/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"job/t/result.json"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if _, err := s.List(ctx, "job"); err == nil {
		t.Error("a prefix without its slash is refused")
	}
}

func TestDownload(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	patch := bytes.Repeat([]byte("+x\n"), 1<<20)
	if _, err := s.PutFiles(ctx, "ns/run-1/", map[string][]byte{"config.json": []byte("{}"), "t__1/artifacts/model.patch": patch}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	n, err := s.Download(ctx, "ns/run-1/", out)
	if err != nil || n != 2 {
		t.Fatalf("Download: %d, %v", n, err)
	}
	got, err := os.ReadFile(filepath.Join(out, "t__1/artifacts/model.patch"))
	if err != nil || !bytes.Equal(got, patch) {
		t.Fatalf("downloaded patch: %d bytes, %v", len(got), err)
	}
}

func TestJobFolder(t *testing.T) {
	if got, want := JobFolder("evals", "nightly", "0f1e2d3c-aaaa-bbbb"), "evals/nightly-0f1e2d3c/"; got != want {
		t.Errorf("JobFolder = %q, want %q", got, want)
	}
}
