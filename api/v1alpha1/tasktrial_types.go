package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TrialImages are the two images of a task. They are checked by the trial controller, so that
// a task without images still gets a trial that says what is missing.
type TrialImages struct {
	// Agent is the task environment the agent works in.
	// +optional
	Agent string `json:"agent"`
	// Verifier holds the hidden tests.
	// +optional
	Verifier string `json:"verifier"`
}

// TaskTrialSpec is an immutable, self-contained snapshot: a trial can be re-run or regraded
// from it alone.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="TaskTrial spec is immutable: delete the trial and create a new one"
type TaskTrialSpec struct {
	// SweepRun is the campaign that created the trial, if any.
	// +optional
	SweepRun string `json:"sweepRun,omitempty"`
	// Task is the task name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Task string `json:"task"`
	// Attempt numbers the trials of one task in a campaign, from 1.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:default=1
	// +optional
	Attempt int32       `json:"attempt"`
	Images  TrialImages `json:"images"`
	// Definition is the task's task.toml, verbatim: workdir, resources, timeouts, network
	// modes, collect hooks and artifact paths are read from it.
	// +kubebuilder:validation:MaxLength=262144
	// +optional
	Definition string `json:"definition"`
	// InstructionConfigMap holds instruction.md, mounted into the agent container.
	// +optional
	InstructionConfigMap string `json:"instructionConfigMap,omitempty"`
	// SolutionConfigMap holds the task's solution; mounted only into oracle trials.
	// +optional
	SolutionConfigMap string `json:"solutionConfigMap,omitempty"`
	// Grader is a built-in grader in the verifier (swesweep, swebench); empty runs /tests/test.sh.
	// +kubebuilder:validation:Enum="";swesweep;swebench
	// +optional
	Grader string `json:"grader,omitempty"`
	// GraderConfigMap holds the built-in grader's input (for swebench: instance.json); mounted
	// only into the verifier, at /sweep/grader.
	// +optional
	GraderConfigMap string    `json:"graderConfigMap,omitempty"`
	Agent           AgentSpec `json:"agent"`
	// Bugs restricts grading to these bug ids; empty grades all.
	// +optional
	// +listType=set
	Bugs []string `json:"bugs,omitempty"`
	// BugsTotal is the task's declared bug count (its ConfigMap's, or the number of Bugs). The
	// trial's counted bugs come from its verifier's result (status.bugsTotal).
	// +kubebuilder:validation:Minimum=0
	// +optional
	BugsTotal int32 `json:"bugsTotal,omitempty"`
	// +kubebuilder:default={}
	// +optional
	RetryPolicy RetryPolicy `json:"retryPolicy"`
	// +optional
	Timeouts *TimeoutPolicy `json:"timeouts,omitempty"`
	// +optional
	Resources *ResourcePolicy `json:"resources,omitempty"`
	// +optional
	Placement Placement `json:"placement,omitempty"`
	// PodSecurity is the run's spec.podSecurity, copied.
	// +optional
	PodSecurity *PodSecurity `json:"podSecurity,omitempty"`
	// Grading is the run's spec.grading, copied.
	// +optional
	Grading *GradingPolicy `json:"grading,omitempty"`
	// +optional
	QueueName string `json:"queueName,omitempty"`
	// WorkloadPriorityClasses is the run's spec.workloadPriorityClasses, copied.
	// +optional
	WorkloadPriorityClasses *WorkloadPriorityClasses `json:"workloadPriorityClasses,omitempty"`
	// RegradeOf names the trial whose stored artifacts this trial grades again (a regrade,
	// `sweep regrade`): its agent stage does not run, its patch is that trial's and its
	// verifier mounts that trial's artifacts Secrets.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	RegradeOf string `json:"regradeOf,omitempty"`
}

// TrialPhase is where a trial is.
// +kubebuilder:validation:Enum=Pending;AgentRunning;Verifying;Succeeded;Failed;Error
type TrialPhase string

const (
	TrialPending      TrialPhase = "Pending"
	TrialAgentRunning TrialPhase = "AgentRunning"
	TrialVerifying    TrialPhase = "Verifying"
	// TrialSucceeded: graded; the score counts.
	TrialSucceeded TrialPhase = "Succeeded"
	// TrialFailed: the verifier produced no measurement; excluded from the score.
	TrialFailed TrialPhase = "Failed"
	// TrialError: infrastructure retries exhausted or invalid input; never scored.
	TrialError TrialPhase = "Error"
)

// Finished reports whether the phase is terminal.
func (p TrialPhase) Finished() bool {
	return p == TrialSucceeded || p == TrialFailed || p == TrialError
}

// Condition types of a TaskTrial.
const (
	TrialAgentCompleted = "AgentCompleted"
	TrialVerified       = "Verified"
	TrialComplete       = "Complete"
	// TrialRecorded: the trial's record is in the artifact store (true), or waits for it
	// (false, reason StoreUnavailable). Only trials with a store carry it.
	TrialRecorded = "Recorded"
	// TrialOfficialVerdictAgrees: a SWE-bench trial's official verdict (the official harness's
	// rules) agrees with its hardened one (true, reason VerdictsAgree) or not (false, reason
	// VerdictsDiffer, the message saying how and why). Only SWE-bench grader trials carry it.
	TrialOfficialVerdictAgrees = "OfficialVerdictAgrees"
	// TrialAdmitted: the current stage's Job runs, admitted by its Kueue queue (true, reason
	// Admitted), or waits for admission (false, reason WaitingForAdmission or QueueEvicted,
	// the message naming the queue). Only trials with spec.queueName carry it.
	TrialAdmitted = "Admitted"
)

// StageStatus records one stage's current Job.
type StageStatus struct {
	JobName string `json:"jobName"`
	// Run numbers the Jobs of this stage (retries create a new Job).
	Run int32 `json:"run"`
	// StartTime is when the controller created the Job.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// ContainerStartTime is when the stage's main container started, from its Pod.
	// +optional
	ContainerStartTime *metav1.Time `json:"containerStartTime,omitempty"`
	// AdmissionTime is when the Job last started, admitted by its queue: its status.startTime
	// as the controller last saw it, set again at each re-admission.
	// +optional
	AdmissionTime *metav1.Time `json:"admissionTime,omitempty"`
	// Evictions counts the times the queue took the Job's admission back (Kueue suspended it
	// again); EvictionTime is the last. The same Job is admitted again: no retry is used.
	// +optional
	Evictions int32 `json:"evictions,omitempty"`
	// +optional
	EvictionTime *metav1.Time `json:"evictionTime,omitempty"`
	// JobFinishTime is when the stage's run ended: its Pod's end when every container of the
	// Pod ended with exit code 0 (the stage is harvested then, before the Pod's Succeeded phase
	// and the Job's Complete condition), else the Job's Complete or Failed condition.
	// +optional
	JobFinishTime *metav1.Time `json:"jobFinishTime,omitempty"`
	// CompletionTime is when the controller recorded the stage's end and its outputs.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// +optional
	ExitCode *int32 `json:"exitCode,omitempty"`
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
}

// PatchStatus describes the patch the agent stage produced.
type PatchStatus struct {
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
	// +optional
	FilesChanged int32 `json:"filesChanged,omitempty"`
	// SecretName stores the harvested artifacts for the verifier.
	SecretName string `json:"secretName"`
}

// AgentUsage is what agents said they spent (docs/task-format.md, the usage file), in
// Harbor's terms. A field no agent reported is absent, which is not 0.
type AgentUsage struct {
	// InputTokens counts the input tokens, the cached ones included (Harbor's n_input_tokens).
	// +kubebuilder:validation:Minimum=0
	// +optional
	InputTokens *int64 `json:"inputTokens,omitempty"`
	// CachedTokens counts the input tokens served from a cache (n_cache_tokens).
	// +kubebuilder:validation:Minimum=0
	// +optional
	CachedTokens *int64 `json:"cachedTokens,omitempty"`
	// OutputTokens counts the generated tokens (n_output_tokens).
	// +kubebuilder:validation:Minimum=0
	// +optional
	OutputTokens *int64 `json:"outputTokens,omitempty"`
	// CostUSD is the cost in US dollars (cost_usd), exact to the nano-dollar.
	// +kubebuilder:validation:Pattern=`^[0-9]+\.[0-9]{2,9}$`
	// +optional
	CostUSD string `json:"costUSD,omitempty"`
}

// TrialUsage is a trial's reported usage.
type TrialUsage struct {
	AgentUsage `json:",inline"`
	// Message says why the agent's usage file was not taken (malformed, a symbolic link, too
	// large), when it was not; the trial went on without it.
	// +optional
	Message string `json:"message,omitempty"`
}

// TaskTrialStatus is the trial's observed state.
type TaskTrialStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +optional
	Phase TrialPhase `json:"phase,omitempty"`
	// Reason is the one reason the trial ended with (docs/design.md §6), or why it is waiting.
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	Agent *StageStatus `json:"agent,omitempty"`
	// +optional
	Verifier *StageStatus `json:"verifier,omitempty"`
	// +optional
	Patch *PatchStatus `json:"patch,omitempty"`
	// Rewards are the verifier's numbers with fixed precision.
	// +optional
	Rewards map[string]string `json:"rewards,omitempty"`
	// +optional
	Score string `json:"score,omitempty"`
	// BugsTotal and BugsResolved are the result's n_subtasks and n_resolved. Both are absent
	// when the result lacks one of reward, n_subtasks, n_resolved and visible_ok (a reward-only
	// task): the campaign's score skips such a trial, as SWE-sweep's scoring does.
	// +optional
	BugsTotal int32 `json:"bugsTotal,omitempty"`
	// +optional
	BugsResolved int32 `json:"bugsResolved,omitempty"`
	// Regressed: a visible test that passed at the base no longer passes (score 0).
	// +optional
	Regressed bool `json:"regressed,omitempty"`
	// GraderFailed: the grader crashed or its result says grader_failed; the trial is not
	// measured (it ends Failed with reason GraderFailed, an evaluation failure of its campaign).
	// +optional
	GraderFailed bool `json:"graderFailed,omitempty"`
	// Usage is what the trial's agent says it spent, from its usage file, summed over the
	// agent stage's runs (an infrastructure retry runs the agent, and pays, again). It is the
	// agent's own claim, never a grade; a regrade runs no agent and reports none.
	// +optional
	Usage *TrialUsage `json:"usage,omitempty"`
	// InfrastructureRetries used so far.
	// +optional
	InfrastructureRetries int32 `json:"infrastructureRetries,omitempty"`
	// VerifierRetries used so far.
	// +optional
	VerifierRetries int32 `json:"verifierRetries,omitempty"`
	// RetryAfter holds the next attempt back until this time.
	// +optional
	RetryAfter *metav1.Time `json:"retryAfter,omitempty"`
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// Record is the trial's folder in the artifact store, once written whole.
	// +optional
	Record *TrialRecordStatus `json:"record,omitempty"`
	// Provenance is what produced the trial's result, as its record keeps it.
	// +optional
	Provenance *Provenance `json:"provenance,omitempty"`
}

// TrialRecordStatus points to a trial's record in the artifact store.
type TrialRecordStatus struct {
	// Store is the store's URL (never with credentials) and Folder the trial folder's key.
	Store  string `json:"store"`
	Folder string `json:"folder"`
	// Files and Bytes of the record.
	Files int32 `json:"files"`
	Bytes int64 `json:"bytes"`
	// StoredTime is when the record was last written whole.
	// +optional
	StoredTime *metav1.Time `json:"storedTime,omitempty"`
}

// Provenance is what produced a trial's result: the images as resolved, the versions of the
// operator and of the grading code, the task's catalogue entry and the agent's configuration
// (without secrets).
type Provenance struct {
	// AgentImage and VerifierImage are the images the stages' Pods ran, as the spec's image
	// @ the digest the node reported: a registry's manifest digest when the node pulled it,
	// else the node's image ID (the config digest of an image imported into the node, which
	// no registry serves: such a reference names the image but cannot be pulled).
	// +optional
	AgentImage string `json:"agentImage,omitempty"`
	// +optional
	VerifierImage string `json:"verifierImage,omitempty"`
	// AgentImageID and VerifierImageID are the image IDs the nodes reported for the stages'
	// main containers (containerStatuses[].imageID), as reported.
	// +optional
	AgentImageID string `json:"agentImageID,omitempty"`
	// +optional
	VerifierImageID string `json:"verifierImageID,omitempty"`
	// HookImage is the sweep-hook image the verifier Pod installed its hook and built-in
	// graders from, @ the digest the node reported for it.
	// +optional
	HookImage string `json:"hookImage,omitempty"`
	// OperatorVersion is the manager's build version.
	// +optional
	OperatorVersion string `json:"operatorVersion,omitempty"`
	// Grader names the grader and its version; Parser the test-output parser and its
	// version; GradingVersion the grading rules (SWE-bench's harness version).
	// +optional
	Grader string `json:"grader,omitempty"`
	// +optional
	Parser string `json:"parser,omitempty"`
	// +optional
	GradingVersion string `json:"gradingVersion,omitempty"`
	// TaskDefinitionSHA256 is the hash of the task's catalogue entry: its ConfigMap's data and
	// eval.sweep.dev/ annotations when the trial was made (annotation eval.sweep.dev/task-sha256).
	// +optional
	TaskDefinitionSHA256 string `json:"taskDefinitionSHA256,omitempty"`
	// Agent is the agent's configuration: kind, image, command, args and env (a value taken
	// from a Secret or ConfigMap by its reference, never its value).
	// +optional
	Agent map[string]string `json:"agent,omitempty"`
	// RegradeOf is the trial whose agent made the artifacts this trial graded again
	// (spec.regradeOf): the agent's images are in that trial's provenance.
	// +optional
	RegradeOf string `json:"regradeOf,omitempty"`
}

// TaskTrial is one task × one attempt.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=trial;tt,categories=sweep
// +kubebuilder:printcolumn:name="Task",type=string,JSONPath=`.spec.task`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Score",type=string,JSONPath=`.status.score`
// +kubebuilder:printcolumn:name="Bugs",type=integer,JSONPath=`.status.bugsResolved`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.reason`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,priority=1
// +kubebuilder:printcolumn:name="Attempt",type=integer,JSONPath=`.spec.attempt`,priority=1
// +kubebuilder:printcolumn:name="Total",type=integer,JSONPath=`.status.bugsTotal`,priority=1
// +kubebuilder:printcolumn:name="Patch",type=integer,JSONPath=`.status.patch.bytes`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type TaskTrial struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TaskTrialSpec `json:"spec"`
	// Status is the trial's observed state. Its default makes a trial the controller has not
	// yet seen read as unobserved (observedGeneration 0), which kstatus takes as InProgress.
	// +kubebuilder:default={observedGeneration: 0}
	Status TaskTrialStatus `json:"status,omitempty"`
}

// TaskTrialList is a list of TaskTrials.
// +kubebuilder:object:root=true
type TaskTrialList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []TaskTrial `json:"items"`
}
