package steps

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestWriteResults(t *testing.T) {
	tests := map[string]struct {
		existing map[string]string
		files    []File
		want     map[string]string
	}{
		"writes":               {files: []File{{Name: "a.json", Data: []byte("1\n")}, {Name: "b.json", Data: []byte("2\n")}}, want: map[string]string{"a.json": "1\n", "b.json": "2\n"}},
		"overwrites":           {existing: map[string]string{"a.json": "old"}, files: []File{{Name: "a.json", Data: []byte("new")}}, want: map[string]string{"a.json": "new"}},
		"removes a stale one":  {existing: map[string]string{"report.json": "stale", "keep": "k"}, files: []File{{Name: "report.json"}}, want: map[string]string{"keep": "k"}},
		"nothing to remove":    {files: []File{{Name: "report.json"}}, want: map[string]string{}},
		"empty data is a file": {files: []File{{Name: "e", Data: []byte{}}}, want: map[string]string{"e": ""}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			sweeptest.WriteFiles(t, dir, tc.existing)
			if err := WriteResults(dir, tc.files...); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				got[e.Name()] = string(b)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWriteResultsReportsEveryFailure(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a.json", "x"), 0o755); err != nil { // a directory where a file goes
		t.Fatal(err)
	}
	err := WriteResults(dir, File{Name: "a.json", Data: []byte("1")}, File{Name: "b.json", Data: []byte("2")})
	if err == nil {
		t.Fatal("want an error for a.json")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b.json")); string(b) != "2" {
		t.Errorf("b.json = %q: one failure must not stop the other files", b)
	}
}

func TestIndentedJSON(t *testing.T) {
	got, err := IndentedJSON(map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": 1\n}\n"; string(got) != want {
		t.Errorf("IndentedJSON = %q, want %q", got, want)
	}
	if _, err := IndentedJSON(func() {}); err == nil {
		t.Error("want an error for a value JSON cannot encode")
	}
}
