package steps

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
)

// File is one result file of a grader. Nil Data removes a file left by an earlier run, so
// that it is never read as this run's.
type File struct {
	Name string
	Data []byte
}

// WriteResults creates dir and writes or removes each file in it; it tries every file and
// returns every failure.
func WriteResults(dir string, files ...File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if f.Data == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		errs = append(errs, os.WriteFile(path, f.Data, 0o644))
	}
	return errors.Join(errs...)
}

// IndentedJSON is v as indented JSON with a final newline, the shape of eval.json and
// report.json.
func IndentedJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
