package harborjob

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// Job is a campaign to write in Harbor's layout.
type Job struct {
	Name   string
	Agent  string
	Trials []Trial
}

// Trial is one trial's results. Rewards is nil when the trial was not measured; then
// Exception says why.
type Trial struct {
	// Name is the trial's own name (the TaskTrial), kept in result.json.
	Name    string
	Task    string
	Attempt int
	Rewards map[string]float64
	// RewardJSON is verifier/reward.json: the verifier's own, verbatim, when it left one.
	RewardJSON []byte
	// VerifierFiles are the verifier's other files (eval.json, test-stdout.txt, ...) by path
	// below verifier/, slash-separated, written byte for byte; VerifierPath says which paths
	// may be.
	VerifierFiles map[string][]byte
	// Artifacts are the harvested artifacts by file name (model.patch).
	Artifacts map[string][]byte
	Exception *Exception
	Started   time.Time
	Finished  time.Time
	Agent     Phase
	Verifier  Phase
}

// Phase is one timed phase of result.json.
type Phase struct {
	Started, Finished time.Time
}

// Exception is result.json's exception_info.
type Exception struct {
	Type    string `json:"exception_type"`
	Message string `json:"exception_message"`
}

// FolderName is Harbor's `<task[:32]>__<id>`, with an id derived from the trial's name so that
// a repeated export writes the same folders.
func FolderName(t Trial) string {
	task := t.Task
	if len(task) > 32 {
		task = task[:32]
	}
	sum := sha256.Sum256([]byte(t.Name))
	return task + "__" + hex.EncodeToString(sum[:])[:7]
}

type jobConfig struct {
	JobName  string `json:"job_name"`
	Agent    string `json:"agent"`
	NTrials  int    `json:"n_trials"`
	Exporter string `json:"exported_by"`
}

type trialConfig struct {
	TrialName string         `json:"trial_name"`
	JobName   string         `json:"job_name"`
	Task      map[string]any `json:"task"`
	Agent     map[string]any `json:"agent"`
}

type timing struct {
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
}

type verifierResult struct {
	Rewards map[string]float64 `json:"rewards"`
}

type trialResult struct {
	TaskName       string          `json:"task_name"`
	TrialName      string          `json:"trial_name"`
	Source         string          `json:"source"`
	VerifierResult *verifierResult `json:"verifier_result"`
	ExceptionInfo  *Exception      `json:"exception_info"`
	StartedAt      *time.Time      `json:"started_at"`
	FinishedAt     *time.Time      `json:"finished_at"`
	EnvSetup       *timing         `json:"environment_setup"`
	AgentSetup     *timing         `json:"agent_setup"`
	AgentExecution *timing         `json:"agent_execution"`
	Verifier       *timing         `json:"verifier"`
}

// Write writes job into dir (the job folder): dir/config.json and one folder per trial.
// Existing files are overwritten; other files are left alone.
func Write(dir string, job Job) error {
	if err := writeJSON(filepath.Join(dir, ConfigFile), jobConfig{JobName: job.Name, Agent: job.Agent, NTrials: len(job.Trials), Exporter: "sweep export"}); err != nil {
		return err
	}
	for _, t := range job.Trials {
		if err := writeTrial(filepath.Join(dir, FolderName(t)), job, t); err != nil {
			return err
		}
	}
	return nil
}

func writeTrial(dir string, job Job, t Trial) error {
	cfg := trialConfig{
		TrialName: t.Name, JobName: job.Name,
		// Harbor tools take the task's name from the basename of task.path.
		Task:  map[string]any{"path": "tasks/" + t.Task},
		Agent: map[string]any{"name": job.Agent, "attempt": t.Attempt},
	}
	if err := writeJSON(filepath.Join(dir, ConfigFile), cfg); err != nil {
		return err
	}
	res := trialResult{TaskName: t.Task, TrialName: t.Name, Source: job.Name, ExceptionInfo: t.Exception,
		StartedAt: timePtr(t.Started), FinishedAt: timePtr(t.Finished),
		AgentExecution: phase(t.Agent), Verifier: phase(t.Verifier)}
	if t.Rewards != nil {
		res.VerifierResult = &verifierResult{Rewards: t.Rewards}
	}
	if err := writeJSON(filepath.Join(dir, ResultFile), res); err != nil {
		return err
	}
	rewardJSON := t.RewardJSON
	if rewardJSON == nil && t.Rewards != nil {
		var err error
		if rewardJSON, err = reward.Encode(t.Rewards); err != nil {
			return fmt.Errorf("trial %s: %w", t.Name, err)
		}
	}
	files := map[string][]byte{}
	if rewardJSON != nil {
		files[filepath.Join(VerifierDir, reward.FileJSON)] = rewardJSON
	}
	for rel, data := range t.VerifierFiles {
		path, err := VerifierPath(rel)
		if err != nil {
			return fmt.Errorf("trial %s: %w", t.Name, err)
		}
		files[path] = data
	}
	for name, data := range t.Artifacts {
		if filepath.Base(name) != name || name == "." || name == ".." {
			return fmt.Errorf("trial %s: artifact name %q is not a plain file name", t.Name, name)
		}
		if name == reward.FileJSON {
			// SWE-sweep's scoring reads every reward.json below a job: artifacts/reward.json
			// would count as a second result of the trial.
			return fmt.Errorf("trial %s: artifact %q would be read as a result of the trial by SWE-sweep's scoring: rename the artifact in the task's artifacts list", t.Name, name)
		}
		files[filepath.Join(ArtifactsDir, name)] = data
	}
	for _, sub := range []string{"agent", VerifierDir, ArtifactsDir} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// VerifierPath is where the verifier's file at rel (a path below /logs/verifier, which code
// under test may have named) goes in a trial folder, or why it may not go there: a path that
// is not plainly relative would leave verifier/, and a reward.json at any depth would be read
// by SWE-sweep's scoring as another result of the trial. verifier/reward.json itself is the
// trial's RewardJSON, not one of its VerifierFiles.
func VerifierPath(rel string) (string, error) {
	if why := podcontract.ValidVerifierPath(rel); why != "" {
		return "", fmt.Errorf("verifier file %q not written: %s", rel, why)
	}
	if path.Base(rel) == reward.FileJSON {
		return "", fmt.Errorf("verifier file %q not written: SWE-sweep's scoring reads every %s below a job, and would count it as another result of the trial", rel, reward.FileJSON)
	}
	return filepath.Join(VerifierDir, filepath.FromSlash(rel)), nil
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

func phase(p Phase) *timing {
	if p.Started.IsZero() && p.Finished.IsZero() {
		return nil
	}
	return &timing{StartedAt: timePtr(p.Started), FinishedAt: timePtr(p.Finished)}
}

func writeJSON(file string, v any) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}
