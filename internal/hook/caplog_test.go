package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The echo gets the whole output as it comes; the file keeps its head and tail.
func TestCappedLogEcho(t *testing.T) {
	file := filepath.Join(t.TempDir(), "agent.log")
	var echo bytes.Buffer
	log, err := newCappedLog(file, 8, &echo)
	if err != nil {
		t.Fatal(err)
	}
	out := "0123456789abcdefghij"
	if _, err := log.Write([]byte(out)); err != nil {
		t.Fatal(err)
	}
	if echo.String() != out {
		t.Errorf("echo got %q before the close, want %q", echo.String(), out)
	}
	if _, err := log.Close(); err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(kept), "0123") || !strings.HasSuffix(string(kept), "ghij") || !strings.Contains(string(kept), "12 bytes of output omitted") {
		t.Errorf("file kept %q, want its head, the omission and its tail", kept)
	}
}
