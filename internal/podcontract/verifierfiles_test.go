package podcontract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVerifierFileRecord(t *testing.T) {
	long := strings.Repeat("d/", 120) + "f"
	for _, tc := range []struct{ path, want string }{
		{"reward.json", "reward.json"},
		{"eval.json", "eval.json"},
		{"test-stdout.txt", "test-stdout.txt"},
		{"report.json", "report.json"},
		{"eval_output.json", "eval_5foutput.json"},
		{"sub/reward.json", "sub_2freward.json"},
		{"sub_2freward.json", "sub_5f2freward.json"},
		{"a b/ü.txt", "a_20b_2f_c3_bc.txt"},
		{"..x", "_2e.x"},
		{"..", "_2e."},
		{".x", ".x"},
		{"-", "-"},
		{long, ""}, // hashed, checked below
	} {
		got := VerifierFileRecord(tc.path)
		if tc.path == long {
			// The hashed form: reserved, and of the path's sha256.
			if !strings.HasPrefix(got, "_sha256-") || len(got) != len("_sha256-")+64 {
				t.Errorf("VerifierFileRecord(long) = %q", got)
			}
		} else if got != tc.want {
			t.Errorf("VerifierFileRecord(%q) = %q, want %q", tc.path, got, tc.want)
		}
		if !ValidRecordName(got) || len(got) > maxFileRecordName {
			t.Errorf("VerifierFileRecord(%q) = %q: not a record name with room for a piece's prefix", tc.path, got)
		}
	}
}

// No two paths share a record, and none takes a name the collector or controller reserves.
func TestVerifierFileRecordIsCollisionFree(t *testing.T) {
	paths := []string{"a/b", "a_b", "a_2fb", "a/_2fb", "_verifier-files.json", "verifier-files.json", "_part0.eval.json",
		"_sha256-x", "A/B", "a/b/", "a//b", "%2f", "a.b", "a-b", "..a", "_2e.a", ".._2e", strings.Repeat("x", 201), strings.Repeat("x", 200)}
	seen := map[string]string{}
	for _, p := range paths {
		r := VerifierFileRecord(p)
		if other, ok := seen[r]; ok {
			t.Errorf("%q and %q share record %q", p, other, r)
		}
		seen[r] = p
		if r == RecordVerifierFiles || strings.HasPrefix(r, "_") && !strings.HasPrefix(r, "_sha256-") && !isHex(r[1]) {
			t.Errorf("%q takes the reserved name %q", p, r)
		}
	}
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

func TestValidVerifierPath(t *testing.T) {
	for path, want := range map[string]string{
		"eval.json":         "",
		"a/b c/d.txt":       "",
		"..hidden":          "",
		"":                  "not a relative path",
		"/etc/passwd":       "not a relative path",
		"../outside":        "not a plain relative path",
		"a/../../outside":   "not a plain relative path",
		"a//b":              "not a plain relative path",
		"a/./b":             "not a plain relative path",
		"a/":                "not a plain relative path",
		"bad\xffname":       "not valid UTF-8",
		"nul\x00name":       "not valid UTF-8",
		"new\nline is text": "",
	} {
		if got := ValidVerifierPath(path); !strings.Contains(got, want) || (want == "") != (got == "") {
			t.Errorf("ValidVerifierPath(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestDecodeVerifierFiles(t *testing.T) {
	kept := func(path, data string) VerifierFile {
		return VerifierFile{Path: path, Output: NewOutput(VerifierFileRecord(path), []byte(data), int64(len(data)))}
	}
	for _, tc := range []struct {
		name    string
		m       VerifierFiles
		wantErr string
	}{
		{name: "valid", m: VerifierFiles{Files: []VerifierFile{kept("a/b", "x"), {Path: `"\xff"`, Output: Output{Name: "_22_5cxff_22", Missing: true, Refused: "not text"}}}}},
		{name: "escaping path", m: VerifierFiles{Files: []VerifierFile{{Path: "../x", Output: NewOutput(VerifierFileRecord("../x"), nil, 0)}}}, wantErr: "not a plain relative path"},
		{name: "wrong record", m: VerifierFiles{Files: []VerifierFile{{Path: "a/b", Output: NewOutput("reward.json", nil, 0)}}}, wantErr: `has record "reward.json", want "a_2fb"`},
		{name: "twice", m: VerifierFiles{Files: []VerifierFile{kept("a", "x"), kept("a", "y")}}, wantErr: "want \"a\" once"},
		{name: "no sha256", m: VerifierFiles{Files: []VerifierFile{{Path: "a", Output: Output{Name: "a"}}}}, wantErr: "invalid size or sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := EncodeVerifierFiles(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeVerifierFiles(b)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.m, got); diff != "" {
					t.Errorf("round trip (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// The files a verifier manifest lists follow the summary's records on the stream; the decoder
// takes them, checked against the manifest, and nothing else.
func TestStreamCarriesTheManifestsFiles(t *testing.T) {
	files := []VerifierFile{
		{Path: "reward.json", Output: NewOutput("reward.json", []byte(`{"reward": 1}`), 13)},
		{Path: "sub/out.bin", Output: NewOutput(VerifierFileRecord("sub/out.bin"), []byte{0, 1, 2}, 3)},
		{Path: "big", Output: Output{Name: "big", OriginalSize: 1 << 30, TooLarge: true}},
	}
	manifest, err := EncodeVerifierFiles(VerifierFiles{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	summaryRecords := []Record{{Name: "reward.json", Data: []byte(`{"reward": 1}`)}, {Name: RecordVerifierFiles, Data: manifest}}
	encode := func(extra ...Record) (string, Summary) {
		var buf bytes.Buffer
		if err := EncodeStream(&buf, "v1", append(append([]Record{}, summaryRecords...), extra...)); err != nil {
			t.Fatal(err)
		}
		s := Summary{Stage: StageVerifier, StreamID: "v1", Streamed: true, Done: true}
		for _, r := range summaryRecords {
			s.Outputs = append(s.Outputs, NewOutput(r.Name, r.Data, int64(len(r.Data))))
		}
		return buf.String(), s
	}
	stream, s := encode(Record{Name: "sub_2fout.bin", Data: []byte{0, 1, 2}})
	got, err := DecodeStream(strings.NewReader(stream), s, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{"reward.json": []byte(`{"reward": 1}`), RecordVerifierFiles: manifest, "sub_2fout.bin": {0, 1, 2}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	for name, extra := range map[string][]Record{
		"missing":  nil,
		"altered":  {{Name: "sub_2fout.bin", Data: []byte{9, 9, 9}}},
		"unlisted": {{Name: "sub_2fout.bin", Data: []byte{0, 1, 2}}, {Name: "smuggled", Data: []byte("x")}},
	} {
		stream, s := encode(extra...)
		if _, err := DecodeStream(strings.NewReader(stream), s, DefaultLimits()); err == nil {
			t.Errorf("%s: a stream that disagrees with the manifest was accepted", name)
		}
	}
}
