package reasons

import (
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// all pins every reason's value: they are API, and a renamed value breaks users' alerts and
// scripts.
var all = map[string]string{
	AgentTimeout: "AgentTimeout", AgentFailed: "AgentFailed", PatchApplyFailed: "PatchApplyFailed",
	VerifierTimeout: "VerifierTimeout", RewardMissing: "RewardMissing", GraderFailed: "GraderFailed",
	CollectorInterrupted: "CollectorInterrupted",
	ImagePullFailed:      "ImagePullFailed", PodEvicted: "PodEvicted", NodeLost: "NodeLost", Preempted: "Preempted",
	EnvironmentStartTimeout: "EnvironmentStartTimeout", CollectorLost: "CollectorLost", ImageDigestMismatch: "ImageDigestMismatch", ArtifactsLost: "ArtifactsLost", InvalidTask: "InvalidTask",
	PatchTooLarge: "PatchTooLarge", RewardOutOfBounds: "RewardOutOfBounds",
	PatchRefused: "PatchRefused", TestsHungOnPatch: "TestsHungOnPatch", VerifierOutOfMemory: "VerifierOutOfMemory", VerifierOutOfStorage: "VerifierOutOfStorage",
	Completed: "Completed", Regraded: "Regraded", Graded: "Graded", TrialRunning: "TrialRunning",
	TasksNotFound: "TasksNotFound", NoTasksSelected: "NoTasksSelected", TrialsRunning: "TrialsRunning",
	AllTrialsFinished: "AllTrialsFinished", NothingMeasured: "NothingMeasured", Suspended: "Suspended", Resumed: "Resumed",
	InfrastructureFailing: "InfrastructureFailing",
	Retrying:              "Retrying", VerdictsAgree: "VerdictsAgree", VerdictsDiffer: "VerdictsDiffer",
	EmptyBugSubset: "EmptyBugSubset", UnknownBugs: "UnknownBugs", BugSubsetUnsupported: "BugSubsetUnsupported",
	StoreUnavailable: "StoreUnavailable", RecordWritten: "RecordWritten",
	ExclusionsNotFound: "ExclusionsNotFound", InvalidExclusions: "InvalidExclusions",
	Admitted: "Admitted", WaitingForAdmission: "WaitingForAdmission", QueueEvicted: "QueueEvicted",
}

func TestValues(t *testing.T) {
	for got, want := range all {
		if got != want {
			t.Errorf("reason %q changed to %q: reasons are API", want, got)
		}
	}
	if len(all) != 47 {
		t.Errorf("%d reasons pinned, want 47: pin a new reason here", len(all))
	}
}

// notReasons are string literals elsewhere that equal a reason's value but are something
// else, by file.
var notReasons = map[string]string{
	// The SweepRunSuspend phase and the SweepRunSuspended condition type.
	"api/v1alpha1/sweeprun_types.go": "Suspended",
	// The Pod status reason the node controller sets, which failure reads.
	"internal/failure/classify.go": "NodeLost",
	// The TrialAdmitted condition type, whose true reason is Admitted.
	"api/v1alpha1/tasktrial_types.go": "Admitted",
}

// TestDefinedOnce fails when a non-test Go file of the module spells a reason as a string
// literal instead of importing this package.
func TestDefinedOnce(t *testing.T) {
	for _, lit := range sweeptest.StringLiterals(t, sweeptest.ModuleRoot(t)) {
		if _, reason := all[lit.Value]; reason && lit.File != "api/v1alpha1/reasons/reasons.go" && notReasons[lit.File] != lit.Value {
			t.Errorf("%s:%d spells the reason %q: use reasons.%s from api/v1alpha1/reasons", lit.File, lit.Line, lit.Value, lit.Value)
		}
	}
}
