package v1alpha1

// Condition types both SweepRuns and TaskTrials carry, beside their own, in the form kstatus
// (sigs.k8s.io/cli-utils/pkg/kstatus) reads them, so that `kubectl wait --for=condition=Ready`
// and GitOps health checks tell a finished object from a running or a stuck one. Reconciling
// and Stalled are abnormal-true: at most one of the three is True at a time.
const (
	// ConditionReady: the object reached its end and its result is final.
	ConditionReady = "Ready"
	// ConditionReconciling: the controller is still working on the object.
	ConditionReconciling = "Reconciling"
	// ConditionStalled: the object cannot progress without someone acting.
	ConditionStalled = "Stalled"
)
