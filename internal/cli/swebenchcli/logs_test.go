package swebenchcli

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
)

// writeStatuses must write what clioptions.WriteStructured writes, whatever the ids hold.
func TestWriteStatusesMatchesWriteStructured(t *testing.T) {
	tests := map[string]logparse.Statuses{
		"empty": {},
		"plain": {"t.py::b": "FAILED", "t.py::a": "PASSED", "t.py::a[x y]": "XFAIL"},
		"escapes": {
			"quote\"back\\slash": "PASSED", "ctl\x01\x1f\b\f\n\r\t": "ERROR", "html <a> & b": "SKIPPED",
			"unicode é 漢 \u2028\u2029": "PASSED", "invalid \xff\xfe utf-8": "FAILED", "status of its own": "PASSEDX\x1b",
		},
	}
	many := logparse.Statuses{"t.py::x\x00": "PASSED", "t.py::x": "FAILED", "t.py::": "ERROR"}
	for i := range 5000 {
		many[fmt.Sprintf("t.py::test_%d", i*7919%5000)] = "PASSED"
		many[fmt.Sprintf("t.py::test_%d[param with the same first bytes %d]", i, i%3)] = "XFAIL"
	}
	tests["many ids sharing a prefix and their first bytes"] = many
	// One id apart, so no prefix is shared by all: a long run of equal first bytes, sorted 8
	// bytes at a time, with ids that end early or in zero bytes.
	deep := logparse.Statuses{"u.py::x": "PASSED", "t.py::a_long_shared_middle_part_": "FAILED", "t.py::a_long_shared_middle_part_5\x00": "ERROR"}
	for i := range 3000 {
		deep[fmt.Sprintf("t.py::a_long_shared_middle_part_%d", i*7919%3000)] = "PASSED"
	}
	tests["a long run of ids sharing their first 30 bytes"] = deep
	for name, statuses := range tests {
		t.Run(name, func(t *testing.T) {
			var want, got bytes.Buffer
			if err := clioptions.WriteStructured(&want, clioptions.OutputJSON, statuses); err != nil {
				t.Fatal(err)
			}
			if err := writeStatuses(&got, statuses); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("output (-WriteStructured +writeStatuses):\n%s", diff)
			}
		})
	}
}
