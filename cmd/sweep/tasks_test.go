package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/taskdef/taskdeftest"
)

func TestTasksValidateCorpus(t *testing.T) {
	corpus := taskdeftest.Load(t)
	out, _, err := execute(t, "tasks", "validate", corpus.Dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got, want := lines[len(lines)-1], fmt.Sprintf("%d tasks, %d bugs", corpus.Tasks, corpus.Bugs); got != want {
		t.Errorf("totals line = %q, want %q", got, want)
	}
	if !strings.HasPrefix(lines[0], "ok  swe-sweep__") || len(lines) != corpus.Tasks+1 {
		t.Errorf("want %d task lines then the totals, got %d lines starting %q", corpus.Tasks, len(lines), lines[0])
	}
}

func TestTasksValidateBadTask(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "task.toml"), []byte("[verifier]\nnetwork_mode = \"internet\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := execute(t, "tasks", "validate", dir)
	want := filepath.Join(dir, "task.toml") + `: key "verifier.network_mode": want one of no-network, public, allowlist, got "internet"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	if _, _, err := execute(t, "tasks", "validate"); err == nil {
		t.Error("validate with no directory: no error")
	}
}
