package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// The agent controls its container: it can make model.patch a symlink to anything it can
// read there (or a FIFO that blocks a reader). The collector refuses both: the artifact is
// reported absent with the reason, so the verifier grades no patch.
func TestCollectorRefusesANonRegularArtifact(t *testing.T) {
	for _, tc := range []struct {
		name    string
		make    func(t *testing.T, paths Paths)
		refused string
	}{
		{name: "symlink to a readable file", refused: "model.patch is a symbolic link: refused: not a regular file",
			make: func(t *testing.T, paths Paths) {
				secret := filepath.Join(filepath.Dir(paths.Spec), "fixes.patch")
				sweeptest.WriteFiles(t, filepath.Dir(secret), map[string]string{"fixes.patch": "the verifier's fixes\n"})
				mustSymlink(t, secret, paths.Patch)
			}},
		{name: "dangling symlink", refused: "model.patch is a symbolic link",
			make: func(t *testing.T, paths Paths) { mustSymlink(t, "/nowhere", paths.Patch) }},
		{name: "named pipe", refused: "model.patch is a named pipe: refused",
			make: func(t *testing.T, paths Paths) {
				if err := syscall.Mkfifo(paths.Patch, 0o644); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := podRoot(t, map[string]string{"logs/agent/agent.log": "agent ran\n"})
			if err := os.MkdirAll(filepath.Dir(paths.Patch), 0o755); err != nil {
				t.Fatal(err)
			}
			tc.make(t, paths)
			spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
			if err := writeDone(paths.Done, Done{Stage: pc.StageAgent}); err != nil {
				t.Fatal(err)
			}
			s, outputs := collectNow(t, context.Background(), spec, paths)
			o, _ := s.Output(pc.PatchKey)
			if !o.Missing || !strings.Contains(o.Refused, tc.refused) || o.Size != 0 || o.SHA256 != "" {
				t.Errorf("patch output = %+v, want missing and refused with %q", o, tc.refused)
			}
			if _, ok := outputs[pc.PatchKey]; ok {
				t.Errorf("a refused patch was sent: %q", outputs[pc.PatchKey])
			}
			if string(outputs[pc.RecordAgentLog]) != "agent ran\n" {
				t.Errorf("the other outputs are still collected: %q", outputs)
			}
		})
	}
}

// Code the verifier runs could make reward.json a symlink to any file it can read: the
// collector does not send it (and reward.Read, which the verifier stage uses, refuses it).
func TestCollectorRefusesASymlinkedRewardJSON(t *testing.T) {
	paths := podRoot(t, map[string]string{"logs/forged.json": `{"reward": 1}`})
	if err := os.MkdirAll(paths.VerifierDir, 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, filepath.Join(filepath.Dir(paths.VerifierDir), "forged.json"), paths.rewardJSON())
	if err := writeDone(paths.Done, Done{Stage: pc.StageVerifier}); err != nil {
		t.Fatal(err)
	}
	s, outputs := collectNow(t, context.Background(), verifierSpec(paths), paths)
	if o, _ := s.Output(pc.RecordReward); !o.Missing || !strings.Contains(o.Refused, "reward.json is a symbolic link") {
		t.Errorf("reward.json output = %+v", o)
	}
	if _, ok := outputs[pc.RecordReward]; ok {
		t.Error("a symlinked reward.json was sent")
	}
}

// An artifact path in the verifier's image that is a symlink would redirect the restored
// patch onto its target: the symlink is replaced by a regular file and the target untouched.
func TestRestoreArtifactsReplacesASymlinkAtTheDestination(t *testing.T) {
	paths := podRoot(t, map[string]string{"sweep/input/model.patch": "diff\n", "etc/important": "keep\n"})
	target := filepath.Join(filepath.Dir(filepath.Dir(paths.TerminationLog)), "etc", "important") // root/dev/termination-log
	if err := os.MkdirAll(filepath.Dir(paths.Patch), 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, target, paths.Patch)
	log, err := newCappedLog(filepath.Join(t.TempDir(), "log"), 1<<10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := restoreArtifacts(verifierSpec(paths).Artifacts, paths.Input, log); err != nil {
		t.Fatal(err)
	}
	if _, err := log.Close(); err != nil {
		t.Fatal(err)
	}
	if got := sweeptest.ReadFile(t, target); got != "keep\n" {
		t.Errorf("the symlink's target was overwritten: %q", got)
	}
	st, err := os.Lstat(paths.Patch)
	if err != nil || !st.Mode().IsRegular() {
		t.Fatalf("%s is not a regular file: %v, %v", paths.Patch, st, err)
	}
	if got := sweeptest.ReadFile(t, paths.Patch); got != "diff\n" {
		t.Errorf("restored patch = %q", got)
	}
}

func mustSymlink(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}
