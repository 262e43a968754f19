package taskdef

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Dir is a Harbor task directory.
type Dir struct {
	Path string
	Task *Task
	// Instruction is instruction.md; Warnings say what a complete task would also have.
	Instruction string
	Warnings    []string
}

// LoadDir reads DIR/task.toml and DIR/instruction.md. A task without a name takes the
// directory's name.
func LoadDir(dir string) (*Dir, error) {
	file := filepath.Join(dir, "task.toml")
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{File: file, Msg: "missing: a task directory needs a task.toml"}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	t, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	if t.Name == "" {
		t.Name = filepath.Base(filepath.Clean(dir))
	}
	d := &Dir{Path: dir, Task: t}
	if b, err := os.ReadFile(filepath.Join(dir, "instruction.md")); err == nil {
		d.Instruction = string(b)
	} else {
		d.Warnings = append(d.Warnings, "no instruction.md")
	}
	if t.Verifier.EnvironmentMode == VerifierSeparate {
		if _, err := os.Stat(filepath.Join(dir, "tests")); err != nil {
			d.Warnings = append(d.Warnings, "no tests/ directory for the separate verifier image")
		}
	}
	return d, nil
}

// LoadDirs loads each directory, or each task directory directly below it when it holds no
// task.toml itself, sorted by task name. It stops at the first bad task.
func LoadDirs(paths []string) ([]*Dir, error) {
	var dirs []*Dir
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(p, "task.toml")); err == nil {
			d, err := LoadDir(p)
			if err != nil {
				return nil, err
			}
			dirs = append(dirs, d)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("%s: not a task directory or a folder of them: %w", p, err)
		}
		found := 0
		for _, e := range entries {
			sub := filepath.Join(p, e.Name())
			if _, err := os.Stat(filepath.Join(sub, "task.toml")); !e.IsDir() || err != nil {
				continue
			}
			d, err := LoadDir(sub)
			if err != nil {
				return nil, err
			}
			dirs = append(dirs, d)
			found++
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no task.toml here or in its subdirectories", p)
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].Task.Name < dirs[j].Task.Name })
	return dirs, nil
}
