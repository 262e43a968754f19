package podcontract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// NewOutput describes data sent under name; originalSize is the file's size before any
// truncation.
func NewOutput(name string, data []byte, originalSize int64) Output {
	sum := sha256.Sum256(data)
	return Output{
		Name:         name,
		Size:         int64(len(data)),
		OriginalSize: originalSize,
		SHA256:       hex.EncodeToString(sum[:]),
		Truncated:    originalSize > int64(len(data)),
	}
}

// Output returns the output named name.
func (s Summary) Output(name string) (Output, bool) {
	for _, o := range s.Outputs {
		if o.Name == name {
			return o, true
		}
	}
	return Output{}, false
}

// InlineOutputs returns the outputs carried in the summary itself, checked against their
// sizes and sha256.
func (s Summary) InlineOutputs() (map[string][]byte, error) {
	if s.Streamed {
		return nil, errors.New("summary says the outputs are streamed, not inline")
	}
	out := map[string][]byte{}
	for _, o := range s.StreamedOutputs() {
		if int64(len(o.Inline)) != o.Size {
			return nil, fmt.Errorf("inline output %s has %d bytes, summary says %d", o.Name, len(o.Inline), o.Size)
		}
		if sum := sha256.Sum256(o.Inline); hex.EncodeToString(sum[:]) != o.SHA256 {
			return nil, fmt.Errorf("inline output %s: sha256 mismatch", o.Name)
		}
		out[o.Name] = o.Inline
	}
	return out, nil
}

// EncodeSummary marshals s for the termination message, shortening Message, then dropping
// UsageMessage, if that is what it takes to fit in MaxSummaryBytes.
func EncodeSummary(s Summary) ([]byte, error) {
	for {
		b, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		if len(b) <= MaxSummaryBytes {
			return b, nil
		}
		over := len(b) - MaxSummaryBytes
		if s.Message == "" && s.UsageMessage != "" {
			// The agent's usage file can make this message; it goes before anything else.
			s.UsageMessage = ""
			continue
		}
		if s.Message == "" {
			return nil, fmt.Errorf("summary has %d bytes, above the %d a termination message holds", len(b), MaxSummaryBytes)
		}
		// JSON escaping can make a character cost more than a byte, hence the loop.
		s.Message = truncateUTF8(s.Message, max(0, len(s.Message)-over-len("…")))
		if s.Message != "" {
			s.Message += "…"
		}
	}
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n]
}

// DecodeSummary parses and validates a collector's termination message.
func DecodeSummary(terminationMessage string) (Summary, error) {
	var s Summary
	if len(terminationMessage) > MaxSummaryBytes {
		return s, fmt.Errorf("termination message has %d bytes, above %d", len(terminationMessage), MaxSummaryBytes)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(terminationMessage)))
	if err := dec.Decode(&s); err != nil {
		return Summary{}, fmt.Errorf("termination message is not a summary: %w", err)
	}
	if dec.More() {
		return Summary{}, errors.New("termination message has data after the summary")
	}
	if err := s.validate(); err != nil {
		return Summary{}, fmt.Errorf("invalid summary: %w", err)
	}
	return s, nil
}

func (s Summary) validate() error {
	if s.Stage != StageAgent && s.Stage != StageVerifier {
		return fmt.Errorf("unknown stage %q", s.Stage)
	}
	if !ValidRecordName(s.StreamID) {
		return fmt.Errorf("invalid stream id %q", s.StreamID)
	}
	if len(s.Rewards) > 0 {
		if err := reward.Result(s.Rewards).Validate(); err != nil {
			return err
		}
	}
	if s.Usage != nil {
		if s.Stage != StageAgent {
			return fmt.Errorf("a %s stage reports usage", s.Stage)
		}
		if err := s.Usage.Validate(); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	if len(s.UsageMessage) > MaxUsageMessageBytes {
		return fmt.Errorf("usage message has %d bytes, above %d", len(s.UsageMessage), MaxUsageMessageBytes)
	}
	seen := map[string]bool{}
	for _, o := range s.Outputs {
		if !ValidRecordName(o.Name) {
			return fmt.Errorf("invalid output name %q", o.Name)
		}
		if seen[o.Name] {
			return fmt.Errorf("output %s listed twice", o.Name)
		}
		seen[o.Name] = true
		if o.Size < 0 || o.OriginalSize < 0 {
			return fmt.Errorf("output %s has a negative size", o.Name)
		}
		if o.Missing || o.TooLarge {
			continue
		}
		if b, err := hex.DecodeString(o.SHA256); err != nil || len(b) != sha256.Size {
			return fmt.Errorf("output %s has an invalid sha256 %q", o.Name, o.SHA256)
		}
		if s.Streamed && len(o.Inline) > 0 {
			return fmt.Errorf("output %s is inline in a streamed summary", o.Name)
		}
	}
	return nil
}
