// Package harborjob reads and writes Harbor's job layout: a job folder holding one folder per
// trial with config.json, result.json, verifier/ (reward.json, eval.json and the verifier's
// other files) and artifacts/.
// Tools built for Harbor and SWE-sweep read this layout, so `sweep export` writes it and
// `sweep info DIR` reads any job directory in it.
package harborjob

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swe-sweep/sweep-operator/internal/regularfile"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// File names of a trial folder.
const (
	ConfigFile   = "config.json"
	ResultFile   = "result.json"
	VerifierDir  = "verifier"
	EvalJSON     = "eval.json"
	ArtifactsDir = "artifacts"
	// AgentDir holds the agent stage's files (agent.log).
	AgentDir = "agent"
)

// maxReadBytes bounds a reward.json or config.json read from a job tree: both are a few hundred
// bytes, and a larger file (a link to a device, say) is skipped rather than read without end.
const maxReadBytes = 16 << 20

// maxExact bounds the numbers scoring takes from a job tree: up to 2^53 a float64 holds every
// integer, so truncation, sums and means come out as SWE-sweep's Python arithmetic does.
const maxExact = 1 << 53

// ReadTrials reads every reward.json at any depth below the roots, in SWE-sweep's order (each
// root in turn, its files sorted by path component), as one scoring.Trial each, named as
// SWE-sweep names it (taskName). A root may be a folder of jobs, a job or a trial folder.
//
// It keeps what SWE-sweep's scoring keeps: a file that is not a JSON object, or lacks one of
// the four scoring keys, is left out, and so is a malformed one (not UTF-8, not JSON, NaN or
// infinities, a boolean, string or null where a number is used, a number above 2^53); each is
// named in warnings with the reason and never fails the read. A result out of bounds
// (reward.Result.CheckBounds) is kept as it is, since SWE-sweep scores it, with a warning
// that names the file and the bound. Files other than reward.json (reward.txt, result.json)
// are not results here, as they are not for SWE-sweep.
func ReadTrials(roots []string) (trials []scoring.Trial, warnings []string, err error) {
	results, warnings, err := ReadResults(roots)
	for _, r := range results {
		trials = append(trials, r.Trial)
	}
	return trials, warnings, err
}

// Result is one kept reward.json: its scoring input and the file, beside which the
// verifier's other files (eval.json) lie.
type Result struct {
	scoring.Trial
	File string
}

// ReadResults is ReadTrials with the file each trial was read from.
func ReadResults(roots []string) (results []Result, warnings []string, err error) {
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			return nil, nil, fmt.Errorf("%s: %w: give a job directory (Harbor layout) or a campaign name", root, errors.Unwrap(err))
		}
		err := filepath.WalkDir(walkRoot(root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				// An unreadable folder is passed over, as SWE-sweep's search passes it over.
				warnings = append(warnings, fmt.Sprintf("skipped %s: %v", p, err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.Name() != reward.FileJSON {
				return nil
			}
			t, notes := readRewardFile(root, p)
			warnings = append(warnings, notes...)
			if t != nil {
				results = append(results, Result{Trial: *t, File: p})
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return results, warnings, nil
}

// walkRoot is what a walk of root starts from: a root given as a link is followed, as
// SWE-sweep's search follows it; links below it are not.
func walkRoot(root string) string {
	if st, err := os.Lstat(root); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return root + string(filepath.Separator)
	}
	return root
}

// readRewardFile reads one reward.json; t is nil when scoring skips the file, and notes say
// why, or what is odd in a file kept.
func readRewardFile(root, file string) (t *scoring.Trial, notes []string) {
	obj, why := readObject(file)
	if why != "" {
		return nil, []string{fmt.Sprintf("skipped %s: %s", file, why)}
	}
	for _, k := range scoring.ScoringKeys() {
		if _, ok := obj[k]; !ok {
			return nil, []string{fmt.Sprintf("skipped %s: no %q key (SWE-sweep scores only results with %s, %s, %s and %s)",
				file, k, reward.KeySubtasks, reward.KeyResolved, reward.KeyVisibleOK, reward.KeyReward)}
		}
	}
	// A grader failure counts by grader_failed alone: its other values are never used.
	used := scoring.ScoringKeys()
	r := reward.Result{}
	if raw, ok := obj[reward.KeyGraderFailed]; ok {
		v, err := exactNumber(raw)
		if err != nil {
			return nil, []string{fmt.Sprintf("skipped %s: %s is %s, %v", file, reward.KeyGraderFailed, raw, err)}
		}
		r[reward.KeyGraderFailed] = v
		if v >= 1 {
			for _, k := range used {
				r[k] = 0
			}
			used = nil
		}
	}
	for _, k := range used {
		v, err := exactNumber(obj[k])
		if err != nil {
			return nil, []string{fmt.Sprintf("skipped %s: %s is %s, %v", file, k, obj[k], err)}
		}
		r[k] = v
	}
	name, notes := taskName(root, file)
	if used != nil {
		if err := r.CheckBounds(0); err != nil {
			notes = append(notes, fmt.Sprintf("%s: out of bounds: %v; scored as SWE-sweep scores it", file, err))
		}
	}
	return &scoring.Trial{Task: name, Measured: true, Rewards: r}, notes
}

// readObject reads a JSON object; why says what is wrong when it cannot.
func readObject(file string) (obj map[string]json.RawMessage, why string) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Sprintf("cannot read it: %v", err)
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	switch {
	case err != nil:
		return nil, fmt.Sprintf("cannot read it: %v", err)
	case len(b) > maxReadBytes:
		return nil, fmt.Sprintf("larger than %d bytes", maxReadBytes)
	case !utf8.Valid(b):
		return nil, "not UTF-8 text"
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Sprintf("not a JSON object (%v)", err)
	}
	if obj == nil {
		return nil, "not a JSON object (null)"
	}
	return obj, ""
}

// exactNumber is a JSON number up to maxExact in magnitude: no boolean, string, null, NaN or
// infinity, which SWE-sweep's Python would coerce, or stop on.
func exactNumber(raw json.RawMessage) (float64, error) {
	s := string(raw)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, errors.New("not a number")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v > maxExact || v < -maxExact {
		return 0, fmt.Errorf("beyond ±2^53")
	}
	return v, nil
}

// taskName names the task of a reward file as SWE-sweep does: the trial folder is the file's
// grandparent whatever its depth, and the name is the last path element of its config.json's
// task.path, else task.name, else of the trial folder itself. Paths are taken element by
// element as Python's pathlib takes them (empty and "." elements dropped, ".." kept), so a
// folder given as "job/" or "./job" names trials the same way. A config.json that cannot
// name the task (unreadable, not JSON, a task or path that is not what it should be) is
// passed over with a note; SWE-sweep falls back the same way, or stops.
func taskName(root, file string) (name string, notes []string) {
	rel, err := filepath.Rel(root, file)
	if err != nil {
		rel = filepath.Base(file)
	}
	abs, parts := pathElements(root)
	parts = append(parts, elements(rel)...)
	trial := parts[:max(len(parts)-2, 0)]
	if len(trial) > 0 {
		name = trial[len(trial)-1]
	}
	config := strings.Join(append(append([]string{}, trial...), ConfigFile), "/")
	if abs {
		config = "/" + config
	}
	st, err := os.Stat(config)
	if err != nil || !st.Mode().IsRegular() {
		return name, nil
	}
	fromConfig, why := configTaskName(config)
	switch {
	case why != "":
		return name, []string{fmt.Sprintf("%s: %s; the trial is named by its folder, %q", config, why, name)}
	case fromConfig != nil:
		return *fromConfig, nil
	}
	return name, nil
}

// configTaskName reads task.path or task.name from config.json; nil when it names no task.
func configTaskName(config string) (name *string, why string) {
	obj, why := readObject(config)
	if why != "" {
		return nil, why
	}
	raw, ok := obj["task"]
	if !ok || falsy(raw) {
		return nil, ""
	}
	var task map[string]json.RawMessage
	if err := json.Unmarshal(raw, &task); err != nil {
		return nil, fmt.Sprintf("task is %s, not an object", raw)
	}
	for _, k := range []string{"path", "name"} {
		v, ok := task[k]
		if !ok || falsy(v) {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Sprintf("task.%s is %s, not a string", k, v)
		}
		_, els := pathElements(s)
		base := ""
		if len(els) > 0 {
			base = els[len(els)-1]
		}
		return &base, ""
	}
	return nil, ""
}

// falsy reports whether a JSON value is false to Python (null, false, 0, "", [], {}), which
// SWE-sweep's task lookup passes over.
func falsy(raw json.RawMessage) bool {
	switch s := strings.TrimSpace(string(raw)); s {
	case "null", "false", `""`:
		return true
	default:
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return false
		}
		switch v := v.(type) {
		case float64:
			return v == 0
		case []any:
			return len(v) == 0
		case map[string]any:
			return len(v) == 0
		}
		return false
	}
}

// pathElements splits p as pathlib does: abs when it starts at "/", elements without empty or
// "." ones.
func pathElements(p string) (abs bool, els []string) {
	return strings.HasPrefix(p, "/"), elements(p)
}

func elements(p string) []string {
	var els []string
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e != "" && e != "." {
			els = append(els, e)
		}
	}
	return els
}

// ReadEval reads the eval.json beside a reward.json (ReadResults' File), within the bound of
// a reward.json and never through a symbolic link, as a trial's other files are read. A
// missing file is an error for which errors.Is(err, fs.ErrNotExist) holds.
func ReadEval(rewardFile string) ([]byte, error) {
	return regularfile.ReadFile(filepath.Join(filepath.Dir(rewardFile), EvalJSON), maxReadBytes)
}
