// Package podcontract is the contract between the controller and sweep-hook inside trial Pods:
// the paths both sides use, the stage spec the controller mounts, the summary the collector
// writes as its termination message, and the framed record stream on the collector's stdout.
// Both sides import this package so that they cannot drift apart.
package podcontract

// Paths inside every trial Pod.
const (
	BinDir          = "/sweep/bin"
	HookPath        = BinDir + "/sweep-hook"
	SpecDir         = "/sweep/spec"
	SpecPath        = SpecDir + "/stage.json"
	TaskDir         = "/sweep/task"
	InstructionPath = TaskDir + "/instruction.md"
	RunDir          = "/sweep/run"
	DonePath        = RunDir + "/done"
	// StageLockPath is locked (flock, exclusive) by the main container's sweep-hook from its
	// start until it exits; the collector, which opens it first, waits for it after done, so
	// that it ends with the main container instead of waiting to be stopped.
	StageLockPath = RunDir + "/stage.lock"
	// InputDir holds stage inputs from the trial's Secrets: the patch agent's patch
	// (AgentPatchFile) and, in the verifier, the harvested artifacts under their keys.
	InputDir = "/sweep/input"
	// SolutionDir holds the task's solution, mounted only into oracle trials.
	SolutionDir = "/sweep/solution"
	// TestsDir holds the task's tests: tests/test.sh, or the bundle of a built-in grader.
	TestsDir = "/tests"
	// GraderConfigDir holds the built-in grader's input from the task's grader ConfigMap,
	// mounted only into the verifier.
	GraderConfigDir = "/sweep/grader"
	// AgentBundleDir receives an external agent's bundle from its init container.
	AgentBundleDir = "/sweep/agent"

	ArtifactsDir   = "/logs/artifacts"
	AgentLogDir    = "/logs/agent"
	VerifierLogDir = "/logs/verifier"
	PatchPath      = ArtifactsDir + "/model.patch"

	AgentPatchFile = "agent.patch"
)

// HookUID is the uid and gid the containers that run sweep-hook from its own image (install,
// collector) run as: distroless's "nonroot". It is also the Pod's fsGroup, so that the
// collector can read what the main container writes to the shared emptyDirs with group
// permissions only; the verifier stage gives the run directory and the verifier directory to
// this group alone, so that the test identity (sandbox.Test, no supplementary groups) can
// neither read nor write them.
const HookUID = 65532

// Stage names, also the value of the eval.sweep.dev/stage label.
type Stage string

const (
	StageAgent    Stage = "agent"
	StageVerifier Stage = "verifier"
)

// Built-in graders a verifier may name instead of /tests/test.sh.
const (
	GraderTestScript = ""
	GraderSWESweep   = "swesweep"
	GraderSWEBench   = "swebench"
)

// StageSpec is the JSON document mounted at SpecPath. It carries everything sweep-hook needs
// for one stage; nothing in it is secret (credentials arrive as env from Secrets).
type StageSpec struct {
	Stage   Stage  `json:"stage"`
	Task    string `json:"task"`
	Trial   string `json:"trial"`
	Attempt int32  `json:"attempt"`
	// Workdir is the task's working directory in its image.
	Workdir string `json:"workdir,omitempty"`
	// TimeoutSeconds bounds the agent (agent stage) or the grader (verifier stage).
	TimeoutSeconds float64 `json:"timeoutSeconds"`
	// GraceSeconds is how long a timed-out process tree gets after SIGTERM before SIGKILL.
	GraceSeconds float64           `json:"graceSeconds,omitempty"`
	Env          map[string]string `json:"env,omitempty"`

	// Agent stage.
	Agent   *AgentSpec    `json:"agent,omitempty"`
	Collect []CollectHook `json:"collect,omitempty"`
	// BaseRef is the git ref the default collector diffs against when no hook is declared.
	BaseRef string `json:"baseRef,omitempty"`

	// Artifacts are absolute paths captured after the agent and put back in the verifier.
	Artifacts []Artifact `json:"artifacts,omitempty"`

	// Verifier stage.
	Verifier *VerifierSpec `json:"verifier,omitempty"`

	Limits Limits `json:"limits"`
}

// AgentSpec says which agent runs in the agent stage.
type AgentSpec struct {
	// Kind is an agent kind of internal/agentkind, named as in the API's spec.agent.
	Kind string `json:"kind"`
	// Command and Args are what a kind of run mode agentkind.RunCommand runs in Workdir.
	Command []string          `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// CollectHook is one [[verifier.collect]] entry of the task.
type CollectHook struct {
	Command        string  `json:"command"`
	TimeoutSeconds float64 `json:"timeoutSeconds"`
	User           string  `json:"user,omitempty"`
}

// Artifact names one captured path and the record / Secret key it travels under.
type Artifact struct {
	Path string `json:"path"`
	Key  string `json:"key"`
}

// VerifierSpec says how the verifier grades.
type VerifierSpec struct {
	// Grader is GraderTestScript (run /tests/test.sh) or a built-in grader.
	Grader string `json:"grader,omitempty"`
	// GraderDir is the built-in grader's task bundle directory (for example /tests).
	GraderDir string `json:"graderDir,omitempty"`
	// Bugs restricts grading to a subset of the task's bugs; empty means all.
	Bugs []string `json:"bugs,omitempty"`
	// FlakeRechecks is the trial's spec.grading.flakeRechecks: how many times the built-in
	// grader re-runs a visible regression before it counts (0: off).
	FlakeRechecks int32 `json:"flakeRechecks,omitempty"`
}

// Limits bound what the collector reports, in bytes.
type Limits struct {
	// MaxRecordBytes caps one output before compression; larger outputs are truncated and
	// flagged, except the patch, which is reported as too large instead of truncated.
	MaxRecordBytes int64 `json:"maxRecordBytes"`
	// MaxStreamBytes caps the whole compressed stream.
	MaxStreamBytes int64 `json:"maxStreamBytes"`
	// MaxLogBytes caps the merged stdout/stderr kept in the log directories.
	MaxLogBytes int64 `json:"maxLogBytes"`
}

// MaxSummaryBytes is the size of a termination message the kubelet keeps.
const MaxSummaryBytes = 4096
