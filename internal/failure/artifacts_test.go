package failure

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func TestVerifierArtifacts(t *testing.T) {
	patch, notes := []byte("diff --git a/f b/f\n"), []byte("notes")
	read := func(name string, data []byte) podcontract.Output {
		return podcontract.NewOutput(name, data, int64(len(data)))
	}
	keys := []string{podcontract.PatchKey, "notes.txt"}
	cases := map[string]struct {
		outputs []podcontract.Output
		read    map[string][]byte
		max     int
		want    map[string][]byte
		verdict *Verdict
	}{
		"every artifact reaches the verifier": {
			outputs: []podcontract.Output{read(podcontract.PatchKey, patch), read("notes.txt", notes)},
			read:    map[string][]byte{podcontract.PatchKey: patch, "notes.txt": notes}, max: 100,
			want: map[string][]byte{podcontract.PatchKey: patch, "notes.txt": notes}},
		"an artifact the agent did not leave is absent, not a cause": {
			outputs: []podcontract.Output{read(podcontract.PatchKey, patch), {Name: "notes.txt", Missing: true}},
			read:    map[string][]byte{podcontract.PatchKey: patch}, max: 100,
			want: map[string][]byte{podcontract.PatchKey: patch}},
		"a patch the collector could not carry: graded without it": {
			outputs: []podcontract.Output{{Name: podcontract.PatchKey, OriginalSize: 2 << 20, TooLarge: true}, read("notes.txt", notes)},
			read:    map[string][]byte{"notes.txt": notes}, max: 100,
			want: map[string][]byte{"notes.txt": notes},
			verdict: &Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchTooLarge,
				Message: "artifact model.patch has 2097152 bytes, more than the collector carries: shrink the change; the verifier grades without it"}},
		"a symlinked patch the collector refused: graded without it": {
			outputs: []podcontract.Output{{Name: podcontract.PatchKey, Missing: true, Refused: "a symbolic link"}},
			max:     100, want: map[string][]byte{},
			verdict: &Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchRefused,
				Message: "artifact model.patch was refused by the collector: a symbolic link; the verifier grades without it"}},
		"the first cause is the reason": {
			outputs: []podcontract.Output{{Name: podcontract.PatchKey, Missing: true, Refused: "not a regular file"}, {Name: "notes.txt", OriginalSize: 9, TooLarge: true}},
			max:     100, want: map[string][]byte{},
			verdict: &Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchRefused,
				Message: "artifact model.patch was refused by the collector: not a regular file; the verifier grades without it"}},
		"artifacts too large together for the Secret: graded without any": {
			outputs: []podcontract.Output{read(podcontract.PatchKey, patch), read("notes.txt", notes)},
			read:    map[string][]byte{podcontract.PatchKey: patch, "notes.txt": notes}, max: 20,
			want: map[string][]byte{},
			verdict: &Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchTooLarge,
				Message: "the artifacts have 24 bytes together, more than the 20 the verifier receives; the verifier grades without them: shrink the change"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, v := VerifierArtifacts(keys, podcontract.Summary{Outputs: tc.outputs}, tc.read, tc.max)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("artifacts (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.verdict, v); d != "" {
				t.Errorf("verdict (-want +got):\n%s", d)
			}
		})
	}
}
