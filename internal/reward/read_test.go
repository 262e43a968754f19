package reward

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestParseJSON(t *testing.T) {
	many := "{"
	for i := range 40 {
		if i > 0 {
			many += ","
		}
		many += `"k` + strings.Repeat("x", i) + `": 1`
	}
	many += "}"
	for _, tc := range []struct{ in, want string }{
		{`{"reward": 0.5, "n": -2, "e": 1e3}`, ""},
		{`[1]`, "reward.json is not a JSON object"},
		{`null`, "reward.json is not a JSON object"},
		{`{"reward": NaN}`, "reward.json is not a JSON object: invalid character 'N'"},
		{`{}`, "reward.json is empty"},
		{`{"a": 1} {"b": 2}`, "reward.json has data after its object"},
		{`{"a": true}`, `reward.json key "a": true is not a number`},
		{`{"a": null}`, `reward.json key "a": null is not a number`},
		{`{"a": "1"}`, `reward.json key "a": "1" is not a number`},
		{`{"a": {"b": 1}}`, `reward.json key "a": {"b": 1} is not a number`},
		{`{"a": 1e999}`, "not a finite number"},
		{`{"` + strings.Repeat("k", 65) + `": 1}`, "keys must have 1 to 64 bytes"},
		{`{"": 1}`, "keys must have 1 to 64 bytes"},
		{many, "reward.json has 40 keys, at most 32 allowed"},
	} {
		_, err := ParseJSON([]byte(tc.in))
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ParseJSON(%.40s) error = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Result
		wantErr string
	}{
		{in: " 0.25 \n", want: Result{KeyReward: 0.25}},
		{in: "-1", want: Result{KeyReward: -1}},
		{in: "inf", wantErr: `reward.txt holds "inf", which is not a number; want one number such as 0.5`},
		{in: "1e999", wantErr: `reward.txt holds "1e999", which is not a finite number`},
		{in: "n/a", wantErr: `reward.txt holds "n/a", which is not a number`},
		{in: "", wantErr: `reward.txt holds "", which is not a number`},
		{in: "1 2", wantErr: `reward.txt holds "1 2", which is not a finite number`},
	} {
		got, err := ParseText([]byte(tc.in))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseText(%q) error = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseText(%q): %v", tc.in, err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ParseText(%q) (-want +got):\n%s", tc.in, d)
		}
	}
}

func TestRead(t *testing.T) {
	// A file value starting with "->" makes the file a symbolic link to the rest, under the
	// test's directory; "outside" is a file beside the verifier directory.
	for _, tc := range []struct {
		name     string
		files    map[string]string
		want     Result
		wantFile string
		wantErr  string
	}{
		{name: "reward.json first", files: map[string]string{FileJSON: `{"reward": 1, "n_resolved": 3}`, FileText: "0"},
			want: Result{KeyReward: 1, KeyResolved: 3}, wantFile: FileJSON},
		{name: "else reward.txt", files: map[string]string{FileText: "0.5\n"}, want: Result{KeyReward: 0.5}, wantFile: FileText},
		{name: "a bad reward.json is not replaced by reward.txt", files: map[string]string{FileJSON: `{"reward": "1"}`, FileText: "1"},
			wantErr: `reward.json key "reward": "1" is not a number`},
		{name: "neither", files: map[string]string{"eval.json": "{}"}, wantErr: ErrNoResult.Error()},
		{name: "a symlinked reward.json is refused, not followed", files: map[string]string{FileJSON: "->outside"},
			wantErr: "reward.json is a symbolic link: refused: not a regular file"},
		{name: "a symlinked reward.json is not replaced by reward.txt", files: map[string]string{FileJSON: "->outside", FileText: "0"},
			wantErr: "reward.json is a symbolic link"},
		{name: "a symlinked reward.txt is refused", files: map[string]string{FileText: "->outside"},
			wantErr: "reward.txt is a symbolic link"},
		{name: "a dangling symlink is refused, not missing", files: map[string]string{FileJSON: "->nowhere"},
			wantErr: "reward.json is a symbolic link"},
		{name: "a directory is refused", files: map[string]string{FileJSON + "/x": "1"}, wantErr: "reward.json is a directory"},
		{name: "a file above the bound is refused", files: map[string]string{FileJSON: `{"reward": 1` + strings.Repeat(" ", MaxFileBytes) + `}`},
			wantErr: "more than 65536: file too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "outside"), []byte(`{"reward": 1}`), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, "verifier")
			for name, data := range tc.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if target, ok := strings.CutPrefix(data, "->"); ok {
					if err := os.Symlink(filepath.Join(root, target), path); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, file, err := Read(dir)
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Read (-want +got):\n%s", d)
			}
			if want := filepath.Join(dir, tc.wantFile); file != want {
				t.Errorf("Read file = %q, want %q", file, want)
			}
		})
	}
	if _, _, err := Read(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, ErrNoResult) {
		t.Errorf("Read of a missing directory: error = %v, want ErrNoResult", err)
	}
}
