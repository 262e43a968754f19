package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TaskSelection picks task ConfigMaps (labelled eval.sweep.dev/task) in the SweepRun's namespace.
// +kubebuilder:validation:XValidation:rule="has(self.names) || has(self.selector)",message="select tasks by names, by selector, or both"
type TaskSelection struct {
	// Names are task names (the eval.sweep.dev/task label value).
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=10000
	// +kubebuilder:validation:items:MaxLength=63
	Names []string `json:"names,omitempty"`
	// Selector is a label selector over task ConfigMaps.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Bugs restricts grading to these bug ids, per task name.
	// +optional
	Bugs map[string][]string `json:"bugs,omitempty"`
	// Exclusions applies a catalogue's exclusion list: the bugs and tasks it lists are left
	// out of the campaign and of its score's denominator.
	// +optional
	Exclusions *TaskExclusions `json:"exclusions,omitempty"`
}

// TaskExclusions names the exclusion list a campaign applies.
type TaskExclusions struct {
	// ConfigMapName is a ConfigMap in the SweepRun's namespace holding the list (format
	// sweep-exclusions/1) under the key exclusions.json. The controller copies it when the
	// campaign creates its first trial, so that later edits do not change the campaign.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	ConfigMapName string `json:"configMapName"`
}

// SweepRunSpec is one campaign.
// +kubebuilder:validation:XValidation:rule="self.tasks == oldSelf.tasks",message="spec.tasks is immutable: create a new SweepRun to change the task selection"
// +kubebuilder:validation:XValidation:rule="self.agent == oldSelf.agent",message="spec.agent is immutable: create a new SweepRun to change the agent"
// +kubebuilder:validation:XValidation:rule="self.attempts == oldSelf.attempts",message="spec.attempts is immutable: create a new SweepRun to change the attempts"
// +kubebuilder:validation:XValidation:rule="has(self.timeouts) == has(oldSelf.timeouts) && (!has(self.timeouts) || self.timeouts == oldSelf.timeouts)",message="spec.timeouts is immutable: create a new SweepRun to change the timeouts"
// +kubebuilder:validation:XValidation:rule="has(self.resources) == has(oldSelf.resources) && (!has(self.resources) || self.resources == oldSelf.resources)",message="spec.resources is immutable: create a new SweepRun to change the resources"
// +kubebuilder:validation:XValidation:rule="has(self.artifactStore) == has(oldSelf.artifactStore) && (!has(self.artifactStore) || self.artifactStore == oldSelf.artifactStore)",message="spec.artifactStore is immutable: a campaign's records stay in one store; create a new SweepRun to use another"
// +kubebuilder:validation:XValidation:rule="has(self.podSecurity) == has(oldSelf.podSecurity) && (!has(self.podSecurity) || self.podSecurity == oldSelf.podSecurity)",message="spec.podSecurity is immutable: create a new SweepRun to change the pod security"
// +kubebuilder:validation:XValidation:rule="has(self.grading) == has(oldSelf.grading) && (!has(self.grading) || self.grading == oldSelf.grading)",message="spec.grading is immutable: a campaign's trials are graded by one rule; create a new SweepRun to change it"
// +kubebuilder:validation:XValidation:rule="!has(self.workloadPriorityClasses) || (has(self.queueName) && size(self.queueName) > 0)",message="spec.workloadPriorityClasses needs spec.queueName: Kueue reads a Job's priority class only when it queues the Job; set spec.queueName to a LocalQueue or remove spec.workloadPriorityClasses"
type SweepRunSpec struct {
	Tasks TaskSelection `json:"tasks"`
	Agent AgentSpec     `json:"agent"`
	// Attempts is the number of trials per task.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	Attempts int32 `json:"attempts"`
	// Parallelism is the most unfinished trials at once.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000
	// +optional
	Parallelism int32 `json:"parallelism"`
	// +kubebuilder:default={}
	// +optional
	RetryPolicy RetryPolicy `json:"retryPolicy"`
	// Budget bounds what the campaign may spend; once a limit is reached no new trial starts.
	// +optional
	Budget *BudgetPolicy `json:"budget,omitempty"`
	// Guard suspends a campaign that only fails on infrastructure.
	// +kubebuilder:default={}
	// +optional
	Guard *GuardPolicy `json:"guard,omitempty"`
	// +optional
	Timeouts *TimeoutPolicy `json:"timeouts,omitempty"`
	// +optional
	Resources *ResourcePolicy `json:"resources,omitempty"`
	// +optional
	Placement Placement `json:"placement,omitempty"`
	// PodSecurity sets the user and extra capabilities of the trials' main containers; unset
	// runs them as their image's user with the default capabilities.
	// +optional
	PodSecurity *PodSecurity `json:"podSecurity,omitempty"`
	// Grading sets options of the built-in grader, copied into every trial.
	// +optional
	Grading *GradingPolicy `json:"grading,omitempty"`
	// QueueName is the Kueue LocalQueue the trial Jobs are submitted to (docs/kueue.md): each
	// stage's Job is created suspended with the label kueue.x-k8s.io/queue-name and runs once
	// the queue admits it. Time waiting for admission, and an eviction by the queue, are not
	// the trial's: never timed, scored or retried.
	// +optional
	QueueName string `json:"queueName,omitempty"`
	// WorkloadPriorityClasses are the Kueue WorkloadPriorityClasses of the stages' Jobs
	// (label kueue.x-k8s.io/priority-class), for example a verifier above the agent so that a
	// trial whose agent already ran is graded before new agents start. Needs queueName.
	// +optional
	WorkloadPriorityClasses *WorkloadPriorityClasses `json:"workloadPriorityClasses,omitempty"`
	// Suspend stops creating trials; running trials finish.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
	// TTLSecondsAfterFinished deletes the campaign's TaskTrials (their Jobs, Pods and result
	// Secrets with them) this long after it finished. The SweepRun stays, with its summary in
	// status (score, counts, status.record) and status.trialsDeletedTime, so a GitOps tool
	// that keeps it applied finds it finished and never recreates and reruns it; the records in
	// the artifact store stay too. Delete the SweepRun itself to remove it.
	// +kubebuilder:validation:Minimum=0
	// +optional
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// ArtifactStore is where the campaign's records go; unset uses the operator's default
	// store (its --artifact-store).
	// +optional
	ArtifactStore *ArtifactStore `json:"artifactStore,omitempty"`
}

// ArtifactStore names a bucket for a campaign's records. Only the manager writes it, with its
// own credentials (its environment, filled from the optional Secret sweep-operator-store, or
// the cloud's workload identity): the manager reads no Secret, and trial Pods never hold
// store credentials.
type ArtifactStore struct {
	// URL of the bucket and an optional key prefix: s3://BUCKET/PREFIX?region=R (any
	// S3-compatible server with endpoint=URL&use_path_style=true), gs://BUCKET/PREFIX or
	// azblob://CONTAINER/PREFIX. file:// is the operator's own default store only.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Pattern=`^(s3|gs|azblob)://`
	URL string `json:"url"`
}

// Condition types of a SweepRun.
const (
	SweepRunComplete    = "Complete"
	SweepRunFailed      = "Failed"
	SweepRunSuspended   = "Suspended"
	SweepRunProgressing = "Progressing"
)

// WorkloadPriorityClasses names a Kueue WorkloadPriorityClass per stage; an empty one leaves
// the stage's Job at the queue's default priority.
type WorkloadPriorityClasses struct {
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Agent string `json:"agent,omitempty"`
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Verifier string `json:"verifier,omitempty"`
}

// SweepRunPhase summarises the conditions for printing.
// +kubebuilder:validation:Enum=Pending;Running;Suspended;Succeeded;Failed
type SweepRunPhase string

const (
	SweepRunPending   SweepRunPhase = "Pending"
	SweepRunRunning   SweepRunPhase = "Running"
	SweepRunSuspend   SweepRunPhase = "Suspended"
	SweepRunSucceeded SweepRunPhase = "Succeeded"
	SweepRunFailedPh  SweepRunPhase = "Failed"
)

// TrialCounts counts a campaign's trials by phase.
type TrialCounts struct {
	// Total is tasks × attempts, known once the tasks are selected.
	Total     int32 `json:"total"`
	Created   int32 `json:"created"`
	Pending   int32 `json:"pending"`
	Running   int32 `json:"running"`
	Verifying int32 `json:"verifying"`
	Succeeded int32 `json:"succeeded"`
	Failed    int32 `json:"failed"`
	Error     int32 `json:"error"`
	// Queued counts the running or verifying trials whose current stage's Job waits for its
	// Kueue queue to admit it (first admission or after an eviction): their Admitted
	// condition is false.
	// +optional
	Queued int32 `json:"queued,omitempty"`
}

// SweepRunStatus holds counters and aggregates only: never one entry per trial.
type SweepRunStatus struct {
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// TrialsDeletedTime is when spec.ttlSecondsAfterFinished deleted the campaign's trials;
	// the status above stays as it was at completion, and nothing reruns or regrades after it.
	// +optional
	TrialsDeletedTime *metav1.Time `json:"trialsDeletedTime,omitempty"`
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// +optional
	Phase SweepRunPhase `json:"phase,omitempty"`
	// Progress is "finished/total" trials, for printing.
	// +optional
	Progress string `json:"progress,omitempty"`
	// +optional
	Tasks int32 `json:"tasks,omitempty"`
	// +optional
	Trials TrialCounts `json:"trials,omitempty"`
	// GradedTrials were scored; EvaluationFailures ended without a measurement.
	// +optional
	GradedTrials int32 `json:"gradedTrials,omitempty"`
	// +optional
	EvaluationFailures int32 `json:"evaluationFailures,omitempty"`
	// BugsTotal is Σ bugs over graded tasks; BugsResolved Σ over tasks of the mean resolved
	// bugs over the task's trials, regressions counted as 0 (fixed precision).
	// +optional
	BugsTotal int32 `json:"bugsTotal,omitempty"`
	// +optional
	BugsResolved string `json:"bugsResolved,omitempty"`
	// Score is SWE-sweep's micro-average: BugsResolved / BugsTotal.
	// +optional
	Score string `json:"score,omitempty"`
	// +optional
	ScoreIgnoringRegressions string `json:"scoreIgnoringRegressions,omitempty"`
	// +optional
	MeanReward string `json:"meanReward,omitempty"`
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
	// Retry is the last retry request (annotation eval.sweep.dev/retry) the controller handled.
	// +optional
	Retry *RetryStatus `json:"retry,omitempty"`
	// Usage is what the campaign's agents said they spent: the sums of status.usage over every
	// trial that ran an agent, those a retry superseded included (they were paid for).
	// +optional
	Usage *UsageTotals `json:"usage,omitempty"`
	// Budget is set once a limit of spec.budget stopped the campaign from starting trials.
	// +optional
	Budget *BudgetStatus `json:"budget,omitempty"`
	// Guard is set once spec.guard suspended the campaign, and says why and whether a resume
	// (annotation eval.sweep.dev/resume) released it.
	// +optional
	Guard *GuardStatus `json:"guard,omitempty"`
	// Regrade is the last regrade request (annotation eval.sweep.dev/regrade) the controller
	// handled; its reasons are empty.
	// +optional
	Regrade *RetryStatus `json:"regrade,omitempty"`
	// Record is the campaign's job folder in the artifact store.
	// +optional
	Record *JobRecordStatus `json:"record,omitempty"`
	// Images are the digests the campaign's image references resolved to, once, and pinned
	// for all its trials.
	// +optional
	// +listType=map
	// +listMapKey=image
	Images []PinnedImage `json:"images,omitempty"`
	// Exclusions is what spec.tasks.exclusions left out of the campaign.
	// +optional
	Exclusions *ExclusionsStatus `json:"exclusions,omitempty"`
}

// ExclusionsStatus is the exclusion list a campaign applied and what it left out. The list
// itself is in Snapshot, not here: a list over 10,000 tasks would not fit a status.
type ExclusionsStatus struct {
	// ConfigMapName is spec.tasks.exclusions.configMapName.
	ConfigMapName string `json:"configMapName"`
	// Snapshot is the immutable copy of the list the campaign applies, a ConfigMap the
	// SweepRun owns, made when it created its first trial; empty until then.
	// +optional
	Snapshot string `json:"snapshot,omitempty"`
	// SHA256 is the digest of the list's bytes (key exclusions.json).
	SHA256 string `json:"sha256"`
	// TasksExcluded are the selected tasks left out whole (a whole-task entry, or every bug
	// graded excluded); BugsExcluded the bugs the score's denominator no longer counts, those
	// of the tasks left out whole included.
	TasksExcluded int32 `json:"tasksExcluded"`
	BugsExcluded  int32 `json:"bugsExcluded"`
	// ByReason counts them by the list's reasons (broken, trivial, flaky, listed): a bug under
	// its entry's reason, a task left out whole under its entry's, or, when every bug of it was
	// excluded, under the reason most of them have.
	// +optional
	// +listType=map
	// +listMapKey=reason
	ByReason []ExclusionCount `json:"byReason,omitempty"`
}

// ExclusionCount is how many tasks and bugs an exclusion list left out for one reason.
type ExclusionCount struct {
	Reason string `json:"reason"`
	Tasks  int32  `json:"tasks"`
	Bugs   int32  `json:"bugs"`
}

// JobRecordStatus is a campaign's job folder in the artifact store.
type JobRecordStatus struct {
	// Store is the store's URL (never with credentials) and Folder the job folder's key in
	// it: `sweep info STORE/FOLDER` scores the campaign from the store.
	Store  string `json:"store"`
	Folder string `json:"folder"`
	// Trials recorded so far.
	// +optional
	Trials int32 `json:"trials,omitempty"`
}

// PinnedImage is an image reference and the digest it resolved to for a campaign.
type PinnedImage struct {
	Image string `json:"image"`
	// Digest is sha256:... of the image as the node resolved it.
	Digest string `json:"digest"`
	// Reference is what the campaign's later Pods run: the node's registry reference by
	// digest (name@sha256:...) when it reported one. Empty for an image imported into the
	// node (its image ID is no registry digest, and a digest reference would not find it):
	// Pods run Image, and one reporting another digest fails as ImageDigestMismatch.
	// +optional
	Reference string `json:"reference,omitempty"`
}

// RetryStatus records a handled retry or regrade request, so that each request reruns trials
// once and a manifest applied again with the same annotation changes nothing.
type RetryStatus struct {
	// Token is the request annotation's value handled (eval.sweep.dev/retry or
	// eval.sweep.dev/regrade).
	Token string `json:"token"`
	// HandledAt is when the controller handled it.
	// +optional
	HandledAt *metav1.Time `json:"handledAt,omitempty"`
	// Reasons are the trial reasons the request reran.
	// +optional
	// +listType=atomic
	Reasons []string `json:"reasons,omitempty"`
	// Trials is the number of trials the request reran (or regraded).
	// +optional
	Trials int32 `json:"trials,omitempty"`
	// Message says what the request did, or why it reran nothing.
	// +optional
	Message string `json:"message,omitempty"`
}

// SweepRun is a campaign: tasks × attempts of one agent.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=sr,categories=sweep
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Trials",type=string,JSONPath=`.status.progress`
// +kubebuilder:printcolumn:name="Score",type=string,JSONPath=`.status.score`
// +kubebuilder:printcolumn:name="Resolved",type=string,JSONPath=`.status.bugsResolved`
// +kubebuilder:printcolumn:name="Bugs",type=integer,JSONPath=`.status.bugsTotal`,priority=1
// +kubebuilder:printcolumn:name="Failures",type=integer,JSONPath=`.status.evaluationFailures`,priority=1
// +kubebuilder:printcolumn:name="Excluded",type=integer,JSONPath=`.status.exclusions.bugsExcluded`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type SweepRun struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SweepRunSpec `json:"spec"`
	// Status holds counters and aggregates only: never one entry per trial. Its default makes
	// a SweepRun the controller has not yet seen read as unobserved (observedGeneration 0),
	// which kstatus takes as InProgress rather than Current.
	// +kubebuilder:default={observedGeneration: 0}
	Status SweepRunStatus `json:"status,omitempty"`
}

// SweepRunList is a list of SweepRuns.
// +kubebuilder:object:root=true
type SweepRunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SweepRun `json:"items"`
}

// GuardPolicy stops a campaign from paying for trials the cluster fails one after another (a
// broken image, a wrong endpoint, a quota).
type GuardPolicy struct {
	// InfrastructureFailures suspends the campaign when its last this many finished trials all
	// ended Error on infrastructure, their retries spent: no new trials start, running ones
	// finish, until `sweep resume`. 0 turns the guard off.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +optional
	InfrastructureFailures *int32 `json:"infrastructureFailures,omitempty"`
}

// GuardStatus is what the guard did.
type GuardStatus struct {
	// SuspendedTime is when the guard suspended the campaign; empty once a resume released it.
	// +optional
	SuspendedTime *metav1.Time `json:"suspendedTime,omitempty"`
	// Reason is the most common reason of the failures that tripped it, and Message what it
	// saw and what to do.
	// +optional
	Reason string `json:"reason,omitempty"`
	// +optional
	Message string `json:"message,omitempty"`
	// ResumeToken is the last resume request (annotation eval.sweep.dev/resume) handled, at
	// ResumedTime; only trials finished after it count toward the guard again.
	// +optional
	ResumeToken string `json:"resumeToken,omitempty"`
	// +optional
	ResumedTime *metav1.Time `json:"resumedTime,omitempty"`
}

// Holds reports whether the guard keeps the campaign suspended.
func (g *GuardStatus) Holds() bool { return g != nil && g.SuspendedTime != nil }

// UsageTotals sums the usage the trials of a campaign reported.
type UsageTotals struct {
	AgentUsage `json:",inline"`
	// Trials counts the trials whose agent reported usage.
	// +optional
	Trials int32 `json:"trials,omitempty"`
}

// BudgetPolicy bounds what a campaign may spend. When a limit is reached no new trial starts,
// the running ones finish, and the campaign completes with the trials that ran.
type BudgetPolicy struct {
	// MaxWallSeconds is how long after status.startTime trials may still start.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxWallSeconds *int64 `json:"maxWallSeconds,omitempty"`
	// MaxTokens bounds the tokens the agents report (status.usage): input tokens, the cached
	// ones among them, plus output tokens. It is checked against the trials whose agent stage
	// ended, so the trials running when it is reached (up to spec.parallelism) may overshoot it.
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxTokens *int64 `json:"maxTokens,omitempty"`
	// MaxCostUSD bounds the cost in US dollars the agents report, e.g. "25.00" (at most 9
	// decimals), compared exactly; like maxTokens it may be overshot by the running trials. An
	// agent that reports no cost counts nothing toward it.
	// +kubebuilder:validation:Pattern=`^[0-9]{1,9}(\.[0-9]{1,9})?$`
	// +optional
	MaxCostUSD string `json:"maxCostUSD,omitempty"`
}

// BudgetStatus says which limit of spec.budget stopped the campaign.
type BudgetStatus struct {
	// StoppedBy is the spec.budget field whose limit was reached: maxWallSeconds, maxTokens or
	// maxCostUSD.
	StoppedBy string `json:"stoppedBy"`
	// +optional
	StoppedTime *metav1.Time `json:"stoppedTime,omitempty"`
	// Message says what was reached and how many of the planned trials started.
	// +optional
	Message string `json:"message,omitempty"`
}

// GradingPolicy sets options of the built-in grader that change what counts.
type GradingPolicy struct {
	// FlakeRechecks re-runs a visible test that passed at the base and fails after the
	// agent's patch up to this many times, alone, before it counts as a regression: it is
	// cleared when it passes in at least one re-run. 0, the default, counts every such failure,
	// as SWE-sweep's harness does. Only the swesweep grader has it; a trial of another grader
	// that asks for it ends InvalidTask. The trials' rewards then carry n_regressions_cleared.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +optional
	FlakeRechecks int32 `json:"flakeRechecks,omitempty"`
}

// Rechecks is FlakeRechecks, 0 for no policy.
func (g *GradingPolicy) Rechecks() int32 {
	if g == nil {
		return 0
	}
	return g.FlakeRechecks
}
