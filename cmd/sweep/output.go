package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Output formats of -o.
const (
	outputTable = "table"
	outputJSON  = "json"
	outputYAML  = "yaml"
)

// addOutputFlag adds -o table|json|yaml to a verb that prints a result.
func addOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", outputTable, "output format: table, json or yaml")
}

func checkOutput(format string) error {
	switch format {
	case outputTable, outputJSON, outputYAML:
		return nil
	}
	return fmt.Errorf("flag -o/--output: want table, json or yaml, got %q", format)
}

// writeStructured prints v as JSON or YAML; table output is the caller's. HTML escaping is
// off: commands with && must read as written.
func writeStructured(w io.Writer, format string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	data := buf.Bytes()
	if format == outputYAML {
		var err error
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
	}
	_, err := w.Write(data)
	return err
}
