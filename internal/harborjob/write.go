package harborjob

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// Job is a campaign to write in Harbor's layout.
type Job struct {
	Name  string
	Agent string
	// Writer names what wrote the folder: `sweep export`, or the operator for its store.
	Writer string
	// Images are the image references the campaign pinned and the digests they resolved to.
	Images map[string]string
	// Exclusions is the exclusion list the campaign applied; nil when none.
	Exclusions *Exclusions
	Trials     []Trial
}

// Exclusions records the exclusion list a campaign applied in its job's config.json: the
// ConfigMap it came from, the digest of its bytes, and what it left out of the score, by
// reason (tasks and bugs).
type Exclusions struct {
	ConfigMap     string                    `json:"configmap"`
	SHA256        string                    `json:"sha256"`
	TasksExcluded int                       `json:"tasks_excluded"`
	BugsExcluded  int                       `json:"bugs_excluded"`
	ByReason      map[string]ExclusionCount `json:"by_reason"`
}

// ExclusionCount is how many tasks and bugs a list left out for one reason.
type ExclusionCount struct {
	Tasks int `json:"tasks"`
	Bugs  int `json:"bugs"`
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
	// AgentFiles are the agent stage's files by file name below agent/ (agent.log).
	AgentFiles map[string][]byte
	// Provenance is config.json's "provenance": what produced the result, as JSON.
	Provenance json.RawMessage
	// RegradeOf is config.json's "regrade_of": the trial whose artifacts this one graded
	// again (its agent did not run; its agent files and artifacts are in that trial's folder).
	RegradeOf string
	// Usage is result.json's "agent_result": what the agent said it spent (Harbor's
	// AgentContext fields), nil when it reported nothing (a regrade's agent did not run).
	Usage     *usage.Usage
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
	JobName string `json:"job_name"`
	Agent   string `json:"agent"`
	// NTrials is left out of the store's job folder, which is written before its trials.
	NTrials    int               `json:"n_trials,omitempty"`
	Exporter   string            `json:"exported_by"`
	Images     map[string]string `json:"images,omitempty"`
	Exclusions *Exclusions       `json:"exclusions,omitempty"`
}

type trialConfig struct {
	TrialName  string          `json:"trial_name"`
	JobName    string          `json:"job_name"`
	Task       map[string]any  `json:"task"`
	Agent      map[string]any  `json:"agent"`
	Provenance json.RawMessage `json:"provenance,omitempty"`
	RegradeOf  string          `json:"regrade_of,omitempty"`
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
	AgentResult    *usage.Usage    `json:"agent_result"`
	VerifierResult *verifierResult `json:"verifier_result"`
	ExceptionInfo  *Exception      `json:"exception_info"`
	StartedAt      *time.Time      `json:"started_at"`
	FinishedAt     *time.Time      `json:"finished_at"`
	EnvSetup       *timing         `json:"environment_setup"`
	AgentSetup     *timing         `json:"agent_setup"`
	AgentExecution *timing         `json:"agent_execution"`
	Verifier       *timing         `json:"verifier"`
}

// Write writes job into dir (the job folder): dir/config.json and one folder per trial, each
// with its agent/, verifier/ and artifacts/ directories. Existing files are overwritten; other
// files are left alone.
func Write(dir string, job Job) error {
	files, err := JobFiles(job)
	if err != nil {
		return err
	}
	for _, t := range job.Trials {
		for _, sub := range []string{AgentDir, VerifierDir, ArtifactsDir} {
			if err := os.MkdirAll(filepath.Join(dir, FolderName(t), sub), 0o755); err != nil {
				return err
			}
		}
	}
	for name, data := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// JobFiles are the files of job's folder by slash path below it: config.json and every
// trial's files below its FolderName.
func JobFiles(job Job) (map[string][]byte, error) {
	files := map[string][]byte{}
	var err error
	if files[ConfigFile], err = JobConfig(job); err != nil {
		return nil, err
	}
	for _, t := range job.Trials {
		trial, err := TrialFiles(job, t)
		if err != nil {
			return nil, err
		}
		for name, data := range trial {
			files[FolderName(t)+"/"+name] = data
		}
	}
	return files, nil
}

// JobConfig is the job folder's config.json.
func JobConfig(job Job) ([]byte, error) {
	writer := job.Writer
	if writer == "" {
		writer = "sweep export"
	}
	return encodeJSON(jobConfig{JobName: job.Name, Agent: job.Agent, NTrials: len(job.Trials), Exporter: writer, Images: job.Images, Exclusions: job.Exclusions})
}

// TrialFiles are the files of t's trial folder by slash path below it: config.json,
// result.json (ResultFile, which a writer puts last), verifier/, artifacts/ and agent/.
func TrialFiles(job Job, t Trial) (map[string][]byte, error) {
	files := map[string][]byte{}
	cfg := trialConfig{
		TrialName: t.Name, JobName: job.Name,
		// Harbor tools take the task's name from the basename of task.path.
		Task:       map[string]any{"path": "tasks/" + t.Task},
		Agent:      map[string]any{"name": job.Agent, "attempt": t.Attempt},
		Provenance: t.Provenance,
		RegradeOf:  t.RegradeOf,
	}
	var err error
	if files[ConfigFile], err = encodeJSON(cfg); err != nil {
		return nil, fmt.Errorf("trial %s: %w", t.Name, err)
	}
	res := trialResult{TaskName: t.Task, TrialName: t.Name, Source: job.Name, AgentResult: t.Usage, ExceptionInfo: t.Exception,
		StartedAt: timePtr(t.Started), FinishedAt: timePtr(t.Finished),
		AgentExecution: phase(t.Agent), Verifier: phase(t.Verifier)}
	if t.Rewards != nil {
		res.VerifierResult = &verifierResult{Rewards: t.Rewards}
	}
	if files[ResultFile], err = encodeJSON(res); err != nil {
		return nil, fmt.Errorf("trial %s: %w", t.Name, err)
	}
	rewardJSON := t.RewardJSON
	if rewardJSON == nil && t.Rewards != nil {
		if rewardJSON, err = reward.Encode(t.Rewards); err != nil {
			return nil, fmt.Errorf("trial %s: %w", t.Name, err)
		}
	}
	if rewardJSON != nil {
		files[VerifierDir+"/"+reward.FileJSON] = rewardJSON
	}
	for rel, data := range t.VerifierFiles {
		p, err := VerifierPath(rel)
		if err != nil {
			return nil, fmt.Errorf("trial %s: %w", t.Name, err)
		}
		files[p] = data
	}
	agent, err := AgentFiles(t)
	if err != nil {
		return nil, err
	}
	maps.Copy(files, agent)
	return files, nil
}

// AgentFiles are the files of t's trial folder that the agent stage produced, by slash path
// below it: artifacts/ and agent/. The operator writes them to its store at the agent's
// harvest, before the verifier runs.
func AgentFiles(t Trial) (map[string][]byte, error) {
	files := map[string][]byte{}
	for name, data := range t.Artifacts {
		if err := plainName(name); err != nil {
			return nil, fmt.Errorf("trial %s: artifact %w", t.Name, err)
		}
		if name == reward.FileJSON {
			// SWE-sweep's scoring reads every reward.json below a job: artifacts/reward.json
			// would count as a second result of the trial.
			return nil, fmt.Errorf("trial %s: artifact %q would be read as a result of the trial by SWE-sweep's scoring: rename the artifact in the task's artifacts list", t.Name, name)
		}
		files[ArtifactsDir+"/"+name] = data
	}
	for name, data := range t.AgentFiles {
		if err := plainName(name); err != nil {
			return nil, fmt.Errorf("trial %s: agent file %w", t.Name, err)
		}
		if name == reward.FileJSON {
			return nil, fmt.Errorf("trial %s: agent file %q would be read as a result of the trial by SWE-sweep's scoring", t.Name, name)
		}
		files[AgentDir+"/"+name] = data
	}
	return files, nil
}

func plainName(name string) error {
	if path.Base(name) != name || name == "." || name == ".." || strings.Contains(name, "\\") {
		return fmt.Errorf("name %q is not a plain file name", name)
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
	return VerifierDir + "/" + rel, nil
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

func encodeJSON(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
