package reasons

// known is every reason of this package, so that a consumer with a bounded label set (the
// manager's metrics) can tell one of them from any other string.
var known = map[string]bool{
	AgentTimeout: true, AgentFailed: true, PatchApplyFailed: true, VerifierTimeout: true,
	RewardMissing: true, GraderFailed: true, CollectorInterrupted: true,
	PatchRefused: true, TestsHungOnPatch: true, VerifierOutOfMemory: true, VerifierOutOfStorage: true,
	ImagePullFailed: true, PodEvicted: true, NodeLost: true, Preempted: true,
	EnvironmentStartTimeout: true, CollectorLost: true, ImageDigestMismatch: true, ArtifactsLost: true, InvalidTask: true, PatchTooLarge: true,
	RewardOutOfBounds: true, Completed: true, Regraded: true, Graded: true,
	TasksNotFound: true, NoTasksSelected: true, TrialsRunning: true, AllTrialsFinished: true,
	NothingMeasured: true, Suspended: true, Resumed: true,
	EmptyBugSubset: true, UnknownBugs: true, BugSubsetUnsupported: true,
	TrialRunning: true, InfrastructureFailing: true, Retrying: true,
	StoreUnavailable: true, RecordWritten: true, VerdictsAgree: true, VerdictsDiffer: true,
	ExclusionsNotFound: true, InvalidExclusions: true,
	Admitted: true, WaitingForAdmission: true, QueueEvicted: true,
}

// Known reports whether reason is one of this package's reasons.
func Known(reason string) bool { return known[reason] }
