package campaign

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

// RerunName is the name of rerun number rerun of an attempt: TrialName for the attempt's
// first trial (rerun 0), "-rN" after the attempt for each rerun (bounded as TrialName is), so
// that every run of an attempt keeps its own TaskTrial and results. A TrialName ends in the
// attempt's digits, so no rerun name is another task's trial name.
func RerunName(run, task string, attempt, rerun int32) string {
	if rerun == 0 {
		return TrialName(run, task, attempt)
	}
	return boundedName(fmt.Sprintf("%s-%s-%d-r%d", run, task, attempt, rerun))
}

// Rerun is the trial's rerun number (label eval.sweep.dev/rerun), 0 for an attempt's first.
func Rerun(t *evalv1.TaskTrial) int32 {
	n, err := strconv.Atoi(t.Labels[evalv1.LabelRerun])
	if err != nil || n < 0 {
		return 0
	}
	return int32(n)
}

// Superseded reports whether a rerun replaced the trial (label eval.sweep.dev/superseded-by).
func Superseded(t *evalv1.TaskTrial) bool { return t.Labels[evalv1.LabelSupersededBy] != "" }

// FinalTrials is each attempt's final result: of the trials of one task and attempt, the
// newest run (highest rerun number) that no rerun superseded. It is what a campaign scores,
// counts and exports; the superseded trials stay in the cluster as records. Order is kept.
// When every trial is final (no reruns), trials itself is returned, not a copy.
func FinalTrials(trials []*evalv1.TaskTrial) []*evalv1.TaskTrial {
	type key struct {
		task    string
		attempt int32
	}
	newest := map[key]int32{}
	for i := range trials {
		t := trials[i]
		if Superseded(t) {
			continue
		}
		k := key{t.Spec.Task, t.Spec.Attempt}
		if n, ok := newest[k]; !ok || Rerun(t) > n {
			newest[k] = Rerun(t)
		}
	}
	if len(newest) == len(trials) {
		return trials
	}
	out := make([]*evalv1.TaskTrial, 0, len(trials))
	for i := range trials {
		t := trials[i]
		if n, ok := newest[key{t.Spec.Task, t.Spec.Attempt}]; ok && !Superseded(t) && Rerun(t) == n {
			out = append(out, t)
		}
	}
	return out
}

// RetryRequest is a retry the SweepRun's annotations ask for.
type RetryRequest struct {
	Token string
	// Reasons are the trial reasons to rerun, failure.RerunByDefault when none is named.
	Reasons []string
}

// DecideRetry is the retry request of a finished campaign that its status has not handled
// yet, and the trials it reruns (none when it names a reason that is not one); ok is false
// when there is no such request. A request made while the campaign runs waits for its end.
func DecideRetry(run *evalv1.SweepRun, trials []*evalv1.TaskTrial) (req RetryRequest, rerun []*evalv1.TaskTrial, ok bool) {
	req, ok = PendingRetry(run)
	if !ok || run.Status.CompletionTime == nil {
		return RetryRequest{}, nil, false
	}
	if CheckRetryReasons(req.Reasons) != nil {
		return req, nil, true
	}
	return req, ToRerun(trials, req.Reasons), true
}

// PendingRetry is the retry request the run's annotations make that its status has not
// handled yet; ok is false when there is none.
func PendingRetry(run *evalv1.SweepRun) (req RetryRequest, ok bool) {
	token := strings.TrimSpace(run.Annotations[evalv1.AnnotationRetry])
	if token == "" || (run.Status.Retry != nil && run.Status.Retry.Token == token) {
		return RetryRequest{}, false
	}
	return RetryRequest{Token: token, Reasons: ParseRetryReasons(run.Annotations[evalv1.AnnotationRetryReasons])}, true
}

// ParseRetryReasons reads a comma-separated reason list; empty means failure.RerunByDefault.
func ParseRetryReasons(list string) []string {
	var out []string
	for r := range strings.SplitSeq(list, ",") {
		if r = strings.TrimSpace(r); r != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return slices.Clone(failure.RerunByDefault)
	}
	return out
}

// CheckRetryReasons refuses a reason that is not one of api/v1alpha1/reasons.
func CheckRetryReasons(list []string) error {
	var unknown []string
	for _, r := range list {
		if !reasons.Known(r) {
			unknown = append(unknown, r)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("%s: not a trial reason; give reasons a trial's status.reason shows (for example %s), or none to rerun %s",
			strings.Join(unknown, ", "), reasons.PodEvicted, strings.Join(failure.RerunByDefault, ", "))
	}
	return nil
}

// ToRerun are the trials a retry for these reasons reruns: each attempt's final trial that
// ended Error or Failed with one of the reasons. A measured trial (Succeeded) is never rerun.
func ToRerun(trials []*evalv1.TaskTrial, rerunReasons []string) []*evalv1.TaskTrial {
	var out []*evalv1.TaskTrial
	for _, t := range FinalTrials(trials) {
		if (t.Status.Phase == evalv1.TrialError || t.Status.Phase == evalv1.TrialFailed) && slices.Contains(rerunReasons, t.Status.Reason) {
			out = append(out, t)
		}
	}
	return out
}

// AwaitingRerun counts the superseded trials whose rerun is not among trials yet: a retry
// whose reruns are not all created has not ended.
func AwaitingRerun(trials []*evalv1.TaskTrial) int {
	names := map[string]bool{}
	for i := range trials {
		names[trials[i].Name] = true
	}
	n := 0
	for i := range trials {
		if Superseded(trials[i]) && !names[NextRunName(trials[i])] {
			n++
		}
	}
	return n
}

// NextRunName is the name of the rerun that supersedes trial t.
func NextRunName(t *evalv1.TaskTrial) string {
	return RerunName(t.Spec.SweepRun, t.Spec.Task, t.Spec.Attempt, Rerun(t)+1)
}

// PlanReruns replaces each planned attempt whose trial a rerun superseded by that rerun,
// following the chain of reruns to the newest, so that ToCreate creates a rerun like any
// planned trial (within parallelism, not while suspended). A rerun that a regrade asked for
// (the trial it supersedes is labelled regraded-by) regrades that trial's artifacts.
func PlanReruns(plan []Planned, trials []*evalv1.TaskTrial) []Planned {
	by := make(map[string]*evalv1.TaskTrial, len(trials))
	for i := range trials {
		by[trials[i].Name] = trials[i]
	}
	out := slices.Clone(plan)
	for i := range out {
		// The names derive from each trial's spec and rerun number, never from a label's
		// value; visited stops a chain that labels edited by hand turned into a loop.
		var visited map[string]bool // made for a rerun chain only: most attempts have none
		for t := by[out[i].Name]; t != nil && Superseded(t) && !visited[t.Name]; t = by[out[i].Name] {
			if visited == nil {
				visited = map[string]bool{}
			}
			visited[t.Name] = true
			out[i].Name, out[i].Rerun, out[i].RegradeOf = NextRunName(t), Rerun(t)+1, ""
			if Regraded(t) {
				out[i].RegradeOf = podbuild.ArtifactsOwner(t)
			}
		}
	}
	return out
}

// BeginRetry records a handled retry request that reruns n trials. A campaign with trials to
// rerun leaves completion: its completion time is cleared (the TTL counts from the next) and
// Complete or Failed turn false with reason Retrying until the reruns end. One with none stays
// as it was, the request recorded with a message saying why.
func BeginRetry(run *evalv1.SweepRun, req RetryRequest, n int, now time.Time) {
	st := &run.Status
	st.Retry = &evalv1.RetryStatus{Token: req.Token, HandledAt: &metav1.Time{Time: now}, Reasons: req.Reasons, Trials: int32(n)}
	if err := CheckRetryReasons(req.Reasons); err != nil {
		st.Retry.Trials = 0
		st.Retry.Message = fmt.Sprintf("annotation %s: %v", evalv1.AnnotationRetryReasons, err)
		return
	}
	if n == 0 {
		st.Retry.Message = "no finished trial ended Error or Failed with reason " + strings.Join(req.Reasons, ", ") + ": nothing to rerun"
		return
	}
	st.Retry.Message = fmt.Sprintf("rerunning %d trials that ended with reason %s", n, strings.Join(req.Reasons, ", "))
	leaveCompletion(run, st.Retry.Message)
}

// leaveCompletion takes a finished campaign back to running for its reruns: its completion
// time is cleared (the TTL counts from the next) and Complete or Failed turn false with
// reason Retrying until the reruns end.
func leaveCompletion(run *evalv1.SweepRun, message string) {
	st := &run.Status
	st.CompletionTime = nil
	for _, typ := range []string{evalv1.SweepRunComplete, evalv1.SweepRunFailed} {
		if meta.FindStatusCondition(st.Conditions, typ) != nil {
			meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: reasons.Retrying,
				Message: message, ObservedGeneration: run.Generation})
		}
	}
}
