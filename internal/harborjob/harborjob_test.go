package harborjob

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func sweepResult(subtasks, resolved, visibleOK, r float64) map[string]float64 {
	return map[string]float64{"n_subtasks": subtasks, "n_resolved": resolved, "visible_ok": visibleOK, "reward": r}
}

func TestReadTrials(t *testing.T) {
	cases := map[string]struct {
		files map[string]string
		want  []scoring.Trial
		// wantWarnings are relative to the test's directory.
		wantWarnings []string
	}{
		"task from config.json task.path, else task.name, else the trial folder": {
			files: map[string]string{
				"job/a__1/config.json":          `{"task": {"path": "/data/tasks/task-a/", "name": "not-this"}}`,
				"job/a__1/verifier/reward.json": `{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1, "visible_ok": 1, "note": "text is fine here"}`,
				"job/b__1/config.json":          `{"task": {"path": "", "name": "org/task-b"}}`,
				"job/b__1/verifier/reward.json": `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`,
				"job/c__1/config.json":          `{"task": null}`,
				"job/c__1/verifier/reward.json": `{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1}`,
				"job/d__1/verifier/reward.json": `{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1}`,
			},
			want: []scoring.Trial{
				{Task: "task-a", Measured: true, Rewards: sweepResult(2, 1, 1, 0.5)},
				{Task: "task-b", Measured: true, Rewards: sweepResult(1, 1, 1, 1)},
				{Task: "c__1", Measured: true, Rewards: sweepResult(1, 0, 1, 0)},
				{Task: "d__1", Measured: true, Rewards: sweepResult(1, 0, 1, 0)},
			},
		},
		// The trial folder is the file's grandparent at any depth, as SWE-sweep takes it.
		"reward.json at any depth, in path order": {
			files: map[string]string{
				"job/x/reward.json":                `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`,
				"job/a/b/c/verifier/reward.json":   `{"reward": 0, "n_subtasks": 3, "n_resolved": 0, "visible_ok": 0}`,
				"job/a-b/verifier/reward.json":     `{"reward": 0, "n_subtasks": 4, "n_resolved": 0, "visible_ok": 1}`,
				"job/a/b/c/config.json":            `{"task": {"path": "deep"}}`,
				"job/result.json":                  `{"stats": {}}`,
				"job/t/result.json":                `{"task_name": "t", "trial_name": "t"}`,
				"job/r/verifier/reward.txt":        "1\n",
				"job/g/verifier/reward.json":       `{"reward": 0, "grader_failed": 1}`,
				"job/h/verifier/reward.json/x.txt": "a folder named reward.json",
			},
			want: []scoring.Trial{
				{Task: "deep", Measured: true, Rewards: sweepResult(3, 0, 0, 0)},
				{Task: "a-b", Measured: true, Rewards: sweepResult(4, 0, 1, 0)},
				{Task: "job", Measured: true, Rewards: sweepResult(1, 1, 1, 1)},
			},
			wantWarnings: []string{
				`skipped job/g/verifier/reward.json: no "n_subtasks" key (SWE-sweep scores only results with n_subtasks, n_resolved, visible_ok and reward)`,
				"skipped job/h/verifier/reward.json: cannot read it: is a directory",
			},
		},
		// A grader failure counts by grader_failed alone; its other values are never used.
		"grader failures with all four keys are kept": {
			files: map[string]string{
				"job/a/verifier/reward.json": `{"reward": "n/a", "n_subtasks": null, "n_resolved": 0, "visible_ok": 0, "grader_failed": 1}`,
			},
			want: []scoring.Trial{{Task: "a", Measured: true, Rewards: map[string]float64{"n_subtasks": 0, "n_resolved": 0, "visible_ok": 0, "reward": 0, "grader_failed": 1}}},
		},
		"malformed files are skipped, each named with the reason": {
			files: map[string]string{
				"job/a/verifier/reward.json": `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": true}`,
				"job/b/verifier/reward.json": `{"reward": NaN, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`,
				"job/c/verifier/reward.json": `{"reward": 1, "n_subtasks": "1", "n_resolved": 1, "visible_ok": 1}`,
				"job/d/verifier/reward.json": `{"reward": 1, "n_subtasks": 1e300, "n_resolved": 1, "visible_ok": 1}`,
				"job/e/verifier/reward.json": `[1, 2]`,
				"job/f/verifier/reward.json": "{\"reward\": 1, \"n_subtasks\": 1, \"n_resolved\": 1, \"visible_ok\": 1, \"x\": \"\xff\"}",
				"job/g/verifier/reward.json": `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1, "grader_failed": "no"}`,
				"job/h/config.json":          `{"task": {"path": 5}}`,
				"job/h/verifier/reward.json": `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`,
				"job/i/config.json":          `[`,
				"job/i/verifier/reward.json": `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`,
			},
			want: []scoring.Trial{
				{Task: "h", Measured: true, Rewards: sweepResult(1, 1, 1, 1)},
				{Task: "i", Measured: true, Rewards: sweepResult(1, 1, 1, 1)},
			},
			wantWarnings: []string{
				"skipped job/a/verifier/reward.json: visible_ok is true, not a number",
				"skipped job/b/verifier/reward.json: not a JSON object (invalid character 'N' looking for beginning of value)",
				`skipped job/c/verifier/reward.json: n_subtasks is "1", not a number`,
				"skipped job/d/verifier/reward.json: n_subtasks is 1e300, beyond ±2^53",
				"skipped job/e/verifier/reward.json: not a JSON object (json: cannot unmarshal array into Go value of type map[string]json.RawMessage)",
				"skipped job/f/verifier/reward.json: not UTF-8 text",
				`skipped job/g/verifier/reward.json: grader_failed is "no", not a number`,
				`job/h/config.json: task.path is 5, not a string; the trial is named by its folder, "h"`,
				`job/i/config.json: not a JSON object (unexpected end of JSON input); the trial is named by its folder, "i"`,
			},
		},
		// A 2-bug trial claiming 1000 resolved: scored as SWE-sweep scores it, with a warning
		// naming the file.
		"results out of bounds are read, with a warning by file": {
			files: map[string]string{
				"job/a__1/config.json":          `{"task": {"path": "task-a"}}`,
				"job/a__1/verifier/reward.json": `{"reward": 1, "n_subtasks": 2, "n_resolved": 1000, "visible_ok": 1}`,
				"job/a__2/config.json":          `{"task": {"path": "task-a"}}`,
				"job/a__2/verifier/reward.json": `{"reward": 0.5, "n_subtasks": 2, "n_resolved": 1, "visible_ok": 1}`,
			},
			want: []scoring.Trial{
				{Task: "task-a", Measured: true, Rewards: sweepResult(2, 1000, 1, 1)},
				{Task: "task-a", Measured: true, Rewards: sweepResult(2, 1, 1, 0.5)},
			},
			wantWarnings: []string{
				"job/a__1/verifier/reward.json: out of bounds: n_resolved is 1000, above n_subtasks (2); scored as SWE-sweep scores it",
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
				warnings[i] = strings.ReplaceAll(warnings[i], dir, "DIR")
				warnings[i] = strings.ReplaceAll(warnings[i], "DIR"+string(filepath.Separator), "")
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadTrialsErrors(t *testing.T) {
	if _, _, err := ReadTrials([]string{filepath.Join(t.TempDir(), "missing")}); err == nil || !strings.Contains(err.Error(), "give a job directory") {
		t.Errorf("missing directory: error = %v", err)
	}
}

func TestWriteThenRead(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	job := Job{Name: "run1", Agent: "patch", Trials: []Trial{
		{Name: "run1-task-a-1", Task: "task-a", Attempt: 1, Rewards: map[string]float64{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1},
			RewardJSON: []byte(`{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`), VerifierFiles: map[string][]byte{"eval.json": []byte(`{"schema":"sweep-eval/1"}`)},
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
		"verifier/reward.json":  `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`,
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
	want := []scoring.Trial{{Task: "task-a", Measured: true, Rewards: sweepResult(1, 1, 1, 1)}}
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
	err = Write(t.TempDir(), Job{Trials: []Trial{{Name: "x", Task: "x", Artifacts: map[string][]byte{"reward.json": []byte(`{}`)}}}})
	if err == nil || !strings.Contains(err.Error(), "would be read as a result of the trial by SWE-sweep's scoring") {
		t.Errorf("an artifact named reward.json: error = %v", err)
	}
}

// The verifier's files go below verifier/ byte for byte, nested ones too; a name that would
// leave it, or another reward.json, is refused.
func TestWriteVerifierFiles(t *testing.T) {
	binary := []byte{0, 0xff, 0xfe, '\n', 0x80}
	files := map[string][]byte{"eval_output.json": []byte(`{"tests": []}`), "runs/bug 1/core.bin": binary, "grader_error.txt": nil}
	trial := Trial{Name: "x", Task: "x", RewardJSON: []byte(`{"reward": 0, "grader_failed": 1}`), VerifierFiles: files}
	dir := t.TempDir()
	if err := Write(dir, Job{Trials: []Trial{trial}}); err != nil {
		t.Fatal(err)
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, FolderName(trial), VerifierDir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("verifier/%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	for rel, wantErr := range map[string]string{
		"../escape":       "not a plain relative path",
		"/etc/passwd":     "not a relative path",
		"a/../../escape":  "not a plain relative path",
		"sub/reward.json": "would count it as another result of the trial",
		"reward.json":     "would count it as another result of the trial",
		"bad\xffname":     "not valid UTF-8",
	} {
		outside := t.TempDir()
		err := Write(filepath.Join(outside, "job"), Job{Trials: []Trial{{Name: "x", Task: "x", VerifierFiles: map[string][]byte{rel: []byte("x")}}}})
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("verifier file %q: error = %v, want %q", rel, err, wantErr)
		}
		if _, err := os.Stat(filepath.Join(outside, "escape")); err == nil {
			t.Errorf("verifier file %q was written outside the trial folder", rel)
		}
	}
}

// A root given as a link is followed; a linked folder below it is not, as SWE-sweep's search.
func TestReadTrialsLinks(t *testing.T) {
	dir := t.TempDir()
	result := `{"reward": 1, "n_subtasks": 1, "n_resolved": 1, "visible_ok": 1}`
	sweeptest.WriteFiles(t, dir, map[string]string{"job/a/verifier/reward.json": result, "other/b/verifier/reward.json": result})
	if err := os.Symlink(filepath.Join(dir, "job"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "other"), filepath.Join(dir, "job", "linked")); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadTrials([]string{filepath.Join(dir, "link")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]scoring.Trial{{Task: "a", Measured: true, Rewards: sweepResult(1, 1, 1, 1)}}, got); diff != "" {
		t.Errorf("ReadTrials (-want +got):\n%s", diff)
	}
}

func TestTrialFiles(t *testing.T) {
	job := Job{Name: "run1", Agent: "patch", Writer: "sweep-operator", Images: map[string]string{"agent:1": "sha256:aa"}}
	trial := Trial{Name: "run1-a-1", Task: "a", Attempt: 1, Rewards: map[string]float64{"reward": 1},
		VerifierFiles: map[string][]byte{"runs/out.txt": []byte("ok\n")}, Artifacts: map[string][]byte{"model.patch": []byte("p")},
		AgentFiles: map[string][]byte{"agent.log": []byte("log")}, Provenance: []byte(`{"grader":"swesweep/1"}`)}
	files, err := TrialFiles(job, trial)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{"agent/agent.log", "artifacts/model.patch", "config.json", "result.json", "verifier/reward.json", "verifier/runs/out.txt"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if cfg := string(files[ConfigFile]); !strings.Contains(cfg, `"provenance": {`) || !strings.Contains(cfg, `"grader": "swesweep/1"`) {
		t.Errorf("config.json lacks the provenance:\n%s", cfg)
	}
	if cfg := string(files[ConfigFile]); strings.Contains(cfg, "regrade_of") {
		t.Errorf("config.json of a trial that ran its agent names a regrade:\n%s", cfg)
	}
	regrade := Trial{Name: "run1-a-1-r1", Task: "a", Attempt: 1, Rewards: map[string]float64{"reward": 1}, RegradeOf: "run1-a-1"}
	regradeFiles, err := TrialFiles(job, regrade)
	if cfg := string(regradeFiles[ConfigFile]); err != nil || !strings.Contains(cfg, `"regrade_of": "run1-a-1"`) || regradeFiles["artifacts/model.patch"] != nil {
		t.Errorf("a regrade's config.json names the trial it regraded and it has no artifacts of its own, got %v:\n%s", err, cfg)
	}
	jobConfig, err := JobConfig(job)
	if err != nil || !strings.Contains(string(jobConfig), `"agent:1": "sha256:aa"`) || !strings.Contains(string(jobConfig), `"exported_by": "sweep-operator"`) ||
		strings.Contains(string(jobConfig), "n_trials") {
		t.Errorf("job config.json = %s, %v; want the images, the writer and no trial count", jobConfig, err)
	}
	all, err := JobFiles(Job{Name: "run1", Trials: []Trial{trial}})
	if err != nil || !bytes.Equal(all[FolderName(trial)+"/"+ResultFile], files[ResultFile]) || all[ConfigFile] == nil {
		t.Errorf("JobFiles: the job's config.json and each trial's files below its folder, got %d files, %v", len(all), err)
	}
	for name, bad := range map[string]Trial{
		"an agent file with a path": {Name: "x", Task: "x", AgentFiles: map[string][]byte{"../log": nil}},
		"an agent file reward.json": {Name: "x", Task: "x", AgentFiles: map[string][]byte{"reward.json": nil}},
	} {
		if _, err := TrialFiles(job, bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The job's config.json records the exclusion list the campaign applied, and says nothing of
// one when it applied none.
func TestJobConfigExclusions(t *testing.T) {
	job := Job{Name: "curated", Agent: "nop", Exclusions: &Exclusions{ConfigMap: "excl", SHA256: "5ef2", TasksExcluded: 1, BugsExcluded: 3,
		ByReason: map[string]ExclusionCount{"flaky": {Bugs: 1}, "trivial": {Tasks: 1, Bugs: 2}}}}
	got, err := JobConfig(job)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Exclusions *Exclusions `json:"exclusions"`
	}
	if err := json.Unmarshal(got, &cfg); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(job.Exclusions, cfg.Exclusions); d != "" {
		t.Errorf("config.json's exclusions (-want +got):\n%s", d)
	}
	if !strings.Contains(string(got), `"by_reason": {`) || !strings.Contains(string(got), `"tasks_excluded": 1`) {
		t.Errorf("config.json = %s", got)
	}
	none, err := JobConfig(Job{Name: "plain"})
	if err != nil || strings.Contains(string(none), "exclusions") {
		t.Errorf("config.json of a campaign without a list = %s, %v", none, err)
	}
}
