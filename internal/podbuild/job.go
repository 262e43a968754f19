package podbuild

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// Container names of a trial Pod.
const (
	BundleContainer    = "agent-bundle"
	CollectorContainer = "collector"
	// InstallContainer is the container that installs sweep-hook into the Pod, from the hook
	// image: the collector, in its postStart hook.
	InstallContainer = CollectorContainer
)

// MainContainer is the main container's name for a stage: "agent" or "verifier".
func MainContainer(stage podcontract.Stage) string { return string(stage) }

// QueueLabel submits a Job to a Kueue LocalQueue; PriorityClassLabel names the Kueue
// WorkloadPriorityClass of its Workload.
const (
	QueueLabel         = "kueue.x-k8s.io/queue-name"
	PriorityClassLabel = "kueue.x-k8s.io/priority-class"
)

// StartAllowanceSeconds is added to a stage's own timeouts in activeDeadlineSeconds: time to
// schedule, pull and start the Pod, and to collect and report afterwards.
const StartAllowanceSeconds = 600

// ArtifactSecretName is the first of the Secrets holding the harvested artifacts
// (ArtifactSecretNameAt).
func ArtifactSecretName(trial string) string { return ArtifactSecretNameAt(trial, 0) }

// ArtifactSecretNameAt is the i-th artifacts Secret of a trial: <trial>-artifacts, then
// <trial>-artifacts-1, ...
func ArtifactSecretNameAt(trial string, i int) string { return spreadSecretName(trial+"-artifacts", i) }

// ArtifactsOwner is the trial whose artifacts Secrets trial's verifier mounts: its own, or for
// a regrade (spec.regradeOf) the trial whose agent made them, which a regrade of a regrade
// names too, so that no chain of regrades is followed.
func ArtifactsOwner(trial *evalv1.TaskTrial) string {
	if trial.Spec.RegradeOf != "" {
		return trial.Spec.RegradeOf
	}
	return trial.Name
}

// MaxSecretPayload is what one Secret the controller writes may carry: an object must stay
// under the API server's 1.5 MiB request limit and etcd's value limit, with room for metadata.
const MaxSecretPayload = 1 << 20

// MaxArtifactSecrets is how many artifacts Secrets the verifier mounts: enough for
// podcontract.MaxArtifactBytes spread over Secrets of MaxSecretPayload, with their checksums
// and the keys of the pieces.
const MaxArtifactSecrets = podcontract.MaxArtifactBytes/MaxSecretPayload + 2

// ArtifactSecrets is the data of a trial's artifacts Secrets: the artifacts the verifier
// receives and their checksums (podcontract.ArtifactChecksumKey), which go first so that they
// are in the first Secret, the one the verifier cannot be started without. There is always a
// first Secret, empty when the verifier receives nothing.
func ArtifactSecrets(artifacts map[string][]byte, sha256 map[string]string) []map[string][]byte {
	records := maps.Clone(artifacts)
	var first []string
	for _, key := range slices.Sorted(maps.Keys(artifacts)) {
		if sum, ok := sha256[key]; ok {
			records[podcontract.ArtifactChecksumKey(key)] = []byte(sum)
			first = append(first, podcontract.ArtifactChecksumKey(key))
		}
	}
	if secrets := SplitResults(records, first, MaxSecretPayload); len(secrets) > 0 {
		return secrets
	}
	return []map[string][]byte{{}}
}

// JobName is `<trial>-agent-<run>` or `<trial>-verify-<run>`.
func JobName(trial string, stage podcontract.Stage, run int32) string {
	word := "agent"
	if stage == podcontract.StageVerifier {
		word = "verify"
	}
	return fmt.Sprintf("%s-%s-%d", trial, word, run)
}

// StageSpecAnnotation on a stage's Pod holds its stage spec (JSON), which a downward API
// volume mounts at podcontract.SpecDir: the spec travels in the Job, so that a trial needs no
// object of its own for it (docs/scale.md).
const StageSpecAnnotation = "eval.sweep.dev/stage-spec"

// Labels are the labels of docs/design.md §1 for a trial's objects.
func Labels(trial *evalv1.TaskTrial, stage podcontract.Stage) map[string]string {
	l := map[string]string{
		evalv1.LabelTrial:   trial.Name,
		evalv1.LabelTask:    trial.Spec.Task,
		evalv1.LabelAttempt: strconv.Itoa(int(trial.Spec.Attempt)),
	}
	if trial.Spec.SweepRun != "" {
		l[evalv1.LabelSweepRun] = trial.Spec.SweepRun
	}
	if stage != "" {
		l[evalv1.LabelStage] = string(stage)
	}
	return l
}

// podLabels are a stage's Pod's labels: the trial's, the stage's, and its egress class, by
// which its NetworkPolicy selects it (NetworkPolicies).
func podLabels(in JobInput) map[string]string {
	l := Labels(in.Trial, in.Stage)
	network := in.Task.Agent
	if in.Stage == podcontract.StageVerifier {
		network = in.Task.Verifier.Stage
	}
	if class := EgressClass(network); class != "" {
		l[evalv1.LabelEgress] = class
	}
	return l
}

// JobInput is what one stage's Job is built from.
type JobInput struct {
	Trial     *evalv1.TaskTrial
	Task      *taskdef.Task
	Stage     podcontract.Stage
	Run       int32
	HookImage string
	// Image is what the stage's main container runs: the campaign's pinned reference of the
	// trial's image (provenance.RunReference); empty runs the trial's spec image.
	Image     string
	Timeouts  Timeouts
	Resources corev1.ResourceRequirements
	// StageSpec is the stage's spec (StageSpec), mounted in the Pod at podcontract.SpecDir.
	StageSpec []byte
}

// Job builds the batch/v1 Job of one stage. Owner references are set by the caller.
func Job(in JobInput) *batchv1.Job {
	trial := in.Trial
	labels := Labels(trial, in.Stage)
	labels[evalv1.LabelRun] = strconv.Itoa(int(in.Run))
	pod := podSpec(in)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:      JobName(trial.Name, in.Stage, in.Run),
			Namespace: trial.Namespace,
			Labels:    labels,
		},
		Spec: batchv1.JobSpec{
			// Disruptions are ignored by the pod failure policy; anything else is decided by
			// the trial controller, which starts a new Job when it retries.
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To(deadline(in)),
			PodReplacementPolicy:  ptr.To(batchv1.Failed),
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
				{
					Action:          batchv1.PodFailurePolicyActionIgnore,
					OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}},
				},
				{
					Action: batchv1.PodFailurePolicyActionFailJob,
					OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
						ContainerName: ptr.To(MainContainer(in.Stage)),
						Operator:      batchv1.PodFailurePolicyOnExitCodesOpNotIn,
						Values:        []int32{0},
					},
				},
			}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels(in), Annotations: map[string]string{StageSpecAnnotation: string(in.StageSpec)}},
				Spec:       pod,
			},
		},
	}
	if trial.Spec.QueueName != "" {
		job.Labels[QueueLabel] = trial.Spec.QueueName
		// Kueue admits a Job by unsuspending it.
		job.Spec.Suspend = ptr.To(true)
		if class := WorkloadPriorityClass(trial.Spec.WorkloadPriorityClasses, in.Stage); class != "" {
			job.Labels[PriorityClassLabel] = class
		}
	}
	return job
}

// WorkloadPriorityClass is the Kueue WorkloadPriorityClass of a stage's Job, empty for the
// queue's default.
func WorkloadPriorityClass(classes *evalv1.WorkloadPriorityClasses, stage podcontract.Stage) string {
	switch {
	case classes == nil:
		return ""
	case stage == podcontract.StageVerifier:
		return classes.Verifier
	}
	return classes.Agent
}

func deadline(in JobInput) int64 {
	budget := in.Timeouts.Verifier
	if in.Stage == podcontract.StageAgent {
		budget = in.Timeouts.Agent
		for _, h := range in.Task.Collect {
			budget += h.TimeoutSec
		}
	}
	return int64(math.Ceil(budget)) + GraceSeconds + StartAllowanceSeconds
}
