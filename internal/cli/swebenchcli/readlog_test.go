package swebenchcli

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := map[string]struct {
		path, want string
		err        bool
	}{
		"a log is mapped":           {path: write("log", "PASSED t.py::a\nFAILED t.py::b\n"), want: "PASSED t.py::a\nFAILED t.py::b\n"},
		"an empty log is read":      {path: write("empty", ""), want: ""},
		"a missing log is an error": {path: filepath.Join(dir, "missing"), err: true},
		"a directory is an error":   {path: dir, err: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			log, release, err := readLog(tc.path)
			if (err != nil) != tc.err {
				t.Fatalf("readLog(%q) error %v, want error %v", tc.path, err, tc.err)
			}
			if err != nil {
				return
			}
			defer release()
			if log != tc.want {
				t.Errorf("readLog(%q) = %q, want %q", tc.path, log, tc.want)
			}
		})
	}
}
