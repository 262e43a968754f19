package swesweep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUntrustedEnv(t *testing.T) {
	got := untrustedEnv([]string{"PATH=/bin", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=", "PYTHONNOUSERSITE=0", "PYTHONPATH=/x", "SWESWEEP_BUILD_JOBS=64"}, 3)
	want := []string{"PATH=/bin", "PYTHONPATH=/x", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "SWESWEEP_BUILD_JOBS=3"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("untrustedEnv (-want +got):\n%s", d)
	}
}

func TestHeadWriter(t *testing.T) {
	var got strings.Builder
	w := &headWriter{w: &got, left: 5}
	for _, chunk := range []string{"abc", "defg", "hij"} {
		if n, err := w.Write([]byte(chunk)); err != nil || n != len(chunk) {
			t.Fatalf("Write(%q) = %d, %v; want the whole chunk taken", chunk, n, err)
		}
	}
	if got.String() != "abcde" {
		t.Errorf("kept %q, want the first 5 bytes", got.String())
	}
}
