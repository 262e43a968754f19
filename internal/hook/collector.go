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
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/regularfile"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// CollectOptions tune the collector.
type CollectOptions struct {
	// Poll is how often the collector looks for the done file; zero means 200 ms.
	Poll time.Duration
	// StageLock is the stage lock (OpenStageLock), when the collector has it: after the done
	// file it then also waits for the stage's sweep-hook to exit (stagelock.go).
	StageLock *os.File
}

// RunCollector waits for the stage's done file and, with opts.StageLock, for the stage's
// process to exit, or for ctx to end (SIGTERM: then it reports whatever is there and says
// so), writes the summary to paths.TerminationLog and, when the outputs do not fit in it,
// streams them to stdout. It returns the summary.
func RunCollector(ctx context.Context, spec pc.StageSpec, paths Paths, stdout io.Writer, opts CollectOptions) (pc.Summary, error) {
	poll := opts.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	s := pc.Summary{Stage: spec.Stage, StreamID: newStreamID()}
	done, err := waitDone(ctx, paths.Done, poll)
	if err == nil && opts.StageLock != nil {
		// A done file seen before the stage's process ended (the agent can write one) is
		// reported once that process has ended, as the stage's own done file is. The outputs
		// are read after it too: nothing in the main container writes them any more.
		if waitStageEnd(ctx, opts.StageLock) {
			done, err = ReadDone(paths.Done)
		}
	}
	switch {
	case err == nil:
		s.Done, s.ExitCode, s.Reason, s.Message = true, done.ExitCode, done.Reason, done.Message
		s.StartedAt, s.FinishedAt = &done.StartedAt, &done.FinishedAt
	case ctx.Err() != nil:
		s.ExitCode, s.Reason = -1, reasons.CollectorInterrupted
		s.Message = "stopped before the stage wrote done; reporting the outputs found so far"
	default:
		s.ExitCode, s.Reason, s.Message = -1, reasons.CollectorInterrupted, err.Error()
	}

	files := declaredOutputs(spec, paths)
	s.Outputs = make([]pc.Output, len(files))
	data := make([][]byte, len(files))
	// The stream must stay within MaxStreamBytes or the controller rejects all of it, so the
	// outputs share that budget: first those that cannot be cut, then the verifier's other
	// files, then the logs, cut to fit. Counting uncompressed bytes keeps to the compressed
	// limit with room for gzip's framing.
	limits := spec.Limits.WithDefaults()
	budget := limits.MaxStreamBytes - limits.MaxStreamBytes/64 - 1024*int64(len(files)+1)
	var others *otherFiles
	for _, logs := range []bool{false, true} {
		if logs && spec.Stage == pc.StageVerifier {
			others = collectOtherFiles(paths.VerifierDir, files, limits.MaxRecordBytes, &budget)
		}
		for i, f := range files {
			if f.log == logs {
				s.Outputs[i], data[i] = readOutput(f, min(limits.MaxRecordBytes, max(budget, 0)), done.Logs)
				budget -= int64(len(data[i]))
			}
		}
	}
	if s.Done && len(done.Rewards) > 0 {
		reportRewards(&s, spec, paths, data)
	}
	if spec.Stage == pc.StageAgent {
		s.Usage, s.UsageMessage = readUsage(paths.Usage)
	}
	var records []pc.Record
	for i, o := range s.Outputs {
		if !o.Missing && !o.TooLarge {
			records = append(records, pc.Record{Name: o.Name, Data: data[i]})
		}
	}
	if others != nil {
		manifest, err := others.manifest(s.Outputs)
		if err != nil {
			return s, err
		}
		s.Outputs = append(s.Outputs, pc.NewOutput(pc.RecordVerifierFiles, manifest, int64(len(manifest))))
		records = append(append(records, pc.Record{Name: pc.RecordVerifierFiles, Data: manifest}), others.records...)
	}

	msg, err := summaryMessage(&s, records, others == nil || len(others.records) == 0)
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

// reportRewards puts into s the rewards of the reward file the collector read itself: the
// reward.json record it sends, else reward.txt. The done file only says that the stage
// accepted a result; its numbers are not reported, so that a done file written by anyone
// but the stage cannot claim rewards the reward file does not hold. When the file holds no
// valid result after all, s reports none, and why.
func reportRewards(s *pc.Summary, spec pc.StageSpec, paths Paths, data [][]byte) {
	result, err := collectedRewards(s.Outputs, data, paths.VerifierDir)
	if err == nil {
		s.Rewards = result
		return
	}
	s.Reason = reasons.RewardMissing
	if grader, gerr := verifierGrader(spec); gerr != nil || grader.BuiltIn() {
		s.Reason = reasons.GraderFailed
	}
	msg := "the stage reported a result, but the collector found none: " + err.Error()
	if s.Message != "" {
		msg = s.Message + "; " + msg
	}
	s.Message = msg
}

// collectedRewards parses the reward.json record (outputs and data as read), or reward.txt
// when there is no reward.json.
func collectedRewards(outputs []pc.Output, data [][]byte, verifierDir string) (reward.Result, error) {
	for i, o := range outputs {
		if o.Name != pc.RecordReward {
			continue
		}
		switch {
		case o.Refused != "":
			return nil, errors.New(o.Refused)
		case o.TooLarge:
			return nil, fmt.Errorf("%s has %d bytes, too large to send", reward.FileJSON, o.OriginalSize)
		case !o.Missing:
			return reward.ParseJSON(data[i])
		}
	}
	b, err := regularfile.ReadFile(filepath.Join(verifierDir, reward.FileText), reward.MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, reward.ErrNoResult
	}
	if err != nil {
		return nil, err
	}
	return reward.ParseText(b)
}

// readUsage reads the agent's usage file, if it wrote one: never through a symbolic link,
// never more than usage.MaxFileBytes. What is wrong with it is the message (bounded for the
// summary); the trial goes on without it, as the file is the agent's claim, not a grade.
// It is read even when the stage was interrupted: what the agent spent until then was spent.
func readUsage(path string) (*usage.Usage, string) {
	data, err := regularfile.ReadFile(path, usage.MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ""
	}
	if err == nil {
		var u usage.Usage
		if u, err = usage.Parse(data); err == nil {
			if !u.Reported() {
				return nil, ""
			}
			return &u, ""
		}
	}
	msg := fmt.Sprintf("usage file %s not taken: %v", filepath.Base(path), err)
	if len(msg) > pc.MaxUsageMessageBytes {
		msg = msg[:pc.MaxUsageMessageBytes-len("…")]
		for len(msg) > 0 && !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
		msg += "…"
	}
	return nil, msg
}

// summaryMessage encodes s with every output inline when that fits in a termination message
// and every record is one of s's outputs (canInline), else marks it streamed.
func summaryMessage(s *pc.Summary, records []pc.Record, canInline bool) ([]byte, error) {
	if !canInline {
		s.Streamed = true
		return pc.EncodeSummary(*s)
	}
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
	log        bool // may be cut; anything else is sent whole or not at all
}

func declaredOutputs(spec pc.StageSpec, paths Paths) []outputFile {
	if spec.Stage == pc.StageVerifier {
		out := []outputFile{
			{name: pc.RecordTestStdout, path: paths.testStdout(), log: true},
			{name: pc.RecordReward, path: paths.rewardJSON()},
			{name: pc.RecordEval, path: paths.evalJSON()},
		}
		if grader, err := verifierGrader(spec); err == nil {
			for _, name := range grader.Outputs() {
				out = append(out, outputFile{name: name, path: filepath.Join(paths.VerifierDir, name)})
			}
		}
		return out
	}
	var out []outputFile
	for _, a := range spec.Artifacts {
		out = append(out, outputFile{name: a.Key, path: a.Path})
	}
	return append(out, outputFile{name: pc.RecordAgentLog, path: paths.AgentLog, log: true})
}

// readOutput reads one output of at most maxBytes: a longer log is cut, anything else is
// reported as too large (half a patch or half a JSON document is worse than none). An output
// that is a symbolic link or not a regular file is refused, never followed or read.
func readOutput(f outputFile, maxBytes int64, logs map[string]LogInfo) (pc.Output, []byte) {
	file, st, err := regularfile.Open(f.path)
	if errors.Is(err, regularfile.ErrNotRegular) {
		return pc.Output{Name: f.name, Missing: true, Refused: err.Error()}, nil
	}
	if err != nil {
		return pc.Output{Name: f.name, Missing: true}, nil
	}
	defer func() { _ = file.Close() }() // read-only: its close has nothing to report
	o, data := readOpen(f.name, file, st, maxBytes, f.log)
	if info, ok := logs[f.name]; ok && info.Truncated && !o.Missing && !o.TooLarge {
		o = pc.NewOutput(f.name, data, max(o.OriginalSize, info.OriginalSize))
	}
	return o, data
}

// readOpen reads the open regular file as the output name, as readOutput says; cut says it
// may be cut to maxBytes.
func readOpen(name string, file *os.File, st os.FileInfo, maxBytes int64, cut bool) (pc.Output, []byte) {
	size := st.Size()
	if !cut && size > maxBytes {
		return pc.Output{Name: name, OriginalSize: size, TooLarge: true}, nil
	}
	// One byte more than the bound tells a file that grew after it was opened.
	data, err := io.ReadAll(io.LimitReader(file, maxBytes+1))
	if err != nil {
		return pc.Output{Name: name, Missing: true}, nil
	}
	original := max(size, int64(len(data)))
	if int64(len(data)) > maxBytes {
		if !cut {
			return pc.Output{Name: name, OriginalSize: original, TooLarge: true}, nil
		}
		data = data[:maxBytes]
	}
	return pc.NewOutput(name, data, original), data
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
