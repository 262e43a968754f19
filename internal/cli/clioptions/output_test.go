package clioptions

import (
	"bytes"
	"io"
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

// -o table prints the verb's table; the other formats print the value.
func TestWrite(t *testing.T) {
	table := func(w io.Writer) error {
		_, err := io.WriteString(w, "NAME\nrun1\n")
		return err
	}
	for format, want := range map[string]string{
		OutputTable: "NAME\nrun1\n",
		OutputJSON:  "{\n  \"name\": \"run1\"\n}\n",
		OutputYAML:  "name: run1\n",
	} {
		var buf bytes.Buffer
		if err := Write(&buf, format, map[string]string{"name": "run1"}, table); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, buf.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", format, diff)
		}
	}
}
