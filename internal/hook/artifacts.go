package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/regularfile"
)

// artifactsLostError says the artifacts the verifier received are not those the collector
// sent: a piece or an artifacts Secret is missing, or the bytes differ from their checksum.
// It ends the stage with reasons.ArtifactsLost, an infrastructure failure, never a score.
type artifactsLostError struct{ err error }

func (e *artifactsLostError) Error() string {
	return "the agent's artifacts did not reach the verifier whole: " + e.err.Error()
}

func (e *artifactsLostError) Unwrap() error { return e.err }

// maxInputBytes bounds what the verifier reads of its input directory: the artifacts, their
// checksums and the keys of their pieces.
const maxInputBytes = pc.MaxArtifactBytes + 1<<20

// restoreArtifacts puts each artifact back at its path from the input directory, where the
// controller's artifacts Secrets are merged (podbuild.ArtifactSecrets): an artifact is there
// whole or in pieces, with the checksum the collector sent (podcontract.ArtifactChecksumKey).
// An artifact with neither is one the agent stage did not produce, and is logged; one whose
// checksum is there and whose bytes are missing or differ is an artifactsLostError. An
// artifact without a checksum comes from a Secret written before checksums, and is put back
// as it is. The artifact path is in the task's image: a symlink there is replaced, never
// written through.
func restoreArtifacts(artifacts []pc.Artifact, inputDir string, log *cappedLog) error {
	inputs, err := readInputs(inputDir)
	if err != nil {
		return &artifactsLostError{err}
	}
	joined, err := pc.JoinResults([]map[string][]byte{inputs})
	if err != nil {
		return &artifactsLostError{err}
	}
	for _, a := range artifacts {
		want, checked := joined[pc.ArtifactChecksumKey(a.Key)]
		data, ok := joined[a.Key]
		switch {
		case checked && !ok:
			return &artifactsLostError{fmt.Errorf("artifact %s has a checksum in %s but no data: an artifacts Secret is missing", a.Key, inputDir)}
		case checked:
			sum := sha256.Sum256(data)
			if got := hex.EncodeToString(sum[:]); got != string(want) {
				return &artifactsLostError{fmt.Errorf("artifact %s: %d bytes of sha256 %s, not the %s the collector sent: a piece is missing or changed", a.Key, len(data), got, want)}
			}
		case !ok:
			log.Printf("artifact %s not restored: the agent stage did not produce it", a.Key)
			continue
		}
		if err := writeArtifact(a.Path, data); err != nil {
			log.Printf("artifact %s not restored: %v", a.Key, err)
		}
	}
	return nil
}

// readInputs reads the files of the input directory, by name, within maxInputBytes. Its keys
// are the kubelet's symlinks into the volume's data by design, so they are followed; the
// kubelet's own entries ("..data", "..<timestamp>") are not keys. No directory: no inputs.
func readInputs(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	left := int64(maxInputBytes)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "..") {
			continue
		}
		b, err := readBounded(filepath.Join(dir, e.Name()), left)
		if err != nil {
			return nil, err
		}
		left -= int64(len(b))
		out[e.Name()] = b
	}
	return out, nil
}

func readBounded(path string, maxBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only: its close has nothing to report
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > maxBytes {
		return nil, fmt.Errorf("the input directory holds more than %d bytes, more than the artifacts the verifier receives", maxInputBytes)
	}
	return b, nil
}

func writeArtifact(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	out, err := regularfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return errors.Join(err, out.Close())
	}
	return out.Close()
}
