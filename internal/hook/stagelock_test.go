package hook

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// A done file written while the stage still runs (the agent can write one) is not what the
// collector reports: it waits for the stage's process to end, then reads the stage's own.
func TestCollectorWaitsForTheStageToEnd(t *testing.T) {
	paths := podRoot(t, map[string]string{"logs/agent/agent.log": "early\n"})
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	lock, err := OpenStageLock(paths.StageLock)
	if err != nil {
		t.Fatal(err)
	}
	stage, err := HoldStageLock(paths.StageLock)
	if err != nil {
		t.Fatal(err)
	}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent, ExitCode: 7, Reason: "Forged"})
	type result struct {
		s   pc.Summary
		err error
	}
	got := make(chan result, 1)
	go func() {
		s, err := RunCollector(context.Background(), spec, paths, &bytes.Buffer{}, CollectOptions{Poll: 10 * time.Millisecond, StageLock: lock})
		got <- result{s, err}
	}()
	select {
	case r := <-got:
		t.Fatalf("the collector reported while the stage ran: %+v, %v", r.s, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	sweeptest.WriteFiles(t, podRootDir(paths), map[string]string{"logs/agent/agent.log": "early\nlate\n"})
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent})
	if err := stage.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.err != nil || !r.s.Done || r.s.ExitCode != 0 || r.s.Reason != "" {
			t.Fatalf("summary %+v, %v; want the stage's own done", r.s, r.err)
		}
		log, err := r.s.InlineOutputs()
		if err != nil || string(log[pc.RecordAgentLog]) != "early\nlate\n" {
			t.Errorf("agent log %q (%v), want what the stage left when it ended", log[pc.RecordAgentLog], err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the collector did not report after the stage ended")
	}
}

// Interrupted while the stage runs (SIGTERM), the collector reports the done file it saw.
func TestCollectorInterruptedWaitingForTheStage(t *testing.T) {
	paths := podRoot(t, nil)
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	lock, err := OpenStageLock(paths.StageLock)
	if err != nil {
		t.Fatal(err)
	}
	stage, err := HoldStageLock(paths.StageLock)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stage.Close() }()
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent, ExitCode: 3})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	s, err := RunCollector(ctx, spec, paths, &bytes.Buffer{}, CollectOptions{Poll: 10 * time.Millisecond, StageLock: lock})
	if err != nil || !s.Done || s.ExitCode != 3 {
		t.Fatalf("summary %+v, %v", s, err)
	}
}
