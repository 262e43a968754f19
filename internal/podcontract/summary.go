package podcontract

import (
	"time"

	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// Summary is the collector's termination message: at most MaxSummaryBytes of JSON.
type Summary struct {
	Stage Stage `json:"stage"`
	// StreamID identifies this Pod's record stream; the decoder rejects records of any other.
	StreamID string `json:"streamID"`
	// Done is false when the collector was interrupted before the stage wrote done.
	Done     bool `json:"done"`
	ExitCode int  `json:"exitCode"`
	// Reason is one of api/v1alpha1/reasons, empty when the stage did its work.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	// Rewards are the verifier's numbers, when it produced a valid reward file.
	Rewards map[string]float64 `json:"rewards,omitempty"`
	// Usage is what the agent says it spent, from its usage file (UsagePath), validated: the
	// agent's own claim, never a grade. Agent stage only; nil when it wrote none.
	Usage *usage.Usage `json:"usage,omitempty"`
	// UsageMessage says why a usage file the agent wrote was not taken (malformed, refused, too
	// large); the trial goes on without it.
	UsageMessage string     `json:"usageMessage,omitempty"`
	StartedAt    *time.Time `json:"startedAt,omitempty"`
	FinishedAt   *time.Time `json:"finishedAt,omitempty"`
	// Outputs describe every record on the stream, in stream order, but the verifier's files
	// that its manifest (RecordVerifierFiles) describes: they follow, in the manifest's order.
	Outputs []Output `json:"outputs,omitempty"`
	// Streamed says the outputs were written to the collector's stdout and must be read from
	// its log; when false, every output is small enough to ride Inline.
	Streamed bool `json:"streamed"`
}

// Output describes one collected file.
type Output struct {
	// Name is the record name: an Artifact key, "agent.log", "reward.json", "eval.json", ...
	Name string `json:"name"`
	// Size is the uncompressed size sent; OriginalSize the file's size before truncation.
	Size         int64  `json:"size"`
	OriginalSize int64  `json:"originalSize,omitempty"`
	SHA256       string `json:"sha256"`
	Truncated    bool   `json:"truncated,omitempty"`
	// Missing is set when a declared output did not exist, or was refused.
	Missing bool `json:"missing,omitempty"`
	// Refused says why the collector would not read an output that is there: it is a
	// symbolic link (code under test could point it at any file it can read) or not a regular
	// file. Missing is set too: a refused artifact is absent, and the verifier grades no patch.
	Refused string `json:"refused,omitempty"`
	// TooLarge is set when an output that cannot be cut (an artifact, reward.json, eval.json)
	// exceeded Limits.MaxRecordBytes or what was left of MaxStreamBytes: nothing of it is sent.
	TooLarge bool `json:"tooLarge,omitempty"`
	// Inline holds small outputs (base64 in JSON) so that no log read is needed.
	Inline []byte `json:"inline,omitempty"`
}
