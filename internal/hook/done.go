package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// Done is the document a stage writes when it has finished; the collector reports from it.
type Done struct {
	Stage    pc.Stage `json:"stage"`
	ExitCode int      `json:"exitCode"`
	Reason   string   `json:"reason,omitempty"`
	Message  string   `json:"message,omitempty"`
	// Rewards are the verifier's numbers, when its reward file was valid.
	Rewards    map[string]float64 `json:"rewards,omitempty"`
	StartedAt  time.Time          `json:"startedAt"`
	FinishedAt time.Time          `json:"finishedAt"`
	// Seconds spent per step ("agent", "collect", "restore", "verifier").
	Timings map[string]float64 `json:"timings,omitempty"`
	Hooks   []HookResult       `json:"hooks,omitempty"`
	// Logs are the log files the stage capped, by record name.
	Logs map[string]LogInfo `json:"logs,omitempty"`
}

// HookResult is the outcome of one collect hook; a failing hook is recorded, never fatal.
type HookResult struct {
	Command  string  `json:"command"`
	ExitCode int     `json:"exitCode"`
	TimedOut bool    `json:"timedOut,omitempty"`
	Error    string  `json:"error,omitempty"`
	Seconds  float64 `json:"seconds"`
}

// LogInfo is the size of a capped log before capping.
type LogInfo struct {
	OriginalSize int64 `json:"originalSize"`
	Truncated    bool  `json:"truncated,omitempty"`
}

// writeDone writes d atomically (temp file and rename), so that the collector never reads
// half of it.
func writeDone(path string, d Done) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b, 0o644)
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	// Cleans up after a failure; after the rename there is nothing left to remove.
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		return errors.Join(err, tmp.Close())
	}
	if err := tmp.Chmod(mode); err != nil {
		return errors.Join(err, tmp.Close())
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadDone reads the done file at path.
func ReadDone(path string) (Done, error) {
	var d Done
	b, err := os.ReadFile(path)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("done file %s: %w", path, err)
	}
	return d, nil
}

// ReadSpec reads and checks the stage spec at path.
func ReadSpec(path string) (pc.StageSpec, error) {
	var s pc.StageSpec
	b, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("stage spec: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("stage spec %s: %w", path, err)
	}
	if s.Stage != pc.StageAgent && s.Stage != pc.StageVerifier {
		return s, fmt.Errorf("stage spec %s: unknown stage %q", path, s.Stage)
	}
	for _, a := range s.Artifacts {
		if !filepath.IsAbs(a.Path) || !pc.ValidRecordName(a.Key) {
			return s, fmt.Errorf("stage spec %s: artifact %q (key %q) needs an absolute path and a valid key", path, a.Path, a.Key)
		}
	}
	s.Limits = s.Limits.WithDefaults()
	return s, nil
}

func seconds(from, to time.Time) float64 { return to.Sub(from).Seconds() }
