package failure

import (
	"fmt"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// VerifierArtifacts decides which of the agent's declared artifacts (keys, in the task's order)
// the verifier receives, from the collector's summary and the outputs read from it.
//
// The agent produced every artifact, so one the collector would not carry (too large) or would
// not read (a symbolic link, not a regular file) is the agent's doing, never a reason to leave
// the trial unscored: it is left out, the verifier grades without it (without a patch: the
// unpatched tree, which usually scores 0), and the agent stage ends with PatchTooLarge or
// PatchRefused, the trial's reason once it is scored. Artifacts that together exceed maxBytes
// (podcontract.MaxArtifactBytes, what the artifacts Secrets carry to the verifier) are all left
// out. The verdict is nil
// when every artifact the agent left reaches the verifier.
func VerifierArtifacts(keys []string, sum podcontract.Summary, outputs map[string][]byte, maxBytes int) (map[string][]byte, *Verdict) {
	kept := map[string][]byte{}
	var verdict *Verdict
	leftOut := func(reason, format string, args ...any) {
		if verdict == nil {
			verdict = &Verdict{Done: true, Class: ClassScored, Reason: reason,
				Message: fmt.Sprintf(format, args...) + "; the verifier grades without it"}
		}
	}
	size := 0
	for _, key := range keys {
		o, described := sum.Output(key)
		switch {
		case described && o.Refused != "":
			leftOut(reasons.PatchRefused, "artifact %s was refused by the collector: %s", key, o.Refused)
		case described && o.TooLarge:
			leftOut(reasons.PatchTooLarge, "artifact %s has %d bytes, more than the collector carries: shrink the change", key, o.OriginalSize)
		default:
			if b, ok := outputs[key]; ok {
				kept[key] = b
				size += len(b)
			}
		}
	}
	if size > maxBytes {
		return map[string][]byte{}, &Verdict{Done: true, Class: ClassScored, Reason: reasons.PatchTooLarge,
			Message: fmt.Sprintf("the artifacts have %d bytes together, more than the %d the verifier receives; the verifier grades without them: shrink the change", size, maxBytes)}
	}
	return kept, verdict
}
