package main

import (
	"os"
	"os/exec"
	"testing"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// testScript stands for a verifier: it prints a little and writes its reward.
const testScript = `echo running tests
echo '{"reward": 1}' > "$VERIFIER_DIR/reward.json"
`

// BenchmarkVerifyOverhead compares "sweep-hook verify" with running the same test.sh directly:
// the difference is what the stage adds (spec, artifacts put back, capped log, process tree,
// reward parsing, done file).
func BenchmarkVerifyOverhead(b *testing.B) {
	p := newPod(b, map[string]string{"tests/test.sh": testScript, "sweep/input/model.patch": "diff\n"})
	p.withSpec(pc.StageSpec{Stage: pc.StageVerifier, TimeoutSeconds: 60, Env: map[string]string{"VERIFIER_DIR": p.VerifierDir},
		Artifacts: []pc.Artifact{{Path: p.Patch, Key: pc.PatchKey}}})
	if err := os.MkdirAll(p.VerifierDir, 0o755); err != nil {
		b.Fatal(err)
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("bash", p.Tests+"/test.sh")
			cmd.Env = []string{"VERIFIER_DIR=" + p.VerifierDir}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	b.Run("sweep-hook verify", func(b *testing.B) {
		for b.Loop() {
			if out, err := exec.Command(binary, "verify", "-root", p.root).CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
}
