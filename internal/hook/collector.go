package hook

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// CollectOptions tune the collector.
type CollectOptions struct {
	// Poll is how often the collector looks for the done file; zero means 200 ms.
	Poll time.Duration
}

// RunCollector waits for the stage's done file, or for ctx to end (SIGTERM: then it reports
// whatever is there and says so), writes the summary to paths.TerminationLog and, when the
// outputs do not fit in it, streams them to stdout. It returns the summary.
func RunCollector(ctx context.Context, spec pc.StageSpec, paths Paths, stdout io.Writer, opts CollectOptions) (pc.Summary, error) {
	poll := opts.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	s := pc.Summary{Stage: spec.Stage, StreamID: newStreamID()}
	done, err := waitDone(ctx, paths.Done, poll)
	switch {
	case err == nil:
		s.Done, s.ExitCode, s.Reason, s.Message, s.Rewards = true, done.ExitCode, done.Reason, done.Message, done.Rewards
		s.StartedAt, s.FinishedAt = &done.StartedAt, &done.FinishedAt
	case ctx.Err() != nil:
		s.ExitCode, s.Reason = -1, pc.ReasonCollectorInterrupted
		s.Message = "stopped before the stage wrote done; reporting the outputs found so far"
	default:
		s.ExitCode, s.Reason, s.Message = -1, pc.ReasonCollectorInterrupted, err.Error()
	}

	limits := spec.Limits.WithDefaults()
	var records []pc.Record
	for _, f := range declaredOutputs(spec, paths) {
		o, data := readOutput(f, limits, done.Logs)
		s.Outputs = append(s.Outputs, o)
		if !o.Missing && !o.TooLarge {
			records = append(records, pc.Record{Name: o.Name, Data: data})
		}
	}

	msg, err := summaryMessage(&s, records)
	if err != nil {
		return s, err
	}
	if err := os.WriteFile(paths.TerminationLog, msg, 0o644); err != nil {
		return s, fmt.Errorf("termination message: %w", err)
	}
	if s.Streamed {
		if err := pc.EncodeStream(stdout, s.StreamID, records); err != nil {
			return s, err
		}
	}
	return s, nil
}

// summaryMessage encodes s with every output inline when that fits in a termination message,
// else marks it streamed.
func summaryMessage(s *pc.Summary, records []pc.Record) ([]byte, error) {
	inline := *s
	inline.Outputs = append([]pc.Output{}, s.Outputs...)
	for i, o := range inline.Outputs {
		for _, r := range records {
			if r.Name == o.Name {
				inline.Outputs[i].Inline = append([]byte{}, r.Data...)
			}
		}
	}
	if b, err := json.Marshal(inline); err == nil && len(b) <= pc.MaxSummaryBytes {
		*s = inline
		return b, nil
	}
	s.Streamed = true
	return pc.EncodeSummary(*s)
}

// outputFile is one output the collector reports.
type outputFile struct {
	name, path string
	artifact   bool // never truncated
}

func declaredOutputs(spec pc.StageSpec, paths Paths) []outputFile {
	if spec.Stage == pc.StageVerifier {
		return []outputFile{
			{name: pc.RecordTestStdout, path: paths.testStdout()},
			{name: pc.RecordReward, path: paths.rewardJSON()},
			{name: pc.RecordEval, path: paths.evalJSON()},
		}
	}
	var out []outputFile
	for _, a := range spec.Artifacts {
		out = append(out, outputFile{name: a.Key, path: a.Path, artifact: true})
	}
	return append(out, outputFile{name: pc.RecordAgentLog, path: paths.AgentLog})
}

// readOutput reads one output within the limits: a log longer than MaxRecordBytes is cut, an
// artifact is reported as too large instead.
func readOutput(f outputFile, limits pc.Limits, logs map[string]LogInfo) (pc.Output, []byte) {
	st, err := os.Stat(f.path)
	if err != nil || !st.Mode().IsRegular() {
		return pc.Output{Name: f.name, Missing: true}, nil
	}
	size := st.Size()
	if f.artifact && size > limits.MaxRecordBytes {
		return pc.Output{Name: f.name, OriginalSize: size, TooLarge: true}, nil
	}
	file, err := os.Open(f.path)
	if err != nil {
		return pc.Output{Name: f.name, Missing: true}, nil
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, limits.MaxRecordBytes))
	if err != nil {
		return pc.Output{Name: f.name, Missing: true}, nil
	}
	original := max(size, int64(len(data)))
	if info, ok := logs[f.name]; ok && info.Truncated {
		original = max(original, info.OriginalSize)
	}
	return pc.NewOutput(f.name, data, original), data
}

// waitDone polls for the done file until it is there or ctx ends.
func waitDone(ctx context.Context, path string, poll time.Duration) (Done, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		d, err := ReadDone(path)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return d, err
		}
		select {
		case <-ctx.Done():
			// One last look: the stage may have finished as we were told to stop.
			if d, err := ReadDone(path); err == nil {
				return d, nil
			}
			return Done{}, ctx.Err()
		case <-t.C:
		}
	}
}

func newStreamID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
