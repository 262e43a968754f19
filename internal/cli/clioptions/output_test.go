package clioptions

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestCheckOutput(t *testing.T) {
	for _, f := range []string{OutputTable, OutputJSON, OutputYAML} {
		if err := CheckOutput(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	sweeptest.ErrorContains(t, CheckOutput("xml"), "flag -o/--output: want table, json or yaml", `"xml"`)
}

// Commands with && read as written, in JSON and in YAML.
func TestWriteStructured(t *testing.T) {
	v := map[string]string{"command": "make && make test"}
	for format, want := range map[string]string{
		OutputJSON: "{\n  \"command\": \"make && make test\"\n}\n",
		OutputYAML: "command: make && make test\n",
	} {
		var buf bytes.Buffer
		if err := WriteStructured(&buf, format, v); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", format, diff)
		}
	}
}

func TestReadFileOrStdin(t *testing.T) {
	got, err := ReadFileOrStdin(bytes.NewBufferString("from stdin"), "-")
	if err != nil || string(got) != "from stdin" {
		t.Errorf("- read %q, %v", got, err)
	}
	_, err = ReadFileOrStdin(nil, "testdata/nope")
	sweeptest.ErrorContains(t, err, "testdata/nope")
}
