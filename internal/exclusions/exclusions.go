// Package exclusions is the format of a catalogue's exclusion list: the bugs (SWE-sweep) and
// instances (SWE-bench tasks) a campaign leaves out because validation found them broken,
// trivial or flaky, or because a benchmark's maintainers published them as excluded. `sweep
// tasks check --repeat N` writes one; a SweepRun's spec.tasks.exclusions applies one.
package exclusions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Schema is the value of a list's "schema" field.
const Schema = "sweep-exclusions/1"

// ConfigMapKey is the key of the list in its ConfigMap.
const ConfigMapKey = "exclusions.json"

// Reason says why an item is excluded.
type Reason string

// Reasons an item is excluded; the first three are verdicts of a validation run.
const (
	// Broken: the oracle does not resolve it in every run.
	Broken Reason = "broken"
	// Trivial: nop resolves it in some run, so the tests pass without any change.
	Trivial Reason = "trivial"
	// Flaky: a test's outcome differed between runs of the same tree.
	Flaky Reason = "flaky"
	// Listed: excluded by hand, for example from a benchmark's published list.
	Listed Reason = "listed"
)

// Reasons are the valid reasons, in the order reports list them.
var Reasons = []Reason{Broken, Trivial, Flaky, Listed}

// Entry is one excluded item.
type Entry struct {
	// Task is the task name (the eval.sweep.dev/task label value).
	Task string `json:"task"`
	// Bug is a bug id of the task; empty excludes the whole task, as SWE-bench excludes an
	// instance.
	Bug    string `json:"bug,omitempty"`
	Reason Reason `json:"reason"`
	// Detail says what the validation saw, e.g. "oracle resolved 3/5".
	Detail string `json:"detail,omitempty"`
}

// List is an exclusion list.
type List struct {
	Schema  string  `json:"schema"`
	Entries []Entry `json:"entries"`
}

// Parse reads a list, naming the entry and field of the first problem. source names where
// the list came from (e.g. "configmap team/exclusions") for the error.
func Parse(source string, b []byte) (List, error) {
	var l List
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return List{}, fmt.Errorf("%s: key %s is not an exclusion list: %w", source, ConfigMapKey, err)
	}
	if l.Schema != Schema {
		return List{}, fmt.Errorf("%s: schema is %q, want %q", source, l.Schema, Schema)
	}
	seen := map[[2]string]bool{}
	for i, e := range l.Entries {
		switch {
		case e.Task == "":
			return List{}, fmt.Errorf("%s: entries[%d].task is empty: name the task the entry excludes", source, i)
		case !slices.Contains(Reasons, e.Reason):
			return List{}, fmt.Errorf("%s: entries[%d].reason is %q: use one of %s", source, i, e.Reason, reasonList())
		case seen[[2]string{e.Task, e.Bug}]:
			return List{}, fmt.Errorf("%s: entries[%d] (task %s, bug %q) is listed twice: keep one", source, i, e.Task, e.Bug)
		}
		seen[[2]string{e.Task, e.Bug}] = true
	}
	return l, nil
}

func reasonList() string {
	s := make([]string, len(Reasons))
	for i, r := range Reasons {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// Encode writes the list with its entries sorted by task and bug, so that the same list is the
// same bytes.
func (l List) Encode() ([]byte, error) {
	out := List{Schema: Schema, Entries: slices.Clone(l.Entries)}
	if out.Entries == nil {
		out.Entries = []Entry{}
	}
	slices.SortFunc(out.Entries, func(a, b Entry) int {
		if c := strings.Compare(a.Task, b.Task); c != 0 {
			return c
		}
		return strings.Compare(a.Bug, b.Bug)
	})
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Merge adds other's entries to the list; an entry of other replaces the list's entry for the
// same task and bug.
func (l List) Merge(other List) List {
	out := List{Schema: Schema}
	replaced := map[[2]string]bool{}
	for _, e := range other.Entries {
		replaced[[2]string{e.Task, e.Bug}] = true
	}
	for _, e := range l.Entries {
		if !replaced[[2]string{e.Task, e.Bug}] {
			out.Entries = append(out.Entries, e)
		}
	}
	out.Entries = append(out.Entries, other.Entries...)
	return out
}

// Applied is what a list leaves of one task.
type Applied struct {
	// Excluded are the entries that applied to the task: its whole-task entry alone, or
	// those of its bugs among the ones asked for.
	Excluded []Entry
	// WholeTask says the task is out of the campaign: a whole-task entry, or every bug asked
	// for excluded.
	WholeTask bool
	// Bugs are the bugs left to grade; nil when the task is graded whole (no bug was
	// excluded and none was asked for).
	Bugs []string
}

// Apply decides what is left of a task whose bugs are allBugs (its bundle's order; nil for a
// task without bugs) when the campaign asked for the subset asked (nil: all of them).
func (l List) Apply(task string, allBugs, asked []string) Applied {
	byBug := map[string]Entry{}
	for _, e := range l.Entries {
		if e.Task != task {
			continue
		}
		if e.Bug == "" {
			return Applied{Excluded: []Entry{e}, WholeTask: true}
		}
		byBug[e.Bug] = e
	}
	want := asked
	if len(want) == 0 {
		want = allBugs
	}
	var a Applied
	for _, b := range want {
		if e, ok := byBug[b]; ok {
			a.Excluded = append(a.Excluded, e)
			continue
		}
		a.Bugs = append(a.Bugs, b)
	}
	switch {
	case len(want) > 0 && len(a.Bugs) == 0:
		return Applied{Excluded: a.Excluded, WholeTask: true}
	case len(a.Excluded) == 0 && len(asked) == 0:
		a.Bugs = nil
	}
	return a
}
