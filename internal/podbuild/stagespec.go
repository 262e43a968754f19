// Package podbuild turns a TaskTrial and its parsed task into the objects of one stage: the
// stage spec sweep-hook reads, the batch/v1 Job, and the NetworkPolicy. Pure functions only.
package podbuild

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// DefaultBaseRef is the tag SWE-sweep images put on the repository's base commit.
const DefaultBaseRef = "baseline"

// GraceSeconds is how long a timed-out process tree gets between SIGTERM and SIGKILL.
const GraceSeconds = 10

// ArtifactKey names the record and Secret key an artifact path travels under: the path's
// base name, made unique by its index when two share one.
func ArtifactKey(artifacts []taskdef.Artifact, i int) string {
	base := path.Base(artifacts[i].Source)
	for j := range i {
		if path.Base(artifacts[j].Source) == base {
			return strconv.Itoa(i) + "-" + base
		}
	}
	return base
}

func contractArtifacts(task *taskdef.Task) []podcontract.Artifact {
	out := make([]podcontract.Artifact, len(task.Artifacts))
	for i, a := range task.Artifacts {
		out[i] = podcontract.Artifact{Path: a.Source, Key: ArtifactKey(task.Artifacts, i)}
	}
	return out
}

// Timeouts are a stage's limits in seconds after the run's multipliers.
type Timeouts struct {
	Agent, Verifier float64
}

// StageTimeouts applies the trial's multipliers to the task's timeouts.
func StageTimeouts(trial *evalv1.TaskTrial, task *taskdef.Task) (Timeouts, error) {
	agentMul, verifierMul := 1.0, 1.0
	if p := trial.Spec.Timeouts; p != nil {
		var err error
		if agentMul, err = multiplier(p.AgentMultiplier, "spec.timeouts.agentMultiplier"); err != nil {
			return Timeouts{}, err
		}
		if verifierMul, err = multiplier(p.VerifierMultiplier, "spec.timeouts.verifierMultiplier"); err != nil {
			return Timeouts{}, err
		}
	}
	return Timeouts{Agent: task.Agent.TimeoutSec * agentMul, Verifier: task.Verifier.TimeoutSec * verifierMul}, nil
}

func multiplier(s, field string) (float64, error) {
	if s == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%s: want a positive decimal such as \"1.5\", got %q", field, s)
	}
	return f, nil
}

// StageSpec is the stage spec of stage as its Job carries it (JobInput.StageSpec).
func StageSpec(trial *evalv1.TaskTrial, task *taskdef.Task, stage podcontract.Stage, timeouts Timeouts) ([]byte, error) {
	spec := AgentStageSpec(trial, task, timeouts)
	if stage == podcontract.StageVerifier {
		var err error
		if spec, err = VerifierStageSpec(trial, task, timeouts); err != nil {
			return nil, err
		}
	}
	return json.Marshal(spec)
}

// AgentStageSpec is the stage spec of the agent stage.
func AgentStageSpec(trial *evalv1.TaskTrial, task *taskdef.Task, timeouts Timeouts) podcontract.StageSpec {
	spec := baseSpec(trial, task, podcontract.StageAgent)
	spec.TimeoutSeconds = timeouts.Agent
	spec.Env = task.Environment.Env
	spec.BaseRef = DefaultBaseRef
	spec.Agent = agentStageSpec(trial.Spec.Agent)
	for _, h := range task.Collect {
		spec.Collect = append(spec.Collect, podcontract.CollectHook{Command: h.Command, TimeoutSeconds: h.TimeoutSec, User: h.User})
	}
	return spec
}

// VerifierStageSpec is the stage spec of the verifier stage. The grader must be known
// (grading.Lookup); the controller checks it before building anything.
func VerifierStageSpec(trial *evalv1.TaskTrial, task *taskdef.Task, timeouts Timeouts) (podcontract.StageSpec, error) {
	grader, err := grading.Lookup(trial.Spec.Grader)
	if err != nil {
		return podcontract.StageSpec{}, fmt.Errorf("spec.grader: %w", err)
	}
	spec := baseSpec(trial, task, podcontract.StageVerifier)
	spec.TimeoutSeconds = timeouts.Verifier
	spec.Env = task.Verifier.Env
	spec.Verifier = &podcontract.VerifierSpec{Grader: trial.Spec.Grader, Bugs: trial.Spec.Bugs,
		GraderDir: grading.InputDir(grader, trial.Spec.GraderConfigMap != ""), FlakeRechecks: trial.Spec.Grading.Rechecks()}
	return spec, nil
}

func baseSpec(trial *evalv1.TaskTrial, task *taskdef.Task, stage podcontract.Stage) podcontract.StageSpec {
	return podcontract.StageSpec{
		Stage:        stage,
		Task:         trial.Spec.Task,
		Trial:        trial.Name,
		Attempt:      trial.Spec.Attempt,
		Workdir:      task.Environment.Workdir,
		GraceSeconds: GraceSeconds,
		Artifacts:    contractArtifacts(task),
		Limits:       podcontract.DefaultLimits(),
	}
}
