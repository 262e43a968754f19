package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// A manifest that is not one named SweepRun is refused before the cluster is asked.
func TestReadSweepRunManifestErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		manifest string
		want     []string
	}{
		"not yaml":   {"kind: [", []string{"not YAML or JSON"}},
		"other kind": {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", []string{`apiVersion "v1" kind "ConfigMap"`, `want apiVersion "eval.sweep.dev/v1alpha1" kind "SweepRun"`}},
		"no name":    {"apiVersion: eval.sweep.dev/v1alpha1\nkind: SweepRun\nspec: {}\n", []string{"metadata.name is empty", "metadata.generateName"}},
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readSweepRunManifest(nil, file)
			sweeptest.ErrorContains(t, err, append([]string{file}, tc.want...)...)
		})
	}
	_, err := readSweepRunManifest(strings.NewReader("apiVersion: eval.sweep.dev/v1alpha1\nkind: SweepRun\nmetadata:\n  name: from-stdin\n"), "-")
	if err != nil {
		t.Errorf("a manifest on stdin: %v", err)
	}
	sweeptest.ErrorContains(t, (&Options{}).Validate(), "flag -f/--filename is required")
}
