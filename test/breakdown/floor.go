package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// floorRun is one `sweep-hook grade swesweep` of a task, as measured.
type floorRun struct {
	Task       string  `json:"task"`
	Mode       string  `json:"mode"` // "oracle" (-oracle) or "patch" (the oracle agent's patch, as the verifier grades it)
	CPUSeconds float64 `json:"cpuSeconds"`
	Seconds    float64 `json:"seconds"`
}

// gradingFloor runs the task's built-in grader on this machine, repeat times per mode, the way
// the verifier stage runs it (`sweep-hook grade swesweep BUNDLE --patch --out --workdir`, tests
// as the test identity), on a copy of the task's repository made as its agent image is made
// (tasks/README.md, "Image recipe"), and measures its CPU time (the process tree's, from
// wait4). It returns the median run of each task and mode.
func gradingFloor(hook, tasksDir, task string, repeat int) ([]floorRun, error) {
	hook, err := filepath.Abs(hook)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Join(tasksDir, task))
	if err != nil {
		return nil, err
	}
	var out []floorRun
	for _, mode := range []string{"oracle", "patch"} {
		var runs []floorRun
		for range repeat {
			r, err := gradeOnce(hook, dir, mode)
			if err != nil {
				return nil, fmt.Errorf("task %s, %s: %w", task, mode, err)
			}
			runs = append(runs, r)
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i].CPUSeconds < runs[j].CPUSeconds })
		median := runs[len(runs)/2]
		median.Task = task
		out = append(out, median)
	}
	return out, nil
}

func gradeOnce(hook, taskDir, mode string) (floorRun, error) {
	tmp, err := os.MkdirTemp("", "breakdown-grade-")
	if err != nil {
		return floorRun{}, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	// The test identity reads the repository, as it does in the image.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return floorRun{}, err
	}
	repo := filepath.Join(tmp, "repo")
	if err := shell(tmp, `cp -a "$1/environment/repo/." "$2/" && cd "$2" && git init -q && git add -A &&
		GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z git commit -q --allow-empty -m baseline && git tag baseline`,
		taskDir, mustMkdir(repo)); err != nil {
		return floorRun{}, err
	}
	patch := filepath.Join(tmp, "model.patch")
	if mode == "patch" {
		// The oracle agent's patch: its solve.sh applied, then the task's collect hook's diff.
		if err := shell(tmp, `sh "$1/solution/solve.sh" "$2" && cd "$2" && git add -A && git diff --cached --binary baseline > "$3" && git reset -q --hard baseline && git clean -qfdx`,
			taskDir, repo, patch); err != nil {
			return floorRun{}, err
		}
	}
	args := []string{"grade", "swesweep", filepath.Join(taskDir, "tests"), "--patch", patch, "--out", mustMkdir(filepath.Join(tmp, "out")), "--workdir", repo}
	if mode == "oracle" {
		args = append(args, "-oracle")
	}
	cmd := exec.Command(hook, args...)
	start := time.Now()
	outText, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err != nil {
		return floorRun{}, fmt.Errorf("%s %s: %w: %s", hook, strings.Join(args, " "), err, tail(outText))
	}
	b, err := os.ReadFile(filepath.Join(tmp, "out", reward.FileJSON))
	if err != nil {
		return floorRun{}, fmt.Errorf("the grade wrote no %s: %w", reward.FileJSON, err)
	}
	if result, err := reward.ParseJSON(b); err != nil || result[reward.KeyReward] != 1 {
		return floorRun{}, fmt.Errorf("the grade did not give %s 1: %s (%v)", reward.KeyReward, b, err)
	}
	ps := cmd.ProcessState
	return floorRun{Mode: mode, CPUSeconds: (ps.UserTime() + ps.SystemTime()).Seconds(), Seconds: elapsed.Seconds()}, nil
}

func shell(dir, script string, args ...string) error {
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", script, err, tail(out))
	}
	return nil
}

func mustMkdir(dir string) string {
	_ = os.MkdirAll(dir, 0o755)
	return dir
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
