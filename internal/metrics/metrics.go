// Package metrics defines the manager's Prometheus metrics (names, labels and help, once) and
// registers them with controller-runtime's registry, which the manager serves at /metrics.
//
// Two kinds: histograms and counters observed when a trial's status write succeeds (stage
// and trial durations, harvest latency, queue wait, retries), and gauges read from the
// manager's cache at each scrape (trials by phase and reason, and each SweepRun's score,
// bugs and progress), so that they are right after a restart and a deleted SweepRun's
// series go with it. Labels are bounded sets: a trial is never a label, and a reason outside
// api/v1alpha1/reasons is counted as OtherReason.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The RBAC the authentication and authorisation filter of the secure metrics endpoint needs:
// make manifests writes it to config/rbac/metrics_auth_role.yaml, bound cluster-wide since
// both resources are cluster-scoped.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// Label names.
const (
	LabelNamespace = "namespace"
	LabelName      = "name"
	LabelPhase     = "phase"
	LabelReason    = "reason"
	LabelStage     = "stage"
	LabelKind      = "kind"
)

// OtherReason labels a trial reason that is not one of api/v1alpha1/reasons.
const OtherReason = "Other"

// Retry kinds: which budget of spec.retryPolicy a retry used.
const (
	RetryInfrastructure = "infrastructure"
	RetryVerifier       = "verifier"
)

const namespace = "sweep"

var (
	// StageDuration: a stage run, from its Job's creation to the controller recording its end.
	StageDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "stage_duration_seconds",
		Help:    "Duration of a trial stage whose end the status recorded, from its Job's creation to the end recorded, by stage (agent, verifier).",
		Buckets: prometheus.ExponentialBuckets(10, 2, 12), // 10s to about 5.7h
	}, []string{LabelStage})
	// TrialDuration: a trial, from its creation to its end, by the phase it ended in.
	TrialDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "trial_duration_seconds",
		Help:    "Duration of a finished trial, from its creation to its end, by the phase it ended in (Succeeded, Failed, Error).",
		Buckets: prometheus.ExponentialBuckets(10, 2, 13), // 10s to about 11h
	}, []string{LabelPhase})
	// HarvestLatency: from a stage's Job finishing to its result being in the trial's status.
	HarvestLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "harvest_latency_seconds",
		Help:    "Time from a stage's Job finishing (its Pod ended) to the controller recording the stage's outputs in the trial's status, by stage; at the API's one-second resolution.",
		Buckets: prometheus.ExponentialBuckets(1, 2, 10), // 1s to 512s
	}, []string{LabelStage})
	// QueueWait: from a trial's creation to its first agent Pod's main container starting.
	QueueWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "queue_wait_seconds",
		Help:    "Time from a trial's creation to the main container of its first agent run starting (scheduling, queueing, image pulls).",
		Buckets: prometheus.ExponentialBuckets(1, 2, 15), // 1s to about 4.5h
	})
	// Retries: stage runs retried, by budget and reason.
	Retries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "trial_retries_total",
		Help: "Stage runs retried, by the retry budget used (infrastructure, verifier) and the reason.",
	}, []string{LabelKind, LabelReason})

	// The gauges the StatusCollector reads from the cache at each scrape.
	trialsDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, "", "trials"),
		"TaskTrials by namespace, phase and reason.", []string{LabelNamespace, LabelPhase, LabelReason}, nil)
	scoreDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, "sweeprun", "score"),
		"A SweepRun's score (status.score: bugs resolved / bugs total); absent before a trial is graded.", []string{LabelNamespace, LabelName}, nil)
	bugsResolvedDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, "sweeprun", "bugs_resolved"),
		"A SweepRun's bugs resolved (status.bugsResolved); absent before a trial is graded.", []string{LabelNamespace, LabelName}, nil)
	bugsTotalDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, "sweeprun", "bugs_total"),
		"A SweepRun's bugs over its graded tasks (status.bugsTotal).", []string{LabelNamespace, LabelName}, nil)
	progressDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, "sweeprun", "progress_ratio"),
		"A SweepRun's finished trials over its planned ones (status.trials.total); absent until its tasks are selected.", []string{LabelNamespace, LabelName}, nil)
)

func init() {
	ctrlmetrics.Registry.MustRegister(StageDuration, TrialDuration, HarvestLatency, QueueWait, Retries)
}
