package metrics

import (
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// StageSeconds is one observation of a stage's histogram.
type StageSeconds struct {
	Stage   podcontract.Stage
	Seconds float64
}

// TrialEnd is a trial that finished in the write.
type TrialEnd struct {
	Phase   evalv1.TrialPhase
	Seconds float64
}

// Retry is stage runs retried in the write, on one budget.
type Retry struct {
	Kind, Reason string
	Runs         int
}

// Observations are what one status write of a trial adds to the histograms and counters.
type Observations struct {
	Stages    []StageSeconds
	Harvests  []StageSeconds
	QueueWait *float64
	Trial     *TrialEnd
	Retries   []Retry
}

// ObserveTrial derives from a trial's status before and after one write what the write
// changed: the stages whose end it recorded (their duration and harvest latency), the first
// start of the agent's container (queue wait), the trial's end, and retries. A write that
// changed none of them observes nothing, so that each is observed once. replacedAgent is the
// agent run a retry replaced in this write, as the reconcile saw it (nil when none): a
// container start is written with the stage's next change (internal/statuswrite), so the
// start of a first run that is retried is only known there.
func ObserveTrial(before *evalv1.TaskTrialStatus, after *evalv1.TaskTrial, replacedAgent *evalv1.StageStatus) Observations {
	var o Observations
	st := &after.Status
	for _, s := range []struct {
		stage         podcontract.Stage
		before, after *evalv1.StageStatus
	}{{podcontract.StageAgent, before.Agent, st.Agent}, {podcontract.StageVerifier, before.Verifier, st.Verifier}} {
		a, b := s.after, s.before
		if a == nil || a.CompletionTime == nil || (b != nil && b.Run == a.Run && b.CompletionTime != nil) {
			continue
		}
		if a.StartTime != nil {
			o.Stages = append(o.Stages, StageSeconds{s.stage, seconds(a.StartTime, a.CompletionTime)})
		}
		if a.JobFinishTime != nil {
			o.Harvests = append(o.Harvests, StageSeconds{s.stage, seconds(a.JobFinishTime, a.CompletionTime)})
		}
	}
	firstRun := st.Agent
	if replacedAgent != nil {
		firstRun = replacedAgent
	}
	if a, b := firstRun, before.Agent; a != nil && a.Run == 1 && a.ContainerStartTime != nil && (b == nil || b.ContainerStartTime == nil) {
		wait := seconds(&after.CreationTimestamp, a.ContainerStartTime)
		o.QueueWait = &wait
	}
	if !before.Phase.Finished() && st.Phase.Finished() && st.CompletionTime != nil {
		o.Trial = &TrialEnd{Phase: st.Phase, Seconds: seconds(&after.CreationTimestamp, st.CompletionTime)}
	}
	for _, r := range []struct {
		kind          string
		before, after int32
	}{{RetryInfrastructure, before.InfrastructureRetries, st.InfrastructureRetries}, {RetryVerifier, before.VerifierRetries, st.VerifierRetries}} {
		if n := r.after - r.before; n > 0 {
			o.Retries = append(o.Retries, Retry{Kind: r.kind, Reason: ReasonLabel(st.Reason), Runs: int(n)})
		}
	}
	return o
}

// seconds between two status timestamps, never negative: they come from different clocks
// (the API server's for creation, the controller's and the kubelet's for the rest).
func seconds(from, to *metav1.Time) float64 {
	return max(to.Sub(from.Time), time.Duration(0)).Seconds()
}

// ReasonLabel is a trial reason as a label value: one of api/v1alpha1/reasons, empty, or
// OtherReason, so that the label's values stay a bounded set whatever a status holds.
func ReasonLabel(reason string) string {
	if reason == "" || reasons.Known(reason) {
		return reason
	}
	return OtherReason
}

// Record adds the observations to the histograms and counters.
func (o Observations) Record() {
	for _, s := range o.Stages {
		StageDuration.WithLabelValues(string(s.Stage)).Observe(s.Seconds)
	}
	for _, s := range o.Harvests {
		HarvestLatency.WithLabelValues(string(s.Stage)).Observe(s.Seconds)
	}
	if o.QueueWait != nil {
		QueueWait.Observe(*o.QueueWait)
	}
	if o.Trial != nil {
		TrialDuration.WithLabelValues(string(o.Trial.Phase)).Observe(o.Trial.Seconds)
	}
	for _, r := range o.Retries {
		Retries.WithLabelValues(r.Kind, r.Reason).Add(float64(r.Runs))
	}
}

// TrialWritten records what a successful status write of a trial changed (ObserveTrial).
func TrialWritten(before *evalv1.TaskTrialStatus, after *evalv1.TaskTrial, replacedAgent *evalv1.StageStatus) {
	ObserveTrial(before, after, replacedAgent).Record()
}

// TrialKey is one series of the trials gauge.
type TrialKey struct {
	Namespace string
	Phase     evalv1.TrialPhase
	Reason    string
}

// CountTrials counts trials by namespace, phase and reason label. A trial a rerun superseded
// (`sweep retry`) is a record, no longer a result: it is not counted, so that a failure once
// rerun stops showing.
func CountTrials(trials []*evalv1.TaskTrial) map[TrialKey]int {
	out := map[TrialKey]int{}
	for i := range trials {
		t := trials[i]
		if campaign.Superseded(t) {
			continue
		}
		out[TrialKey{Namespace: t.Namespace, Phase: t.Status.Phase, Reason: ReasonLabel(t.Status.Reason)}]++
	}
	return out
}

// SweepRunValues are a SweepRun's gauges; nil ones have no series (no score before a trial
// is graded, no progress before the tasks are selected).
type SweepRunValues struct {
	Score, BugsResolved, Progress *float64
	BugsTotal                     float64
}

// SweepRunGauges reads a SweepRun's gauges from its status. A score or bug count that does
// not parse has no series rather than a wrong one.
func SweepRunGauges(st *evalv1.SweepRunStatus) SweepRunValues {
	v := SweepRunValues{Score: parse(st.Score), BugsResolved: parse(st.BugsResolved), BugsTotal: float64(st.BugsTotal)}
	if st.Trials.Total > 0 {
		p := float64(campaign.FinishedTrials(st.Trials)) / float64(st.Trials.Total)
		v.Progress = &p
	}
	return v
}

func parse(s string) *float64 {
	f, err := strconv.ParseFloat(s, 64)
	if s == "" || err != nil {
		return nil
	}
	return &f
}
