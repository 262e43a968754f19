// Package sweepbundle reads SWE-sweep's own files. Its grading bundle, a task's
// tests/swesweep_eval.json, as far as a bug subset needs it: the ids of its subtasks, and the
// bundle cut down to some of them. SWE-sweep's harness (`sweep eval --bugs`) grades a subset
// this way, by rewriting that file's subtasks list before the task's tests/test.sh runs; the
// catalogue records the ids on the task's ConfigMap and the verifier stage does the rewrite.
// And its grader's eval.json, as far as per-bug results need it (ReadOutcome).
package sweepbundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// File is the bundle's name in a task's tests/ directory.
const File = "swesweep_eval.json"

// MaxBytes bounds a read of the bundle; real ones are a few hundred KiB.
const MaxBytes = 64 << 20

// subtasksKey is the bundle's list of bugs, each an object with an "id".
const subtasksKey = "subtasks"

// IDs are the ids of the bundle's subtasks in its order, each once.
func IDs(data []byte) ([]string, error) {
	b, err := parse(data)
	if err != nil {
		return nil, err
	}
	return b.ids, nil
}

// Unique is a selection of bug ids as SWE-sweep's harness takes it: in the order given, each
// once.
func Unique(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Subset is what a selection of bug ids picks from the ids known: the Unique ids that known
// has, and unknown, sorted, those it lacks.
func Subset(ids, known []string) (subset, unknown []string) {
	for _, id := range Unique(ids) {
		if slices.Contains(known, id) {
			subset = append(subset, id)
		} else {
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	return subset, unknown
}

// Select returns the bundle with only the subtasks ids names, in that order and each once.
// Everything else in the file stays byte for byte as it was, the chosen subtasks included.
// unknown lists the ids the bundle lacks; then nothing is returned.
func Select(data []byte, ids []string) (out []byte, unknown []string, err error) {
	if len(ids) == 0 {
		return nil, nil, errors.New("no bug id to select: name at least one")
	}
	b, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	subset, unknown := Subset(ids, b.ids)
	if len(unknown) > 0 {
		return nil, unknown, nil
	}
	chosen := make([]string, len(subset))
	for i, id := range subset {
		chosen[i] = string(b.byID[id])
	}
	out = slices.Concat(data[:b.start], []byte("["+strings.Join(chosen, ", ")+"]"), data[b.end:])
	return out, nil, nil
}

// bundle is where the subtasks list is in the file and what it holds.
type bundle struct {
	// start and end delimit the subtasks list's bytes.
	start, end int64
	ids        []string
	// byID is each subtask's bytes; of two with one id the last, as SWE-sweep's harness keeps.
	byID map[string]json.RawMessage
}

func parse(data []byte) (bundle, error) {
	b := bundle{start: -1, byID: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return b, fmt.Errorf("%s is not a JSON object", File)
	}
	var list json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return b, fmt.Errorf("%s: %w", File, err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return b, fmt.Errorf("%s: key %q: %w", File, key, err)
		}
		if key != subtasksKey {
			continue
		}
		if b.start >= 0 {
			return b, fmt.Errorf("%s has the key %q twice", File, subtasksKey)
		}
		b.end = dec.InputOffset()
		b.start = b.end - int64(len(value))
		list = value
	}
	if _, err := dec.Token(); err != nil {
		return b, fmt.Errorf("%s: %w", File, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return b, fmt.Errorf("%s has data after its object", File)
	}
	if b.start < 0 || !bytes.Equal(data[b.start:b.end], list) {
		return b, fmt.Errorf("%s has no %q list", File, subtasksKey)
	}
	var subtasks []json.RawMessage
	if err := json.Unmarshal(list, &subtasks); err != nil || subtasks == nil {
		return b, fmt.Errorf("%s: %q is not a list of subtasks", File, subtasksKey)
	}
	for i, raw := range subtasks {
		var s struct {
			ID *string `json:"id"`
		}
		if err := json.Unmarshal(raw, &s); err != nil || s.ID == nil || *s.ID == "" {
			return b, fmt.Errorf("%s: %s[%d] has no string \"id\"", File, subtasksKey, i)
		}
		if _, dup := b.byID[*s.ID]; !dup {
			b.ids = append(b.ids, *s.ID)
		}
		b.byID[*s.ID] = raw
	}
	return b, nil
}
