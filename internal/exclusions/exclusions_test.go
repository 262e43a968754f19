package exclusions

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
		want              List
	}{
		{name: "valid", in: `{"schema":"sweep-exclusions/1","entries":[{"task":"t","bug":"b","reason":"flaky","detail":"test x"},{"task":"u","reason":"listed"}]}`,
			want: List{Schema: Schema, Entries: []Entry{{Task: "t", Bug: "b", Reason: Flaky, Detail: "test x"}, {Task: "u", Reason: Listed}}}},
		{name: "not json", in: `entries: []`, wantErr: "src: key exclusions.json is not an exclusion list"},
		{name: "unknown field", in: `{"schema":"sweep-exclusions/1","entries":[],"extra":1}`, wantErr: `unknown field "extra"`},
		{name: "schema", in: `{"schema":"v0","entries":[]}`, wantErr: `src: schema is "v0", want "sweep-exclusions/1"`},
		{name: "no task", in: `{"schema":"sweep-exclusions/1","entries":[{"reason":"flaky"}]}`, wantErr: "src: entries[0].task is empty"},
		{name: "reason", in: `{"schema":"sweep-exclusions/1","entries":[{"task":"t","reason":"slow"}]}`,
			wantErr: `src: entries[0].reason is "slow": use one of broken, trivial, flaky, listed`},
		{name: "twice", in: `{"schema":"sweep-exclusions/1","entries":[{"task":"t","bug":"b","reason":"flaky"},{"task":"t","bug":"b","reason":"broken"}]}`,
			wantErr: `src: entries[1] (task t, bug "b") is listed twice`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse("src", []byte(c.in))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want it to contain %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeIsSortedAndParses(t *testing.T) {
	l := List{Entries: []Entry{{Task: "b", Reason: Listed}, {Task: "a", Bug: "y", Reason: Flaky}, {Task: "a", Bug: "x", Reason: Broken}}}
	b, err := l.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse("encoded", b)
	if err != nil {
		t.Fatal(err)
	}
	want := List{Schema: Schema, Entries: []Entry{{Task: "a", Bug: "x", Reason: Broken}, {Task: "a", Bug: "y", Reason: Flaky}, {Task: "b", Reason: Listed}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	empty, err := List{}.Encode()
	if err != nil || string(empty) != "{\n  \"schema\": \"sweep-exclusions/1\",\n  \"entries\": []\n}\n" {
		t.Errorf("empty list encodes as %q, %v", empty, err)
	}
}

func TestMerge(t *testing.T) {
	old := List{Entries: []Entry{{Task: "t", Bug: "b1", Reason: Flaky}, {Task: "t", Bug: "b2", Reason: Broken}}}
	got := old.Merge(List{Entries: []Entry{{Task: "t", Bug: "b2", Reason: Trivial}, {Task: "u", Reason: Listed}}})
	want := List{Schema: Schema, Entries: []Entry{{Task: "t", Bug: "b1", Reason: Flaky}, {Task: "t", Bug: "b2", Reason: Trivial}, {Task: "u", Reason: Listed}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestApply(t *testing.T) {
	l := List{Entries: []Entry{
		{Task: "t", Bug: "b2", Reason: Flaky}, {Task: "t", Bug: "b4", Reason: Trivial},
		{Task: "inst", Reason: Listed}, {Task: "all", Bug: "only", Reason: Broken},
	}}
	cases := []struct {
		name, task     string
		allBugs, asked []string
		want           Applied
	}{
		{name: "untouched task graded whole", task: "other", allBugs: []string{"a", "b"}, want: Applied{}},
		{name: "untouched subset kept", task: "other", allBugs: []string{"a", "b"}, asked: []string{"b"}, want: Applied{Bugs: []string{"b"}}},
		{name: "bugs excluded", task: "t", allBugs: []string{"b1", "b2", "b3", "b4"},
			want: Applied{Excluded: []Entry{l.Entries[0], l.Entries[1]}, Bugs: []string{"b1", "b3"}}},
		{name: "subset: only asked bugs count", task: "t", allBugs: []string{"b1", "b2", "b3", "b4"}, asked: []string{"b1", "b2"},
			want: Applied{Excluded: []Entry{l.Entries[0]}, Bugs: []string{"b1"}}},
		{name: "whole instance", task: "inst", want: Applied{Excluded: []Entry{l.Entries[2]}, WholeTask: true}},
		{name: "every bug excluded", task: "all", allBugs: []string{"only"}, want: Applied{Excluded: []Entry{l.Entries[3]}, WholeTask: true}},
		{name: "task without bugs, bug entries do not apply", task: "t", want: Applied{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, l.Apply(c.task, c.allBugs, c.asked)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
