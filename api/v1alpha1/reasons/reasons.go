// Package reasons defines every reason a user can see on a SweepRun or a TaskTrial: the
// trial's status.reason, a stage's reason, and condition reasons. The values are API: never
// change one, only add. Each constant's name is its value.
//
// The package is part of the eval.sweep.dev/v1alpha1 API but has no Kubernetes imports, so
// that sweep-hook, which runs inside every trial Pod and reports reasons in its summary, can
// import it and stay a small static binary. Like the Kubernetes API's own reasons
// (batchv1.JobReasonPodFailurePolicy), they are string constants, so they fit
// metav1.Condition.Reason and the status fields as they are.
package reasons

// Reasons sweep-hook reports in a stage's summary; the trial controller records them.
const (
	// AgentTimeout: the agent ran past its timeout and was stopped. Its patch so far is still
	// verified and scored. Raise the agent timeout (spec.timeouts or the task's
	// [agent] timeout_sec) if the agent needs longer.
	AgentTimeout string = "AgentTimeout"
	// AgentFailed: the agent exited non-zero, could not start, or left no done file. Its patch
	// so far is still verified and scored. Read the agent stage Pod's log.
	AgentFailed string = "AgentFailed"
	// PatchApplyFailed: the patch agent's patch does not apply to the task's repository. The
	// trial is verified without it. Regenerate the patch against the task's base commit.
	PatchApplyFailed string = "PatchApplyFailed"
	// VerifierTimeout: the verifier ran past its timeout. The trial is Failed and not scored.
	// Raise the verifier timeout, or fix tests that hang.
	VerifierTimeout string = "VerifierTimeout"
	// RewardMissing: the verifier wrote no valid reward.json or reward.txt. The trial is
	// Failed and not scored. Fix the task's tests/test.sh so that it writes a reward.
	RewardMissing string = "RewardMissing"
	// GraderFailed: the grader crashed or reported grader_failed. The trial is Failed and not
	// scored. Read the verifier's log; spec.retryPolicy.retryVerifierFailures retries it.
	GraderFailed string = "GraderFailed"
	// CollectorInterrupted: the collector was stopped before the stage wrote its done file and
	// reported what there was. The controller reads it as the stage's failure (AgentTimeout,
	// AgentFailed or VerifierTimeout); it is not a trial's final reason.
	CollectorInterrupted string = "CollectorInterrupted"
)

// Reasons of a trial that was measured and scored, usually 0, because of what the agent's patch
// did: the agent cannot opt out of being scored. The grader (or the controller, for the verifier
// container's own memory limit) decides them; docs/security.md gives the attribution rule.
const (
	// PatchRefused: the agent's patch was refused as not applied, with the reason in the
	// message: git and the grader read its paths differently, it writes outside the work tree or
	// into .git, or it could not be read. The trial is graded on the unpatched tree.
	PatchRefused string = "PatchRefused"
	// TestsHungOnPatch: a build or test suite ran past its limit on the agent's tree and
	// finished within it on the unpatched tree, so the hang is the patch's: the trial scores 0.
	TestsHungOnPatch string = "TestsHungOnPatch"
	// VerifierOutOfMemory: the verifier container was killed for using more memory than its
	// own limit while running the agent's code, not evicted by the node: the trial scores 0.
	// Raise the task's memory_mb if the unpatched tree needs more.
	VerifierOutOfMemory string = "VerifierOutOfMemory"
	// VerifierOutOfStorage: the kubelet evicted the verifier Pod because it wrote more than its
	// own ephemeral-storage limit (or an emptyDir's size limit) while running the agent's code,
	// not because the node ran short: the trial scores 0. Raise the task's storage_mb if the
	// unpatched tree needs more.
	VerifierOutOfStorage string = "VerifierOutOfStorage"
)

// Reasons the trial controller decides from the stage's Job, Pod and collector.
const (
	// ImagePullFailed: a container's image could not be pulled. Retried as infrastructure;
	// the trial is Error once retries run out. Check the task ConfigMap's image annotations
	// and the namespace's pull secrets.
	ImagePullFailed string = "ImagePullFailed"
	// PodEvicted: the kubelet evicted the stage's Pod (node pressure, admission). Retried as
	// infrastructure; give the stage more resources or nodes more room.
	PodEvicted string = "PodEvicted"
	// NodeLost: the stage's node went away. Retried as infrastructure.
	NodeLost string = "NodeLost"
	// Preempted: the scheduler preempted the stage's Pod for a higher priority one. Retried as
	// infrastructure; use a priority class or a queue with room.
	Preempted string = "Preempted"
	// EnvironmentStartTimeout: the stage's main container did not start within the
	// controller's start timeout (image too slow to pull, no node fits). Retried as
	// infrastructure; check the Pod's events.
	EnvironmentStartTimeout string = "EnvironmentStartTimeout"
	// CollectorLost: the collector left no readable summary or outputs. Retried as
	// infrastructure; read the collector container's log.
	CollectorLost string = "CollectorLost"
	// ImageDigestMismatch: the stage's Pod ran an image whose digest differs from the one its
	// campaign pinned (status.images) for that reference: the tag moved, or a node holds
	// another image under it. Never graded; retried as infrastructure, then Error. Restore the
	// pinned image on the nodes, or start a new SweepRun to grade the new one.
	ImageDigestMismatch string = "ImageDigestMismatch"
	// ArtifactsLost: the agent's artifacts reached the verifier incomplete or changed (an
	// artifacts Secret or a piece of one missing, bytes other than the collector's checksum).
	// Retried as infrastructure, never graded: the patch graded must be the agent's.
	ArtifactsLost string = "ArtifactsLost"
	// InvalidTask: the trial's spec or its task.toml cannot run as given. The trial is Error
	// at once; the message names the field and the fix.
	InvalidTask string = "InvalidTask"
	// PatchTooLarge: the agent's patch or artifacts exceed what the collector carries. The
	// agent produced it, so the trial is graded as having no patch and scores 0.
	PatchTooLarge string = "PatchTooLarge"
	// RewardOutOfBounds: the verifier's result claims what the trial cannot have (a reward
	// outside [0, 1], more bugs resolved than graded, an n_subtasks other than the trial's
	// spec.bugsTotal, a count that is not a non-negative integer, a flag other than 0 or 1).
	// The trial is Failed and never scored; its results are kept in the results Secret. The
	// message names the key and the bound: fix the grader or tests/test.sh, or suspect the
	// agent's code of writing the result.
	RewardOutOfBounds string = "RewardOutOfBounds"
	// StoreUnavailable: the trial's record cannot be written to the artifact store (the store
	// is unreachable, refuses the manager's credentials or the write, or the SweepRun's
	// spec.artifactStore.url does not open). The trial waits in its phase, its results kept in
	// the cluster, and the controller retries with backoff until the record is written; the
	// SweepRun does not complete meanwhile. The message names the store and the error: fix the
	// store's reachability, the manager's credentials (Secret sweep-operator-store) or the URL.
	StoreUnavailable string = "StoreUnavailable"
)

// Condition reasons of a TaskTrial that report success.
const (
	// Completed: the stage ended normally (AgentCompleted condition).
	Completed string = "Completed"
	// Regraded: the trial grades another trial's stored artifacts again (spec.regradeOf), so
	// its agent stage did not run (AgentCompleted condition).
	Regraded string = "Regraded"
	// Graded: the verifier produced rewards and the trial is scored (Verified and, with no
	// agent reason, Complete conditions).
	Graded string = "Graded"
	// TrialRunning: the trial has not ended (Reconciling true), and the reason of the Event of
	// each phase it enters before its end (Pending, AgentRunning, Verifying).
	TrialRunning string = "TrialRunning"
	// RecordWritten: the trial's record was written whole to the artifact store (Recorded
	// condition); status.record points to it.
	RecordWritten string = "RecordWritten"
	// Admitted: the current stage's Job was admitted by its Kueue queue and runs (Admitted
	// condition, only on trials with spec.queueName).
	Admitted string = "Admitted"
)

// Admitted-condition reasons of a TaskTrial whose stage's Job waits in its Kueue queue. Time
// there is not the stage's: it never counts toward the start timeout, never fails the trial
// and never uses up a retry.
const (
	// WaitingForAdmission: the stage's Job was created suspended and waits for its queue to
	// admit it; the message names the LocalQueue. Give the queue's ClusterQueue more quota to
	// wait less.
	WaitingForAdmission string = "WaitingForAdmission"
	// QueueEvicted: the queue admitted the stage's Job, then took the admission back (a
	// preemption by a higher-priority workload, a quota change, a node failure): Kueue
	// suspended the Job, its Pod was deleted, and the same Job waits to be admitted again and
	// runs the stage from its start. Never scored and never an infrastructure failure;
	// status.<stage>.evictions counts them.
	QueueEvicted string = "QueueEvicted"
)

// Condition reasons of a SweepRun.
const (
	// TasksNotFound: spec.tasks.names names tasks no ConfigMap in the namespace carries. The
	// campaign waits (Pending); apply the task catalogue.
	TasksNotFound string = "TasksNotFound"
	// NoTasksSelected: spec.tasks selects no task ConfigMap. The campaign waits (Pending);
	// apply the task catalogue or fix the selection.
	NoTasksSelected string = "NoTasksSelected"
	// TrialsRunning: trials are being created and run (Progressing).
	TrialsRunning string = "TrialsRunning"
	// AllTrialsFinished: every trial ended (Progressing false, Complete true).
	AllTrialsFinished string = "AllTrialsFinished"
	// NothingMeasured: every trial ended without a measurement, so there is no score (Failed).
	// See the trials' reasons.
	NothingMeasured string = "NothingMeasured"
	// Suspended: spec.suspend is true; no new trials start and running ones finish. Set
	// spec.suspend to false to go on.
	Suspended string = "Suspended"
	// Resumed: spec.suspend went back to false (Suspended condition false).
	Resumed string = "Resumed"
	// InfrastructureFailing: the campaign's most recently finished trials all ended Error on
	// infrastructure, none measured (Stalled true); the message names them. New trials still
	// start: read the trials' reasons and fix the cluster (images, nodes, quotas).
	InfrastructureFailing string = "InfrastructureFailing"
	// VerdictsAgree and VerdictsDiffer: a SWE-bench trial's hardened and official verdicts
	// agree, or differ (the OfficialVerdictAgrees condition's message says how and why).
	VerdictsAgree  string = "VerdictsAgree"
	VerdictsDiffer string = "VerdictsDiffer"
	// Retrying: a retry request (annotation eval.sweep.dev/retry, `sweep retry`) reruns
	// trials of the finished campaign (Complete false until they end).
	Retrying string = "Retrying"
)

// Reasons a bug subset (SweepRun spec.tasks.bugs) is refused: the SweepRun fails when it is
// created, before any trial, with the field and the fix in the message; a trial's verifier
// stage gives the same reason when its task's tests/swesweep_eval.json cannot take the subset.
const (
	// EmptyBugSubset: spec.tasks.bugs gives a task an empty list. Name at least one bug id, or
	// leave the task out of spec.tasks.bugs to grade all its bugs.
	EmptyBugSubset string = "EmptyBugSubset"
	// UnknownBugs: spec.tasks.bugs names bug ids the task does not have. Use ids of the task's
	// bundle (its ConfigMap's eval.sweep.dev/bug-ids annotation).
	UnknownBugs string = "UnknownBugs"
	// BugSubsetUnsupported: spec.tasks.bugs names a task graded by its own tests/test.sh that
	// has no tests/swesweep_eval.json, which is how a subset reaches it. Bundle the task again
	// with `sweep tasks bundle` if it has one, or grade all its bugs.
	BugSubsetUnsupported string = "BugSubsetUnsupported"
)

// Reasons a campaign's exclusion list (SweepRun spec.tasks.exclusions) cannot be applied: the
// campaign waits (Pending, Progressing false) without creating a trial, and starts once the
// ConfigMap is fixed; the message names the ConfigMap, the key, the problem and the fix.
const (
	// ExclusionsNotFound: the ConfigMap spec.tasks.exclusions names, or its key
	// exclusions.json, does not exist in the SweepRun's namespace (or the campaign's snapshot
	// of it is gone). Apply the list, e.g. the one `sweep tasks check --repeat N` writes.
	ExclusionsNotFound string = "ExclusionsNotFound"
	// InvalidExclusions: the list is not a sweep-exclusions/1 list, an entry is wrong (the
	// message names it), or it excludes bugs of a task whose ConfigMap lists no bug ids.
	// Fix the ConfigMap.
	InvalidExclusions string = "InvalidExclusions"
)
