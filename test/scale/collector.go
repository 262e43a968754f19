package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/hook"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// simulatedBugs is the bug count of every generated task.
const simulatedBugs = 3

// simulatedOraclePatch is what the simulated oracle agent "wrote": a small patch, as the
// sample tasks' solutions are, so that the real collector sends it inline.
const simulatedOraclePatch = `diff --git a/rangeset.py b/rangeset.py
--- a/rangeset.py
+++ b/rangeset.py
@@ -1 +1 @@
-    return self.end - self.start
+    return self.end - self.start + 1
`

// simulatedCollector holds the termination messages the simulated nodes give the collector
// container of every agent and verifier Pod. kwok runs no containers, so no sweep-hook runs
// in them: these messages are what the REAL collector (hook.RunCollector) reports for a
// passing oracle trial, made once here by running it over a stage directory laid out as the
// agent and the verifier leave it.
type simulatedCollector struct {
	Agent, Verifier string
}

func newSimulatedCollector(dir string) (simulatedCollector, error) {
	agent, err := runCollector(filepath.Join(dir, "agent"), pc.StageAgent, map[string]string{
		pc.PatchPath:    simulatedOraclePatch,
		pc.AgentLogPath: "applied the solution (simulated oracle)\n",
	}, nil)
	if err != nil {
		return simulatedCollector{}, fmt.Errorf("simulated agent collector: %w", err)
	}
	// All nine keys, as SWE-sweep's grader writes them for a trial that resolved every bug.
	passing := reward.Result{
		reward.KeyReward: 1, reward.KeySubtasks: simulatedBugs, reward.KeyResolved: simulatedBugs, reward.KeyPartial: 0,
		reward.KeyVisibleOK: 1, reward.KeyRegressions: 0, reward.KeyPatchApplied: 1, reward.KeyBuildOK: 1, reward.KeyGraderFailed: 0,
	}
	rewardJSON, err := reward.Encode(passing)
	if err != nil {
		return simulatedCollector{}, err
	}
	verifier, err := runCollector(filepath.Join(dir, "verifier"), pc.StageVerifier, map[string]string{
		pc.VerifierLogDir + "/" + reward.FileJSON:     string(rewardJSON),
		pc.VerifierLogDir + "/" + pc.RecordTestStdout: "3 bugs resolved, visible tests passed (simulated)\n",
	}, passing)
	if err != nil {
		return simulatedCollector{}, fmt.Errorf("simulated verifier collector: %w", err)
	}
	return simulatedCollector{Agent: agent, Verifier: verifier}, nil
}

// runCollector lays files out under root at their Pod paths, writes the stage's done file and
// runs the real collector over them; it returns the termination message, which must be
// inline (a streamed one would need the collector's log, which kwok does not serve).
func runCollector(root string, stage pc.Stage, files map[string]string, rewards reward.Result) (string, error) {
	paths := hook.RootedPaths(root)
	for path, data := range files {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return "", err
		}
	}
	now := time.Now().UTC()
	done, err := json.Marshal(hook.Done{Stage: stage, Rewards: rewards, StartedAt: now.Add(-time.Second), FinishedAt: now})
	if err != nil {
		return "", err
	}
	for _, p := range []string{paths.Done, paths.TerminationLog} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(paths.Done, done, 0o644); err != nil {
		return "", err
	}
	spec := pc.StageSpec{Stage: stage, Task: "simulated", Trial: "simulated"}
	if stage == pc.StageAgent {
		spec.Artifacts = []pc.Artifact{{Path: filepath.Join(root, pc.PatchPath), Key: pc.PatchKey}}
	} else {
		spec.Verifier = &pc.VerifierSpec{Grader: pc.GraderSWESweep, GraderDir: pc.TestsDir}
	}
	sum, err := hook.RunCollector(context.Background(), spec, paths, io.Discard, hook.CollectOptions{})
	if err != nil {
		return "", err
	}
	if sum.Streamed {
		return "", fmt.Errorf("the %s collector streamed its outputs; the simulation needs them inline", stage)
	}
	msg, err := os.ReadFile(paths.TerminationLog)
	return string(msg), err
}
