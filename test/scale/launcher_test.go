package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMain serves the launcher's mode, as main does, so that measuredCommand can start this
// test binary as the launcher.
func TestMain(m *testing.M) {
	serveLaunch()
	os.Exit(m.Run())
}

func TestMeasuredCommandReportsTheChildsOwnPeak(t *testing.T) {
	// This process holds 300 MiB, touched, while it starts a command that holds almost nothing;
	// started straight from here, wait4 would report those 300 MiB as the command's.
	const heldMiB = 300
	held := make([]byte, heldMiB<<20)
	for i := range held {
		held[i] = 1
	}
	result := filepath.Join(t.TempDir(), "usage")
	cmd, err := measuredCommand(result, "true")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	rss, _, err := readLaunched(result)
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || rss > 50 {
		t.Errorf("launched true's peak RSS = %.1f MiB, want its own, above 0 and far below the %d MiB its starter holds", rss, heldMiB)
	}
	held[len(held)-1] = 0 // keeps held alive until the command ran
}

func TestLaunchedCommandFails(t *testing.T) {
	result := filepath.Join(t.TempDir(), "usage")
	cmd, err := measuredCommand(result, "sh", "-c", "exit 3")
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 3 {
		t.Fatalf("launching sh -c 'exit 3': err = %v, want exit status 3", err)
	}
	if _, _, err := readLaunched(result); err != nil {
		t.Errorf("readLaunched after a failed command: %v, want its figures", err)
	}
	if _, _, err := readLaunched(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("readLaunched of a file never written: no error, want one")
	}
}
