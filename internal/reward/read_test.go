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
	for _, tc := range []struct {
		name    string
		files   map[string]string
		want    Result
		wantErr string
	}{
		{name: "reward.json first", files: map[string]string{FileJSON: `{"reward": 1, "n_resolved": 3}`, FileText: "0"},
			want: Result{KeyReward: 1, KeyResolved: 3}},
		{name: "else reward.txt", files: map[string]string{FileText: "0.5\n"}, want: Result{KeyReward: 0.5}},
		{name: "a bad reward.json is not replaced by reward.txt", files: map[string]string{FileJSON: `{"reward": "1"}`, FileText: "1"},
			wantErr: `reward.json key "reward": "1" is not a number`},
		{name: "neither", files: map[string]string{"eval.json": "{}"}, wantErr: ErrNoResult.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := Read(dir)
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
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, ErrNoResult) {
		t.Errorf("Read of a missing directory: error = %v, want ErrNoResult", err)
	}
}
