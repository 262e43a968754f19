// Package swebench grades SWE-bench instances the way the official harness does: it reads
// instances and predictions, writes the eval and patch-application scripts, and turns an eval log
// into SWE-bench's report.json and run report under an explicit grading version.
package swebench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EvalType is how a v5 instance's tests are judged.
type EvalType string

const (
	// PassAndFail: a test must pass; a missing test fails.
	PassAndFail EvalType = "pass_and_fail"
	// FailOnly: a test fails only if the log shows it FAILED (repositories whose runners do not
	// list passing tests).
	FailOnly EvalType = "fail_only"
)

// Instance is one SWE-bench task instance.
type Instance struct {
	InstanceID             string   `json:"instance_id"`
	Repo                   string   `json:"repo"`
	BaseCommit             string   `json:"base_commit"`
	Patch                  string   `json:"patch"`
	TestPatch              string   `json:"test_patch"`
	FailToPass             TestList `json:"FAIL_TO_PASS"`
	PassToPass             TestList `json:"PASS_TO_PASS"`
	Version                string   `json:"version"`
	EnvironmentSetupCommit string   `json:"environment_setup_commit"`
	// ProblemStatement is the issue text an agent is given; grading does not read it.
	ProblemStatement string `json:"problem_statement,omitempty"`
	// v5 fields.
	Image      string   `json:"image,omitempty"`
	EvalScript string   `json:"eval_script,omitempty"`
	LogParser  string   `json:"log_parser,omitempty"`
	EvalType   EvalType `json:"eval_type,omitempty"`
}

// TestList is a list of test ids. The published datasets store it as a JSON-encoded string
// ("[\"a\", \"b\"]"); both that and a plain list are read.
type TestList []string

// UnmarshalJSON reads a list, a JSON string holding a list, or null.
func (l *TestList) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*l = nil
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err == nil {
		*l = list
		return nil
	}
	var encoded string
	if err := json.Unmarshal(b, &encoded); err != nil {
		return errors.New("want a list of test ids or a JSON string holding one")
	}
	if strings.TrimSpace(encoded) == "" {
		*l = nil
		return nil
	}
	if err := json.Unmarshal([]byte(encoded), &list); err != nil {
		return fmt.Errorf("the string does not hold a JSON list of test ids: %v", err)
	}
	*l = list
	return nil
}

// Prediction is one model's patch for one instance.
type Prediction struct {
	InstanceID      string `json:"instance_id"`
	ModelNameOrPath string `json:"model_name_or_path"`
	// ModelPatch is nil when the file has null (SWE-bench reports "patch_is_None").
	ModelPatch *string `json:"model_patch"`
}

// Empty reports whether the prediction has no patch to run (null or "").
func (p Prediction) Empty() bool { return p.ModelPatch == nil || *p.ModelPatch == "" }

// LoadInstances reads instances from a .json file (a list, one object, or an object keyed by
// instance id) or a .jsonl file (one object a line).
func LoadInstances(path string) ([]Instance, error) {
	var instances []Instance
	err := readRecords(path, "instance", func(where string, raw json.RawMessage, key string) error {
		var inst Instance
		if err := decodeRecord(raw, &inst); err != nil {
			return fmt.Errorf("%s%s: %v", where, idHint(raw), err)
		}
		if key != "" && inst.InstanceID == "" {
			inst.InstanceID = key
		}
		if inst.InstanceID == "" {
			return fmt.Errorf("%s: instance has no instance_id; add one", where)
		}
		if err := CheckInstanceID(inst.InstanceID); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if key != "" && key != inst.InstanceID {
			return fmt.Errorf("%s: keyed %q but its instance_id is %q; make them the same", where, key, inst.InstanceID)
		}
		if inst.EvalType != "" && inst.EvalType != PassAndFail && inst.EvalType != FailOnly {
			return fmt.Errorf("%s: instance %s: eval_type %q is not %q or %q", where, inst.InstanceID, inst.EvalType, PassAndFail, FailOnly)
		}
		instances = append(instances, inst)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if dups := duplicateIDs(instances, func(i Instance) string { return i.InstanceID }); len(dups) > 0 {
		return nil, fmt.Errorf("%s: duplicate instance ids %s; keep one record per instance", path, strings.Join(dups, ", "))
	}
	return instances, nil
}

// LoadPredictions reads predictions from a .jsonl file, a .json list, or a .json object keyed by
// instance id (a value's own instance_id, when present, must equal its key). Duplicates are
// reported by MatchPredictions, with the instances at hand.
func LoadPredictions(path string) ([]Prediction, error) {
	var preds []Prediction
	err := readRecords(path, "prediction", func(where string, raw json.RawMessage, key string) error {
		var p Prediction
		if err := decodeRecord(raw, &p); err != nil {
			return fmt.Errorf("%s%s: %v", where, idHint(raw), err)
		}
		if key != "" && p.InstanceID == "" {
			p.InstanceID = key
		}
		if p.InstanceID == "" {
			return fmt.Errorf("%s: prediction has no instance_id; add one", where)
		}
		if err := CheckInstanceID(p.InstanceID); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if key != "" && key != p.InstanceID {
			return fmt.Errorf("%s: keyed %q but its instance_id is %q; make them the same", where, key, p.InstanceID)
		}
		preds = append(preds, p)
		return nil
	})
	return preds, err
}

// MaxInstanceIDBytes bounds an instance id: published ids are under 60 bytes, so a longer one
// is a broken or hostile file rather than an id to shorten into names.
const MaxInstanceIDBytes = 128

// CheckInstanceID refuses an id that cannot be turned into a task name, a label value and an
// image name: ids come from a dataset file nobody vetted, and a newline or a control character
// in one would reach files and scripts written from it.
func CheckInstanceID(id string) error {
	fix := "fix the id in the file (ids are printable, with no spaces, and name tasks and images)"
	if len(id) > MaxInstanceIDBytes {
		return fmt.Errorf("instance_id %.40q... is %d bytes, more than %d: %s", id, len(id), MaxInstanceIDBytes, fix)
	}
	hasAlnum := false
	for _, r := range id {
		// The JSON decoder turns invalid UTF-8 into U+FFFD, so that is what a broken file shows.
		if r == utf8.RuneError {
			return fmt.Errorf("instance_id %q is not valid UTF-8: %s", id, fix)
		}
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return fmt.Errorf("instance_id %q contains %U, which no task or image name can hold: %s", id, r, fix)
		}
		hasAlnum = hasAlnum || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
	}
	if !hasAlnum {
		return fmt.Errorf("instance_id %q has no ASCII letter or digit to name its task by: %s", id, fix)
	}
	return nil
}

// readRecords calls fn for every JSON object in path. where names the file and line or key;
// key is set for objects keyed by instance id.
func readRecords(path, kind string, fn func(where string, raw json.RawMessage, key string) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %ss: %w", kind, err)
	}
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".jsonl":
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
		for n := 1; sc.Scan(); n++ {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			if err := fn(fmt.Sprintf("%s:%d", path, n), json.RawMessage(line), ""); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	case ".json":
		trimmed := bytes.TrimSpace(data)
		switch {
		case bytes.HasPrefix(trimmed, []byte("[")):
			var list []json.RawMessage
			if err := json.Unmarshal(trimmed, &list); err != nil {
				return fmt.Errorf("%s: not a JSON list of %ss: %v", path, kind, err)
			}
			for i, raw := range list {
				if err := fn(fmt.Sprintf("%s: item %d", path, i), raw, ""); err != nil {
					return err
				}
			}
			return nil
		case bytes.HasPrefix(trimmed, []byte("{")):
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(trimmed, &obj); err != nil {
				return fmt.Errorf("%s: not a JSON object: %v", path, err)
			}
			if _, single := obj["instance_id"]; single {
				return fn(path, trimmed, "")
			}
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := fn(fmt.Sprintf("%s: key %q", path, k), obj[k], k); err != nil {
					return err
				}
			}
			return nil
		default:
			return fmt.Errorf("%s: want a JSON list or object of %ss", path, kind)
		}
	default:
		return fmt.Errorf("%s: unknown extension %q; %ss are read from .json or .jsonl", path, ext, kind)
	}
}

// decodeRecord decodes one record; unknown fields are allowed (datasets carry many more).
func decodeRecord(raw json.RawMessage, v any) error {
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return errors.New("not a JSON object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fmt.Errorf("field %s: want %s, got JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return err
	}
	return nil
}

// idHint names the instance of a record that failed to decode, when it can be found.
func idHint(raw json.RawMessage) string {
	var probe struct {
		InstanceID string `json:"instance_id"`
	}
	if json.Unmarshal(raw, &probe) == nil && probe.InstanceID != "" {
		return " (instance " + probe.InstanceID + ")"
	}
	return ""
}

func duplicateIDs[T any](items []T, id func(T) string) []string {
	seen := map[string]int{}
	for _, it := range items {
		seen[id(it)]++
	}
	var dups []string
	for k, n := range seen {
		if n > 1 {
			dups = append(dups, k)
		}
	}
	slices.Sort(dups)
	return dups
}

// Match pairs an instance with its prediction.
type Match struct {
	Instance   Instance
	Prediction Prediction
}

// Matching is what MatchPredictions found: the predictions to run, and those not to.
type Matching struct {
	// ToRun holds predictions with a patch, in instance order.
	ToRun []Match
	// EmptyPatchIDs are instances whose prediction has a null or empty patch (not run).
	EmptyPatchIDs []string
	// MissingIDs are instances with no prediction.
	MissingIDs []string
}

// MatchPredictions pairs predictions with instances. A prediction for an unknown instance, or
// two for one instance, is an error naming the ids.
func MatchPredictions(instances []Instance, preds []Prediction) (Matching, error) {
	known := make(map[string]bool, len(instances))
	for _, inst := range instances {
		known[inst.InstanceID] = true
	}
	byID := make(map[string]Prediction, len(preds))
	var unknown []string
	for _, p := range preds {
		if !known[p.InstanceID] {
			unknown = append(unknown, p.InstanceID)
		}
		byID[p.InstanceID] = p
	}
	var problems []string
	if dups := duplicateIDs(preds, func(p Prediction) string { return p.InstanceID }); len(dups) > 0 {
		problems = append(problems, "more than one prediction for "+strings.Join(dups, ", ")+" (keep one each)")
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		problems = append(problems, "predictions for instances not in the dataset: "+strings.Join(slices.Compact(unknown), ", ")+" (check the dataset and split)")
	}
	if len(problems) > 0 {
		return Matching{}, errors.New(strings.Join(problems, "; "))
	}
	var m Matching
	for _, inst := range instances {
		p, ok := byID[inst.InstanceID]
		switch {
		case !ok:
			m.MissingIDs = append(m.MissingIDs, inst.InstanceID)
		case p.Empty():
			m.EmptyPatchIDs = append(m.EmptyPatchIDs, inst.InstanceID)
		default:
			m.ToRun = append(m.ToRun, Match{Instance: inst, Prediction: p})
		}
	}
	return m, nil
}

// DefaultImageTemplate is the official image scheme; {id} is the instance id lower-cased with
// "__" replaced by "_1776_".
const DefaultImageTemplate = "swebench/sweb.eval.x86_64.{id}:latest"

// ImageName returns the evaluation image for an instance. template may use {id} (the official
// image-safe form) and {instance_id} (as written); "" means DefaultImageTemplate.
func ImageName(instanceID, template string) string {
	if template == "" {
		template = DefaultImageTemplate
	}
	safe := strings.ReplaceAll(strings.ToLower(instanceID), "__", "_1776_")
	return strings.NewReplacer("{id}", safe, "{instance_id}", instanceID).Replace(template)
}

// EvalImage is the image to evaluate inst in: the template's when one is given, else the
// instance's own v5 image, else the official name.
func (inst Instance) EvalImage(template string) string {
	if template == "" && inst.Image != "" {
		return inst.Image
	}
	return ImageName(inst.InstanceID, template)
}
