package reward

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestReadVerdict(t *testing.T) {
	tests := map[string]struct {
		content *string
		want    Verdict
		wantErr string
	}{
		"none":          {},
		"patch refused": {content: ptr(`{"reason":"` + reasons.PatchRefused + `","message":"m"}`), want: Verdict{Reason: reasons.PatchRefused, Message: "m"}},
		"tests hung":    {content: ptr(`{"reason":"` + reasons.TestsHungOnPatch + `"}`), want: Verdict{Reason: reasons.TestsHungOnPatch}},
		"not measured":  {content: ptr(`{"reason":"` + reasons.VerifierTimeout + `"}`), wantErr: `reason "VerifierTimeout" is not one a grader gives`},
		"empty reason":  {content: ptr(`{}`), wantErr: `reason "" is not one`},
		"not JSON":      {content: ptr(`{`), wantErr: FileVerdict + ":"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.content != nil {
				if err := os.WriteFile(filepath.Join(dir, FileVerdict), []byte(*tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadVerdict(dir)
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr(s string) *string { return &s }
