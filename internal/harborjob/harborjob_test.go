package harborjob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestReadTrials(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  []scoring.Trial
		// wantWarnings are relative to the test's directory.
		wantWarnings []string
	}{
		"task from config.json task.path": {
			files: map[string]string{
				"job/a__1/config.json":          `{"task": {"path": "/data/tasks/task-a/"}}`,
				"job/a__1/verifier/reward.json": `{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1}`,
			},
			want: []scoring.Trial{{Task: "task-a", Measured: true, Rewards: map[string]float64{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1}}},
		},
		"task from result.json task_name, reward.txt": {
			files: map[string]string{
				"job/b__1/result.json":         `{"task_name": "task-b", "trial_name": "b__1"}`,
				"job/b__1/verifier/reward.txt": "1\n",
			},
			want: []scoring.Trial{{Task: "task-b", Measured: true, Rewards: map[string]float64{"reward": 1}}},
		},
		"a trial without a reward is unmeasured; the job's own files are not a trial": {
			files: map[string]string{
				"job/config.json":        `{"job_name": "job"}`,
				"job/result.json":        `{"stats": {}}`,
				"job/c__1/result.json":   `{"task_name": "task-c", "trial_name": "c__1", "exception_info": {"exception_type": "AgentTimeoutError"}}`,
				"job/c__2/config.json":   `{"task": {"path": "task-c"}}`,
				"job/c__2/result.json":   `{"trial_name": "c__2"}`,
				"job/c__2/verifier/x":    "",
				"job/c__3/agent/log.txt": "no result: not a trial",
			},
			want: []scoring.Trial{{Task: "task-c"}, {Task: "task-c"}},
		},
		// A 2-bug trial claiming 1000 resolved: read as it is (scoring counts it as an
		// evaluation failure), with a warning naming the file; so is a reward.txt of 25.
		"results out of bounds are read, with a warning by file": {
			files: map[string]string{
				"job/a__1/config.json":          `{"task": {"path": "task-a"}}`,
				"job/a__1/verifier/reward.json": `{"reward": 1, "n_subtasks": 2, "n_resolved": 1000, "visible_ok": 1}`,
				"job/a__2/config.json":          `{"task": {"path": "task-a"}}`,
				"job/a__2/verifier/reward.json": `{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1, "visible_ok": 1}`,
				"job/b__1/config.json":          `{"task": {"path": "task-b"}}`,
				"job/b__1/verifier/reward.txt":  "25\n",
			},
			want: []scoring.Trial{
				{Task: "task-a", Measured: true, Rewards: map[string]float64{"reward": 1, "n_subtasks": 2, "n_resolved": 1000, "visible_ok": 1}},
				{Task: "task-a", Measured: true, Rewards: map[string]float64{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1, "visible_ok": 1}},
				{Task: "task-b", Measured: true, Rewards: map[string]float64{"reward": 25}},
			},
			wantWarnings: []string{
				"job/a__1/verifier/reward.json: out of bounds: n_resolved is 1000, above n_subtasks (2); counted as an evaluation failure",
				"job/b__1/verifier/reward.txt: out of bounds: reward is 25, outside [0, 1]; counted as an evaluation failure",
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sweeptest.WriteFiles(t, dir, tc.files)
			got, warnings, err := ReadTrials([]string{filepath.Join(dir, "job")})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReadTrials (-want +got):\n%s", diff)
			}
			for i := range warnings {
				warnings[i] = strings.TrimPrefix(warnings[i], dir+string(filepath.Separator))
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			// Scoring keeps SWE-sweep's rules and never counts what is out of bounds.
			if rep := scoring.Score(got); rep.EvaluationFailures != len(tc.wantWarnings)+countUnmeasured(got) {
				t.Errorf("evaluation failures = %d, want one per warning and unmeasured trial", rep.EvaluationFailures)
			}
		})
	}
}

func countUnmeasured(trials []scoring.Trial) int {
	n := 0
	for _, t := range trials {
		if !t.Measured {
			n++
		}
	}
	return n
}

func TestReadTrialsErrors(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  string
	}{
		"no trials":       {files: map[string]string{"job/readme": ""}, want: "job: no trial folders"},
		"no task name":    {files: map[string]string{"job/t/verifier/reward.json": `{"reward": 1}`}, want: "t: no task name: set task.path in config.json or task_name in result.json"},
		"bad reward.json": {files: map[string]string{"job/t/config.json": `{"task":{"path":"x"}}`, "job/t/verifier/reward.json": `{"reward": "high"}`}, want: `verifier: reward.json key "reward": "high" is not a number: rewrite the file or delete the trial folder`},
		"bad reward.txt":  {files: map[string]string{"job/t/config.json": `{"task":{"path":"x"}}`, "job/t/verifier/reward.txt": "n/a"}, want: `verifier: reward.txt holds "n/a", which is not a number; want one number such as 0.5: rewrite the file or delete the trial folder`},
		"bad config.json": {files: map[string]string{"job/t/config.json": `{`, "job/t/verifier/reward.txt": "1"}, want: "config.json: not valid JSON"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sweeptest.WriteFiles(t, dir, tc.files)
			_, _, err := ReadTrials([]string{filepath.Join(dir, "job")})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// A symlinked reward file is refused as the verifier stage refuses it (reward.Read).
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{"job/t/config.json": `{"task":{"path":"x"}}`, "forged.json": `{"reward": 1}`})
	if err := os.MkdirAll(filepath.Join(dir, "job/t/verifier"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "forged.json"), filepath.Join(dir, "job/t/verifier/reward.json")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTrials([]string{filepath.Join(dir, "job")}); err == nil || !strings.Contains(err.Error(), "reward.json is a symbolic link: refused: not a regular file: rewrite the file or delete the trial folder") {
		t.Errorf("symlinked reward.json: error = %v", err)
	}
	if _, _, err := ReadTrials([]string{filepath.Join(t.TempDir(), "missing")}); err == nil || !strings.Contains(err.Error(), "give a job directory") {
		t.Errorf("missing directory: error = %v", err)
	}
}

func TestWriteThenRead(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	job := Job{Name: "run1", Agent: "patch", Trials: []Trial{
		{Name: "run1-task-a-1", Task: "task-a", Attempt: 1, Rewards: map[string]float64{"reward": 1, "n_subtasks": 1, "n_resolved": 1},
			RewardJSON: []byte(`{"reward": 1, "n_subtasks": 1, "n_resolved": 1}`), EvalJSON: []byte(`{"schema":"sweep-eval/1"}`),
			Artifacts: map[string][]byte{"model.patch": []byte("diff --git a/x b/x\n")},
			Started:   start, Finished: start.Add(time.Hour), Agent: Phase{Started: start, Finished: start.Add(time.Minute)}},
		{Name: "run1-task-b-with-a-very-long-name-over-32-1", Task: "task-b-with-a-very-long-name-over-32", Attempt: 1,
			Exception: &Exception{Type: "ImagePullFailed", Message: "image not found"}},
	}}
	dir := t.TempDir()
	if err := Write(dir, job); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, FolderName(job.Trials[0]))
	for file, want := range map[string]string{
		"verifier/reward.json":  `{"reward": 1, "n_subtasks": 1, "n_resolved": 1}`,
		"verifier/eval.json":    `{"schema":"sweep-eval/1"}`,
		"artifacts/model.patch": "diff --git a/x b/x\n",
	} {
		got, err := os.ReadFile(filepath.Join(folder, file))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", file, got, err, want)
		}
	}
	if name := FolderName(job.Trials[1]); name != "task-b-with-a-very-long-name-ove__"+name[len(name)-7:] {
		t.Errorf("folder name %q: want the task cut to 32 characters", name)
	}
	got, warnings, err := ReadTrials([]string{dir})
	if err != nil || warnings != nil {
		t.Fatal(err, warnings)
	}
	want := []scoring.Trial{
		{Task: "task-a", Measured: true, Rewards: map[string]float64{"reward": 1, "n_subtasks": 1, "n_resolved": 1}},
		{Task: "task-b-with-a-very-long-name-over-32"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	res, _ := os.ReadFile(filepath.Join(folder, ResultFile))
	for _, s := range []string{`"task_name": "task-a"`, `"rewards": {`, `"started_at": "2026-01-02T03:04:05Z"`, `"exception_info": null`} {
		if !strings.Contains(string(res), s) {
			t.Errorf("result.json lacks %s:\n%s", s, res)
		}
	}
	if err := Write(dir, Job{Trials: []Trial{{Name: "x", Task: "x", Artifacts: map[string][]byte{"../evil": nil}}}}); err == nil {
		t.Error("an artifact name with a path: no error")
	}
}
