package podcontract

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// streamOf encodes records and returns the stream and a matching summary.
func streamOf(t *testing.T, id string, records []Record) (string, Summary) {
	t.Helper()
	var buf bytes.Buffer
	if err := EncodeStream(&buf, id, records); err != nil {
		t.Fatal(err)
	}
	s := Summary{Stage: StageAgent, StreamID: id, Streamed: true, Done: true}
	for _, r := range records {
		s.Outputs = append(s.Outputs, NewOutput(r.Name, r.Data, int64(len(r.Data))))
	}
	return buf.String(), s
}

func testRecords(t *testing.T) []Record {
	random := make([]byte, 200<<10) // incompressible: many data frames
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	return []Record{
		{Name: "model.patch", Data: []byte("diff --git a/x b/x\n")},
		{Name: "agent.log", Data: random},
		{Name: "eval.json", Data: []byte{}},
	}
}

// rawFrame builds a frame line with a correct checksum, for streams the encoder never writes.
func rawFrame(body string) string {
	return fmt.Sprintf("%s%08x %s\n", framePrefix, crc32.ChecksumIEEE([]byte(body)), body)
}

func TestStreamRoundTrip(t *testing.T) {
	records := testRecords(t)
	stream, s := streamOf(t, "abc123", records)
	// stderr lines interleaved by the container log are ignored.
	lines := strings.SplitAfter(stream, "\n")
	noisy := lines[0] + "panic-free stderr noise\r\n" + strings.Join(lines[1:], "")
	for name, in := range map[string]string{"clean": stream, "noise": noisy, "crlf": strings.ReplaceAll(stream, "\n", "\r\n")} {
		t.Run(name, func(t *testing.T) {
			got, err := DecodeStream(strings.NewReader(in), s, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{}
			for _, r := range records {
				want[r.Name] = r.Data
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
		})
	}
}

func TestStreamMissingAndTooLargeOutputsAreNotExpected(t *testing.T) {
	stream, s := streamOf(t, "s1", []Record{{Name: "agent.log", Data: []byte("hi")}})
	s.Outputs = append([]Output{{Name: "model.patch", TooLarge: true, OriginalSize: 1 << 30}, {Name: "eval.json", Missing: true}}, s.Outputs...)
	got, err := DecodeStream(strings.NewReader(stream), s, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string][]byte{"agent.log": []byte("hi")}, got); d != "" {
		t.Error(d)
	}
}

func TestDecodeStreamRejects(t *testing.T) {
	records := testRecords(t)
	stream, s := streamOf(t, "abc123", records)
	lines := strings.SplitAfter(strings.TrimSuffix(stream, "\n"), "\n")
	other, _ := streamOf(t, "other", records)

	corrupt := []byte(stream)
	corrupt[len(lines[0])+len(lines[1])+40] ^= 0x01 // a bit flip inside a data frame

	swapped := append([]string{}, lines...)
	swapped[2], swapped[3] = swapped[3], swapped[2]

	badSHA := s
	badSHA.Outputs = append([]Output{}, s.Outputs...)
	badSHA.Outputs[0].SHA256 = strings.Repeat("0", 64)

	extra := s
	extra.Outputs = append(append([]Output{}, s.Outputs...), NewOutput("reward.json", []byte("{}"), 2))

	fewer := s
	fewer.Outputs = s.Outputs[:2]

	inline := s
	inline.Streamed = false

	// A record that inflates far beyond its declared size (a gzip bomb) with a valid header.
	bombHeader := NewOutput("x", []byte("0123456789"), 10)
	bombStream, _ := streamOf(t, "bomb", []Record{{Name: "x", Data: bytes.Repeat([]byte("0"), 1<<20)}})
	bombData := strings.SplitAfter(bombStream, "\n")[1]
	bomb := rawFrame("bomb 0 R x 10 "+bombHeader.SHA256) + strings.Replace(bombData, "bomb 1 D", "bomb 1 D", 1) + rawFrame("bomb 2 E 1")
	bombSummary := Summary{Stage: StageAgent, StreamID: "bomb", Streamed: true, Outputs: []Output{bombHeader}}

	for _, tc := range []struct {
		name    string
		stream  string
		summary Summary
		limits  Limits
		want    string
	}{
		{"empty", "", s, Limits{}, "stream truncated"},
		{"cut mid record", strings.Join(lines[:len(lines)/2], ""), s, Limits{}, "stream truncated"},
		{"cut mid frame", stream[:len(stream)/2], s, Limits{}, "checksum mismatch"},
		{"cut before end frame", strings.Join(lines[:len(lines)-1], ""), s, Limits{}, "stream truncated"},
		{"corrupted frame", string(corrupt), s, Limits{}, "checksum mismatch"},
		{"lost frame", lines[0] + strings.Join(lines[2:], ""), s, Limits{}, "lost, reordered or replayed"},
		{"reordered frames", strings.Join(swapped, ""), s, Limits{}, "lost, reordered or replayed"},
		{"replayed stream", stream + stream, s, Limits{}, "replayed stream"},
		{"foreign stream", other, s, Limits{}, `frame of stream "other"`},
		{"sha256 differs from summary", stream, badSHA, Limits{}, "header disagrees with the summary"},
		{"record missing from stream", stream, extra, Limits{}, "stream ended without record reward.json"},
		{"record not in summary", stream, fewer, Limits{}, "record eval.json is not in the summary"},
		{"inline summary", stream, inline, Limits{}, "outputs are inline"},
		{"stream over limit", stream, s, Limits{MaxStreamBytes: 1000}, "stream exceeds 1000 compressed bytes"},
		{"record over limit", stream, s, Limits{MaxRecordBytes: 1000}, "above the limit of 1000"},
		{"inflates past its size", bomb, bombSummary, Limits{}, "record x has 11 bytes, summary says 10"},
		{"log over limit", strings.Repeat("stderr noise\n", 200000) + stream, s, Limits{MaxStreamBytes: 1000}, "stream log exceeds 1050576 bytes"},
		{"unknown frame", rawFrame("abc123 0 Q"), s, Limits{}, `unknown frame type "Q"`},
		{"data outside record", rawFrame("abc123 0 D AAAA"), s, Limits{}, "data frame outside a record"},
		{"bad base64", rawFrame("abc123 0 R model.patch 19 "+s.Outputs[0].SHA256) + rawFrame("abc123 1 D !!"), s, Limits{}, "illegal base64"},
		{"not gzip", rawFrame("abc123 0 R model.patch 19 "+s.Outputs[0].SHA256) + rawFrame("abc123 1 D AAAA") + rawFrame("abc123 2 E 1"), s, Limits{}, "record model.patch: unexpected EOF"},
		{"wrong end count", strings.Join(lines[:len(lines)-1], "") + rawFrame("abc123 "+fmt.Sprint(len(lines)-1)+" E 7"), s, Limits{}, "end frame counts 7 records, received 3"},
		{"malformed header", rawFrame("abc123 0 R model.patch"), s, Limits{}, "malformed record header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeStream(strings.NewReader(tc.stream), tc.summary, tc.limits)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
			if got != nil {
				t.Errorf("returned %d records with an error; want none", len(got))
			}
		})
	}
}

func TestEncodeStreamRejectsBadNames(t *testing.T) {
	for _, tc := range []struct{ id, name, want string }{
		{"bad id", "a", "invalid stream id"},
		{"ok", "a b", "invalid record name"},
		{"ok", "..", "invalid record name"},
	} {
		if err := EncodeStream(&bytes.Buffer{}, tc.id, []Record{{Name: tc.name}}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EncodeStream(%q, %q) error = %v, want %q", tc.id, tc.name, err, tc.want)
		}
	}
}
