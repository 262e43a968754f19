package campaign

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// GuardTrip is the guard's decision to suspend a campaign: the most common reason of the
// failures that tripped it, and a message that names them and says what to do.
type GuardTrip struct {
	Reason, Message string
}

// CheckGuard says whether spec.guard suspends run now: the guard is on (the API server
// defaults it to 10; unset here is off) and does not hold
// already, trials are left to run, and the last spec.guard.infrastructureFailures of its final
// trials that finished after the last resume all ended Error on infrastructure. planned is how
// many trials the campaign runs in all.
func CheckGuard(run *evalv1.SweepRun, trials []*evalv1.TaskTrial, planned int) *GuardTrip {
	n := 0
	if g := run.Spec.Guard; g != nil && g.InfrastructureFailures != nil {
		n = int(*g.InfrastructureFailures)
	}
	st := &run.Status
	if n <= 0 || st.Guard.Holds() || int(FinishedTrials(st.Trials)) >= planned {
		return nil
	}
	var since time.Time
	if st.Guard != nil && st.Guard.ResumedTime != nil {
		since = st.Guard.ResumedTime.Time
	}
	names, reasons, ok := lastInfrastructureErrors(trials, n, since)
	if !ok {
		return nil
	}
	counts := map[string]int{}
	for _, r := range reasons {
		counts[r]++
	}
	// The most common reason; a tie goes to the name that sorts first, so the verdict is stable.
	common := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
	})[0]
	latest := names[len(names)-1]
	return &GuardTrip{Reason: common, Message: fmt.Sprintf(
		"suspended by spec.guard: the last %d finished trials all ended Error on infrastructure (%s: %d of %d; the latest %s): "+
			"no new trials start, running ones finish; fix the cause (`kubectl describe tasktrial %s -n %s`) and run `sweep resume %s -n %s`",
		n, common, counts[common], n, latest, latest, run.Namespace, run.Name, run.Namespace)}
}

// Trip records the guard's suspension in run's status at now.
func Trip(run *evalv1.SweepRun, trip GuardTrip, now time.Time) {
	g := run.Status.Guard
	if g == nil {
		g = &evalv1.GuardStatus{}
		run.Status.Guard = g
	}
	g.SuspendedTime, g.Reason, g.Message = &metav1.Time{Time: now}, trip.Reason, trip.Message
}

// PendingResume is a resume request (annotation eval.sweep.dev/resume) not handled yet.
func PendingResume(run *evalv1.SweepRun) (token string, ok bool) {
	token = strings.TrimSpace(run.Annotations[evalv1.AnnotationResume])
	if token == "" || (run.Status.Guard != nil && run.Status.Guard.ResumeToken == token) {
		return "", false
	}
	return token, true
}

// Resume handles a resume request at now: the guard releases the campaign, and counts only
// trials that finish from now on. A request while the guard does not hold is recorded, so it
// never releases a later suspension.
func Resume(run *evalv1.SweepRun, token string, now time.Time) {
	g := run.Status.Guard
	if g == nil {
		g = &evalv1.GuardStatus{}
		run.Status.Guard = g
	}
	g.ResumeToken, g.ResumedTime = token, &metav1.Time{Time: now}
	g.SuspendedTime = nil
}
