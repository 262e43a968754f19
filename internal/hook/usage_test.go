package hook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

func TestCollectorReportsTheUsageFile(t *testing.T) {
	tokens := func(n int64) *int64 { return &n }
	spent := usage.Dollars(12_300_000)
	for _, tc := range []struct {
		name        string
		make        func(t *testing.T, paths Paths)
		want        *usage.Usage
		wantMessage string
	}{
		{name: "missing is no usage", make: func(*testing.T, Paths) {}},
		{name: "Harbor's fields", make: writeUsage(`{"n_input_tokens": 1200, "n_cache_tokens": 200, "n_output_tokens": 300, "cost_usd": 0.0123, "metadata": {}}`),
			want: &usage.Usage{InputTokens: tokens(1200), CacheTokens: tokens(200), OutputTokens: tokens(300), CostUSD: &spent}},
		{name: "all null is no usage", make: writeUsage(`{"n_input_tokens": null, "cost_usd": null}`)},
		{name: "malformed", make: writeUsage(`{"n_input_tokens": -3}`),
			wantMessage: "usage file usage.json not taken: n_input_tokens is -3: want an integer from 0 to 2^53"},
		{name: "not JSON", make: writeUsage(`tokens: lots`), wantMessage: "usage file usage.json not taken: not a JSON object"},
		{name: "a symbolic link is refused", wantMessage: "usage.json is a symbolic link: refused",
			make: func(t *testing.T, paths Paths) {
				secret := filepath.Join(filepath.Dir(paths.Spec), "usage.json")
				sweeptest.WriteFiles(t, filepath.Dir(secret), map[string]string{"usage.json": `{"n_input_tokens": 1}`})
				mustSymlink(t, secret, paths.Usage)
			}},
		{name: "a named pipe is refused without blocking", wantMessage: "usage.json is a named pipe: refused",
			make: func(t *testing.T, paths Paths) {
				if err := syscall.Mkfifo(paths.Usage, 0o644); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "a huge file is not read", wantMessage: "more than 65536: file too large",
			make: func(t *testing.T, paths Paths) {
				f, err := os.Create(paths.Usage)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = f.Close() }()
				if err := f.Truncate(1 << 40); err != nil { // sparse: a terabyte claimed, none stored
					t.Fatal(err)
				}
			}},
		{name: "the message is bounded", make: writeUsage(`{"n_output_tokens": "` + strings.Repeat("x", 2000) + `"}`),
			wantMessage: "usage file usage.json not taken: n_output_tokens is \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths := podRoot(t, map[string]string{"logs/agent/agent.log": "agent ran\n"})
			tc.make(t, paths)
			spec := agentSpec(t.TempDir(), paths, pc.AgentSpec{Kind: agentkind.Nop})
			mustWriteDone(t, paths.Done, Done{Stage: pc.StageAgent})
			s, outputs := collectNow(t, context.Background(), spec, paths)
			if diff := cmp.Diff(tc.want, s.Usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if !strings.Contains(s.UsageMessage, tc.wantMessage) || (tc.wantMessage == "") != (s.UsageMessage == "") {
				t.Errorf("usage message = %q, want one containing %q", s.UsageMessage, tc.wantMessage)
			}
			if len(s.UsageMessage) > pc.MaxUsageMessageBytes {
				t.Errorf("usage message has %d bytes, above %d", len(s.UsageMessage), pc.MaxUsageMessageBytes)
			}
			if !s.Done || s.Reason != "" || string(outputs[pc.RecordAgentLog]) != "agent ran\n" {
				t.Errorf("the stage goes on whatever the usage file: summary %+v, outputs %q", s, outputs)
			}
		})
	}
}

func writeUsage(content string) func(t *testing.T, paths Paths) {
	return func(t *testing.T, paths Paths) {
		sweeptest.WriteFiles(t, filepath.Dir(paths.Usage), map[string]string{filepath.Base(paths.Usage): content})
	}
}

// An external agent finds where to write its usage in $SWEEP_USAGE_FILE; the verifier stage
// reports none even when the file is there.
func TestAgentWritesItsUsageFile(t *testing.T) {
	paths := podRoot(t, nil)
	spec := agentSpec(sweeptest.GitRepo(t, repoFiles, ""), paths, pc.AgentSpec{Kind: agentkind.External,
		Command: []string{"sh", "-c", `printf '{"n_input_tokens": 40, "n_output_tokens": 2}' > "$SWEEP_USAGE_FILE"`}})
	if _, err := RunAgent(context.Background(), spec, paths); err != nil {
		t.Fatal(err)
	}
	s, _ := collectNow(t, context.Background(), spec, paths)
	if s.Usage == nil || s.Usage.Tokens() != 42 || s.UsageMessage != "" {
		t.Fatalf("usage = %+v (%q), want 40 input and 2 output tokens", s.Usage, s.UsageMessage)
	}

	verifier := pc.StageSpec{Stage: pc.StageVerifier, Task: "t", Trial: "tr", TimeoutSeconds: 30}
	if err := os.Remove(paths.Done); err != nil {
		t.Fatal(err)
	}
	mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier})
	if v, _ := collectNow(t, context.Background(), verifier, paths); v.Usage != nil || v.UsageMessage != "" {
		t.Errorf("the verifier stage reported usage %+v (%q)", v.Usage, v.UsageMessage)
	}
}
