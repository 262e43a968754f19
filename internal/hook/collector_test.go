package hook

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// collectNow runs the collector against a finished (or not) stage and decodes its report the
// way the controller does.
func collectNow(t *testing.T, ctx context.Context, spec pc.StageSpec, paths Paths) (pc.Summary, map[string][]byte) {
	t.Helper()
	var stdout bytes.Buffer
	s, err := RunCollector(ctx, spec, paths, &stdout, CollectOptions{Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	msg := sweeptest.ReadFile(t, paths.TerminationLog)
	if len(msg) > pc.MaxSummaryBytes {
		t.Fatalf("termination message has %d bytes", len(msg))
	}
	got, err := pc.DecodeSummary(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got.StreamID != s.StreamID || got.Streamed != s.Streamed {
		t.Fatalf("termination message %+v differs from the returned summary", got)
	}
	var outputs map[string][]byte
	if got.Streamed {
		outputs, err = pc.DecodeStream(&stdout, got, spec.Limits)
	} else {
		if stdout.Len() != 0 {
			t.Errorf("inline summary but %d bytes on stdout", stdout.Len())
		}
		outputs, err = got.InlineOutputs()
	}
	if err != nil {
		t.Fatal(err)
	}
	return got, outputs
}

// mustWriteDone writes the done file, failing the test when it cannot.
func mustWriteDone(t *testing.T, path string, d Done) {
	t.Helper()
	if err := writeDone(path, d); err != nil {
		t.Fatal(err)
	}
}

func TestCollectorAfterAgent(t *testing.T) {
	paths := podRoot(t, map[string]string{"sweep/input/agent.patch": patchFrom(t, map[string]string{"src/a.py": "x = 2\n"})})
	spec := agentSpec(sweeptest.GitRepo(t, repoFiles, ""), paths, pc.AgentSpec{Kind: agentkind.Patch})
	if _, err := RunAgent(context.Background(), spec, paths); err != nil {
		t.Fatal(err)
	}
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if !s.Done || s.Streamed || s.ExitCode != 0 || s.Reason != "" || s.StartedAt == nil || s.Stage != pc.StageAgent {
		t.Errorf("summary = %+v", s)
	}
	patch := outputs[pc.PatchKey]
	if !strings.Contains(string(patch), "+x = 2") || !strings.Contains(string(outputs[pc.RecordAgentLog]), "agent patch starting") {
		t.Errorf("outputs = %q", outputs)
	}
	if o, _ := s.Output(pc.PatchKey); o.Size != int64(len(patch)) || len(o.SHA256) != 64 {
		t.Errorf("patch output = %+v", o)
	}
}

func TestCollectorStreamsLargeOutputs(t *testing.T) {
	paths := podRoot(t, nil)
	noise := make([]byte, 64<<10)
	rand.Read(noise)
	spec := verifierSpec(paths)
	spec.Limits = pc.Limits{MaxRecordBytes: 32 << 10}
	d := Done{Stage: pc.StageVerifier, ExitCode: 0, Rewards: map[string]float64{"reward": 0.5},
		Logs: map[string]LogInfo{pc.RecordTestStdout: {OriginalSize: 1 << 20, Truncated: true}}}
	if err := os.MkdirAll(paths.VerifierDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.testStdout(), noise, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths.rewardJSON(), []byte(`{"reward": 0.5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mustWriteDone(t, paths.Done, d)
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if !s.Streamed || s.Rewards["reward"] != 0.5 {
		t.Errorf("summary = %+v", s)
	}
	want := []pc.Output{
		pc.NewOutput(pc.RecordTestStdout, noise[:32<<10], 1<<20),
		pc.NewOutput(pc.RecordReward, []byte(`{"reward": 0.5}`), 15),
		{Name: pc.RecordEval, Missing: true},
		pc.NewOutput(pc.RecordVerifierFiles, outputs[pc.RecordVerifierFiles], int64(len(outputs[pc.RecordVerifierFiles]))),
	}
	if diff := cmp.Diff(want, s.Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if !s.Outputs[0].Truncated || !bytes.Equal(outputs[pc.RecordTestStdout], noise[:32<<10]) {
		t.Error("test-stdout.txt not truncated as described")
	}
}

func TestCollectorPatchTooLarge(t *testing.T) {
	paths := podRoot(t, map[string]string{"logs/artifacts/model.patch": strings.Repeat("+", 2000)})
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	spec.Limits = pc.Limits{MaxRecordBytes: 1000}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent})
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if o, _ := s.Output(pc.PatchKey); !o.TooLarge || o.OriginalSize != 2000 || o.Size != 0 {
		t.Errorf("patch output = %+v", o)
	}
	if _, ok := outputs[pc.PatchKey]; ok {
		t.Error("a too-large patch was sent")
	}
}

func TestCollectorInterrupted(t *testing.T) {
	paths := podRoot(t, map[string]string{"logs/agent/agent.log": "half way\n"})
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	s, outputs := collectNow(t, ctx, spec, paths)
	if s.Done || s.Reason != reasons.CollectorInterrupted || !strings.Contains(s.Message, "before the stage wrote done") {
		t.Errorf("summary = %+v", s)
	}
	if string(outputs[pc.RecordAgentLog]) != "half way\n" {
		t.Errorf("outputs = %q", outputs)
	}
	if o, _ := s.Output(pc.PatchKey); !o.Missing {
		t.Errorf("patch output = %+v", o)
	}
}

func TestCollectorBadDoneFile(t *testing.T) {
	paths := podRoot(t, map[string]string{"sweep/run/done": "{not json"})
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	s, _ := collectNow(t, context.Background(), spec, paths)
	if s.Done || s.Reason != reasons.CollectorInterrupted || !strings.Contains(s.Message, "done file") {
		t.Errorf("summary = %+v", s)
	}
}

func TestCollectorCannotWriteTerminationLog(t *testing.T) {
	paths := podRoot(t, nil)
	paths.TerminationLog = "/nonexistent/dir/termination-log"
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent})
	_, err := RunCollector(context.Background(), agentSpec("", paths, pc.AgentSpec{}), paths, &bytes.Buffer{}, CollectOptions{})
	if err == nil || !strings.Contains(err.Error(), "termination message") {
		t.Fatalf("error = %v", err)
	}
}

func TestReadSpec(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"valid", `{"stage": "agent", "artifacts": [{"path": "/logs/artifacts/model.patch", "key": "model.patch"}]}`, ""},
		{"missing", "", "no such file"},
		{"not json", "{", "unexpected end of JSON"},
		{"stage", `{"stage": "build"}`, `unknown stage "build"`},
		{"relative artifact", `{"stage": "agent", "artifacts": [{"path": "x", "key": "x"}]}`, "needs an absolute path"},
		{"bad key", `{"stage": "agent", "artifacts": [{"path": "/x", "key": "a/b"}]}`, "valid key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			if tc.spec != "" {
				files["sweep/spec/stage.json"] = tc.spec
			}
			paths := podRoot(t, files)
			s, err := ReadSpec(paths.Spec)
			if tc.want == "" {
				if err != nil || s.Limits != pc.DefaultLimits() {
					t.Fatalf("ReadSpec = %+v, %v", s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCollectorKeepsTheStreamWithinItsLimit(t *testing.T) {
	patch := make([]byte, 30<<10)
	log := make([]byte, 30<<10)
	rand.Read(patch) // incompressible: compression cannot rescue an overflow
	rand.Read(log)
	paths := podRoot(t, map[string]string{"logs/artifacts/model.patch": string(patch), "logs/agent/agent.log": string(log)})
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	spec.Artifacts = append(spec.Artifacts, pc.Artifact{Path: paths.AgentLog + ".copy", Key: "big.bin"})
	if err := os.WriteFile(paths.AgentLog+".copy", patch, 0o644); err != nil {
		t.Fatal(err)
	}
	spec.Limits = pc.Limits{MaxStreamBytes: 48 << 10}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent})
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if !bytes.Equal(outputs[pc.PatchKey], patch) {
		t.Error("the patch, first in line, was not sent whole")
	}
	if o, _ := s.Output("big.bin"); !o.TooLarge {
		t.Errorf("second artifact = %+v, want too large for what is left", o)
	}
	o, _ := s.Output(pc.RecordAgentLog)
	if !o.Truncated || o.Size == 0 || o.Size >= 18<<10 || !bytes.Equal(outputs[pc.RecordAgentLog], log[:o.Size]) {
		t.Errorf("agent.log = %+v, want cut to the remaining budget", o)
	}
}

// A SWE-bench verifier also sends report.json, which the run report is made of.
func TestCollectorSendsSWEBenchReport(t *testing.T) {
	report := `{"x__x-1": {"resolved": true}}`
	paths := podRoot(t, map[string]string{"logs/verifier/report.json": report, "logs/verifier/reward.json": `{"reward": 1}`})
	spec := verifierSpec(paths)
	spec.Verifier = &pc.VerifierSpec{Grader: pc.GraderSWEBench, GraderDir: "/sweep/grader"}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier, Rewards: map[string]float64{"reward": 1}})
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if got := string(outputs[pc.RecordSWEBenchReport]); got != report {
		t.Errorf("report.json sent as %q, want %q (summary %+v)", got, report, s)
	}
}

// With the default limits the agent stage's stream carries a patch of MaxArtifactBytes, the
// most the verifier receives, and a full agent log beside it; the log is what is cut.
func TestCollectorCarriesTheLargestArtifact(t *testing.T) {
	patch := strings.Repeat("+0123456789abcdef\n", pc.MaxArtifactBytes/18)
	paths := podRoot(t, map[string]string{"logs/artifacts/model.patch": patch, "logs/agent/agent.log": strings.Repeat("log\n", 2<<20)})
	spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
	spec.Limits = pc.DefaultLimits()
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent})
	s, outputs := collectNow(t, context.Background(), spec, paths)
	if o, _ := s.Output(pc.PatchKey); o.TooLarge || o.Missing || string(outputs[pc.PatchKey]) != patch {
		t.Errorf("patch of %d bytes: output %+v, %d bytes received", len(patch), o, len(outputs[pc.PatchKey]))
	}
}
