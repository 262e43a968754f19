// Package harborjob reads and writes Harbor's job layout: a job folder holding one folder per
// trial with config.json, result.json, verifier/reward.json, verifier/eval.json and artifacts/.
// Tools built for Harbor and SWE-sweep read this layout, so `sweep export` writes it and
// `sweep info DIR` reads any job directory in it.
package harborjob

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// File names of a trial folder.
const (
	ConfigFile   = "config.json"
	ResultFile   = "result.json"
	VerifierDir  = "verifier"
	EvalJSON     = "eval.json"
	ArtifactsDir = "artifacts"
)

// ReadTrials finds the trials under each root, which may be a job folder, a folder of job
// folders, or a single trial folder. A folder holding verifier/reward.json (or reward.txt) is a
// measured trial; a folder whose result.json names a trial but that has no reward is an
// evaluation failure. Trials are returned sorted by folder.
//
// A result out of bounds (reward.Result.CheckBounds: a reward above 1, more bugs resolved than
// graded, ...) is returned as it is, so that scoring applies SWE-sweep's rules and counts it as
// an evaluation failure, and it adds a warning that names the file and the bound.
func ReadTrials(roots []string) (trials []scoring.Trial, warnings []string, err error) {
	var dirs []string
	for _, root := range roots {
		if _, err := os.Stat(root); err != nil {
			return nil, nil, fmt.Errorf("%s: %w: give a job directory (Harbor layout) or a campaign name", root, errors.Unwrap(err))
		}
		before := len(dirs)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			isTrial, err := isTrialDir(p)
			if err != nil {
				return err
			}
			if isTrial {
				dirs = append(dirs, p)
				return fs.SkipDir
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if len(dirs) == before {
			return nil, nil, fmt.Errorf("%s: no trial folders (a folder with %s or a %s naming a trial): give a Harbor job directory or the output of `sweep export`",
				root, path.Join(VerifierDir, reward.FileJSON), ResultFile)
		}
	}
	sort.Strings(dirs)
	trials = make([]scoring.Trial, 0, len(dirs))
	for _, d := range dirs {
		t, warning, err := readTrial(d)
		if err != nil {
			return nil, nil, err
		}
		trials = append(trials, t)
		if warning != "" {
			warnings = append(warnings, warning)
		}
	}
	return trials, warnings, nil
}

// resultFile is the part of Harbor's trial result.json this package reads.
type resultFile struct {
	TaskName  string `json:"task_name"`
	TrialName string `json:"trial_name"`
}

type configFile struct {
	Task struct {
		Path string `json:"path"`
	} `json:"task"`
}

func isTrialDir(dir string) (bool, error) {
	if _, _, ok, err := readResult(dir); ok || err != nil {
		return ok, err
	}
	var res resultFile
	ok, err := readJSON(filepath.Join(dir, ResultFile), &res)
	return ok && res.TrialName != "", err
}

// readResult reads the result the verifier left in the trial folder, as Harbor: reward.json
// first, else reward.txt, and says which file it read. ok is false when it left neither.
func readResult(dir string) (result reward.Result, file string, ok bool, err error) {
	verifier := filepath.Join(dir, VerifierDir)
	result, file, err = reward.Read(verifier)
	switch {
	case errors.Is(err, reward.ErrNoResult):
		return nil, "", false, nil
	case err != nil:
		return nil, "", false, fmt.Errorf("%s: %w: rewrite the file or delete the trial folder", verifier, err)
	}
	return result, file, true, nil
}

func readJSON(file string, v any) (bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: not valid JSON (%v): fix or remove the file", file, err)
	}
	return true, nil
}

// readTrial reads one trial folder; warning is set when its result is out of bounds. A job
// directory does not say how many bugs a task declares, so n_subtasks is bounded only by its
// own meaning.
func readTrial(dir string) (t scoring.Trial, warning string, err error) {
	task, err := taskName(dir)
	if err != nil {
		return scoring.Trial{}, "", err
	}
	result, file, ok, err := readResult(dir)
	if err != nil {
		return scoring.Trial{}, "", err
	}
	if err := result.CheckBounds(0); ok && err != nil {
		warning = fmt.Sprintf("%s: out of bounds: %v; counted as an evaluation failure", file, err)
	}
	return scoring.Trial{Task: task, Measured: ok, Rewards: result}, warning, nil
}

// taskName is the basename of task.path in config.json, else task_name in result.json.
func taskName(dir string) (string, error) {
	var cfg configFile
	if _, err := readJSON(filepath.Join(dir, ConfigFile), &cfg); err != nil {
		return "", err
	}
	if p := strings.TrimRight(cfg.Task.Path, "/"); p != "" {
		return path.Base(filepath.ToSlash(p)), nil
	}
	var res resultFile
	if _, err := readJSON(filepath.Join(dir, ResultFile), &res); err != nil {
		return "", err
	}
	if res.TaskName != "" {
		return res.TaskName, nil
	}
	return "", fmt.Errorf("%s: no task name: set task.path in %s or task_name in %s", dir, ConfigFile, ResultFile)
}
