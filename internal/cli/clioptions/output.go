package clioptions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
	"sigs.k8s.io/yaml"
)

// Output formats of -o.
const (
	OutputTable = "table"
	OutputJSON  = "json"
	OutputYAML  = "yaml"
)

// CheckOutput validates the value of -o.
func CheckOutput(format string) error {
	switch format {
	case OutputTable, OutputJSON, OutputYAML:
		return nil
	}
	return fmt.Errorf("flag -o/--output: want table, json or yaml, got %q", format)
}

// Write prints a verb's result as -o asks: v as JSON or YAML, else the verb's own table.
func Write(w io.Writer, format string, v any, table func(io.Writer) error) error {
	if format != OutputTable {
		return WriteStructured(w, format, v)
	}
	return table(w)
}

// WriteStructured prints v as JSON or YAML; table output is the caller's. HTML escaping is
// off: commands with && must read as written.
func WriteStructured(w io.Writer, format string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := buf.Bytes()
	if format == OutputYAML {
		var err error
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	}
	_, err := w.Write(data)
	return err
}

// IsTerminal reports whether w is a terminal: progress is drawn only there, so that logs and
// pipes get plain lines.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// OrDash is s, or "-" for an empty cell of a table.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
