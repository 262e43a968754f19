package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runSweep(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestTasksValidateCorpus(t *testing.T) {
	out, err := runSweep(t, "tasks", "validate", "../../../shared/corpus/swe-sweep/tasks")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got := lines[len(lines)-1]; got != "100 tasks, 4068 bugs" {
		t.Errorf("totals line = %q, want %q", got, "100 tasks, 4068 bugs")
	}
	if !strings.HasPrefix(lines[0], "ok  swe-sweep__") || len(lines) != 101 {
		t.Errorf("want 100 task lines then the totals, got %d lines starting %q", len(lines), lines[0])
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
	_, err := runSweep(t, "tasks", "validate", dir)
	want := filepath.Join(dir, "task.toml") + `: key "verifier.network_mode": want one of no-network, public, allowlist, got "internet"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	if _, err := runSweep(t, "tasks", "validate"); err == nil {
		t.Error("validate with no directory: no error")
	}
}
