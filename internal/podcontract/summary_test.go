package podcontract

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

func TestSummaryEncodeDecodeInline(t *testing.T) {
	patch := []byte("diff --git a/f b/f\n")
	o := NewOutput(PatchKey, patch, int64(len(patch)))
	o.Inline = patch
	s := Summary{Stage: StageVerifier, StreamID: "s-1", Done: true, Reason: reasons.RewardMissing,
		Message: strings.Repeat("é", 5000), Rewards: map[string]float64{"reward": 0.5},
		Outputs: []Output{o, {Name: RecordEval, Missing: true}}}
	b, err := EncodeSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxSummaryBytes {
		t.Fatalf("encoded summary has %d bytes", len(b))
	}
	got, err := DecodeSummary(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(got.Message) || !strings.HasSuffix(got.Message, "…") {
		t.Errorf("message not shortened cleanly: %q…", got.Message[:20])
	}
	got.Message, s.Message = "", ""
	if d := cmp.Diff(s, got); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	if out, ok := got.Output(PatchKey); !ok || out.Size != int64(len(patch)) {
		t.Errorf("Output(%q) = %+v, %v", PatchKey, out, ok)
	}
	if _, ok := got.Output("nope"); ok {
		t.Error("Output(nope) found")
	}
	inline, err := got.InlineOutputs()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string][]byte{PatchKey: patch}, inline); d != "" {
		t.Error(d)
	}
}

func TestEncodeSummaryTooLarge(t *testing.T) {
	s := Summary{Stage: StageAgent, StreamID: "x"}
	for i := range 100 {
		s.Outputs = append(s.Outputs, NewOutput(strings.Repeat("n", 50)+string(rune('a'+i%26))+strings.Repeat("m", i), nil, 0))
	}
	if _, err := EncodeSummary(s); err == nil || !strings.Contains(err.Error(), "above the 4096") {
		t.Fatalf("error = %v", err)
	}
}

func TestInlineOutputsRejects(t *testing.T) {
	o := NewOutput("a", []byte("abc"), 3)
	for _, tc := range []struct {
		name string
		s    Summary
		want string
	}{
		{"streamed", Summary{Streamed: true}, "outputs are streamed"},
		{"size", Summary{Outputs: []Output{func() Output { o := o; o.Inline = []byte("ab"); return o }()}}, "has 2 bytes, summary says 3"},
		{"sha256", Summary{Outputs: []Output{func() Output { o := o; o.Inline = []byte("abd"); return o }()}}, "sha256 mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.s.InlineOutputs(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDecodeSummaryRejects(t *testing.T) {
	sha := strings.Repeat("a", 64)
	for _, tc := range []struct{ name, msg, want string }{
		{"too long", `{"stage":"agent","streamID":"x","message":"` + strings.Repeat("x", 5000) + `"}`, "above 4096"},
		{"not json", "Error: container died", "not a summary"},
		{"trailing data", `{"stage":"agent","streamID":"x"} {}`, "data after the summary"},
		{"unknown stage", `{"stage":"build","streamID":"x"}`, `unknown stage "build"`},
		{"no stream id", `{"stage":"agent"}`, "invalid stream id"},
		{"bad output name", `{"stage":"agent","streamID":"x","outputs":[{"name":"a/b","sha256":"` + sha + `"}]}`, `invalid output name "a/b"`},
		{"duplicate output", `{"stage":"agent","streamID":"x","outputs":[{"name":"a","sha256":"` + sha + `"},{"name":"a","sha256":"` + sha + `"}]}`, "listed twice"},
		{"negative size", `{"stage":"agent","streamID":"x","outputs":[{"name":"a","size":-1,"sha256":"` + sha + `"}]}`, "negative size"},
		{"bad sha256", `{"stage":"agent","streamID":"x","outputs":[{"name":"a","sha256":"zz"}]}`, "invalid sha256"},
		{"inline in streamed", `{"stage":"agent","streamID":"x","streamed":true,"outputs":[{"name":"a","sha256":"` + sha + `","inline":"YQ=="}]}`, "inline in a streamed summary"},
		{"string reward", `{"stage":"verifier","streamID":"x","rewards":{"reward":"1"}}`, "not a summary"},
		{"negative usage", `{"stage":"agent","streamID":"x","usage":{"n_input_tokens":-1}}`, "usage: n_input_tokens is -1"},
		{"negative cost", `{"stage":"agent","streamID":"x","usage":{"cost_usd":-1}}`, "is negative"},
		{"verifier usage", `{"stage":"verifier","streamID":"x","usage":{"n_input_tokens":1}}`, "a verifier stage reports usage"},
		{"long usage message", `{"stage":"agent","streamID":"x","usageMessage":"` + strings.Repeat("x", 300) + `"}`, "usage message has 300 bytes"},
		{"reward key too long", `{"stage":"verifier","streamID":"x","rewards":{"` + strings.Repeat("k", 65) + `":1}}`, "keys must have 1 to 64 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DecodeSummary(tc.msg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSummaryUsageRoundTrip(t *testing.T) {
	input, cached, output := int64(1200), int64(200), int64(300)
	spent := usage.Dollars(12_345_678_901)
	s := Summary{Stage: StageAgent, StreamID: "s-1", Done: true,
		Usage: &usage.Usage{InputTokens: &input, CacheTokens: &cached, OutputTokens: &output, CostUSD: &spent}}
	b, err := EncodeSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSummary(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s, got); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

// A usage message never costs a summary its outputs: it is dropped when nothing else fits.
func TestEncodeSummaryDropsTheUsageMessage(t *testing.T) {
	s := Summary{Stage: StageAgent, StreamID: "x", UsageMessage: strings.Repeat("u", MaxUsageMessageBytes)}
	for i := 0; ; i++ {
		s.Outputs = append(s.Outputs, NewOutput(strings.Repeat("n", 50)+strings.Repeat("m", i), nil, 0))
		if b, _ := json.Marshal(s); len(b) > MaxSummaryBytes {
			break
		}
	}
	b, err := EncodeSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSummary(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got.UsageMessage != "" || len(got.Outputs) != len(s.Outputs) {
		t.Errorf("usage message %q and %d of %d outputs kept; want the outputs only", got.UsageMessage, len(got.Outputs), len(s.Outputs))
	}
}

func TestLimitsWithDefaults(t *testing.T) {
	got := Limits{MaxRecordBytes: 5}.WithDefaults()
	want := DefaultLimits()
	want.MaxRecordBytes = 5
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
}
