package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func ctrlConfig() config.Controller {
	// Each manager in a test registers the same controller names again.
	return config.Controller{SkipNameValidation: ptr.To(true)}
}

// fakeLogs stands in for pods/log, which needs a kubelet: the driver writes the collector's
// stream here, as a kubelet would keep the container's stdout.
type fakeLogs struct {
	mu   sync.Mutex
	logs map[string][]byte
}

func newFakeLogs() *fakeLogs { return &fakeLogs{logs: map[string][]byte{}} }

func (f *fakeLogs) set(ns, pod, container string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs[ns+"/"+pod+"/"+container] = data
}

func (f *fakeLogs) ContainerLog(_ context.Context, ns, pod, container string) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.logs[ns+"/"+pod+"/"+container]
	if !ok {
		return nil, fmt.Errorf("pods %q not found", pod)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// kubelet plays the node and the Job controller for a namespace.
type kubelet struct {
	ns string
}

func (k kubelet) ctx() context.Context { return context.Background() }

// job waits for the Job of a trial stage and run.
func (k kubelet) job(trial string, stage podcontract.Stage, run int32) *batchv1.Job {
	job := &batchv1.Job{}
	name := podbuild.JobName(trial, stage, run)
	EventuallyWithOffset(1, func() error {
		return k8s.Get(k.ctx(), client.ObjectKey{Namespace: k.ns, Name: name}, job)
	}, 20*time.Second, 50*time.Millisecond).Should(Succeed(), "job %s", name)
	return job
}

// startPod creates a Pod for the Job (as the Job controller would) and marks its main
// container running (as the kubelet would).
func (k kubelet) startPod(job *batchv1.Job, suffix string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: job.Name + "-" + suffix, Namespace: job.Namespace,
			Labels:          podLabels(job),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
		},
		Spec: *job.Spec.Template.Spec.DeepCopy(),
	}
	ExpectWithOffset(1, k8s.Create(k.ctx(), pod)).To(Succeed())
	pod.Status.Phase = corev1.PodRunning
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: pod.Spec.Containers[0].Name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), pod)).To(Succeed())
	return pod
}

// podLabels are the Job's template labels plus the job-name label the Job controller adds.
func podLabels(job *batchv1.Job) map[string]string {
	out := maps.Clone(job.Spec.Template.Labels)
	out[batchv1.JobNameLabel] = job.Name
	return out
}

// finishPod ends the Pod with the collector's summary as its termination message.
func (k kubelet) finishPod(pod *corev1.Pod, phase corev1.PodPhase, exitCode int32, sum *podcontract.Summary) {
	k.endPod(pod, phase, corev1.ContainerStateTerminated{ExitCode: exitCode}, sum)
}

// oomKillPod ends the Pod as the kubelet reports a main container the kernel killed in its
// memory cgroup: exit 137, reason OOMKilled; the collector was stopped before done.
func (k kubelet) oomKillPod(pod *corev1.Pod, stage podcontract.Stage) {
	k.endPod(pod, corev1.PodFailed, corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"},
		&podcontract.Summary{Stage: stage, StreamID: "s-oom", ExitCode: -1, Reason: reasons.CollectorInterrupted})
}

// endPod ends the Pod with its main container terminated as given.
func (k kubelet) endPod(pod *corev1.Pod, phase corev1.PodPhase, main corev1.ContainerStateTerminated, sum *podcontract.Summary) {
	msg := ""
	if sum != nil {
		b, err := podcontract.EncodeSummary(*sum)
		ExpectWithOffset(1, err).NotTo(HaveOccurred())
		msg = string(b)
	}
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(pod), pod)).To(Succeed())
	imageID := ""
	if cs := pod.Status.ContainerStatuses; len(cs) > 0 {
		// The kubelet keeps the image ID it reported (reportImage) when the container ends.
		imageID = cs[0].ImageID
		if main.StartedAt.IsZero() && cs[0].State.Running != nil {
			main.StartedAt = cs[0].State.Running.StartedAt
		}
	}
	// The kubelet records each container's end; a Pod that succeeded is then the stage's end.
	ended := metav1.Now()
	if main.FinishedAt.IsZero() {
		main.FinishedAt = ended
	}
	pod.Status.Phase = phase
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: podbuild.CollectorContainer,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Message: msg, FinishedAt: ended}}}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: pod.Spec.Containers[0].Name, ImageID: imageID,
		State: corev1.ContainerState{Terminated: &main}}}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), pod)).To(Succeed())
}

// completeJob marks the Job succeeded, or failed with reason.
func (k kubelet) completeJob(job *batchv1.Job, failedReason string) {
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(job), job)).To(Succeed())
	now := metav1.Now()
	if job.Status.StartTime == nil {
		// Immutable once set on a running Job (a queued one's admission set it).
		job.Status.StartTime = &now
	}
	if failedReason == "" {
		job.Status.Succeeded = 1
		job.Status.CompletionTime = &now
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now},
		}
	} else {
		job.Status.Failed = 1
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: failedReason, LastTransitionTime: now},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: failedReason, Message: "job " + strings.ToLower(failedReason), LastTransitionTime: now},
		}
	}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), job)).To(Succeed())
}

// agentSummary is a finished agent stage whose patch rides inline.
func agentSummary(patch string, reason string) *podcontract.Summary {
	out := podcontract.NewOutput(podcontract.PatchKey, []byte(patch), int64(len(patch)))
	out.Inline = []byte(patch)
	return &podcontract.Summary{Stage: podcontract.StageAgent, StreamID: "s-agent", Done: true, Reason: reason, Outputs: []podcontract.Output{out}}
}

// verifierSummary reports rewards.
func verifierSummary(rewards map[string]float64) *podcontract.Summary {
	return &podcontract.Summary{Stage: podcontract.StageVerifier, StreamID: "s-verify", Done: true, Rewards: rewards}
}

func sweepRewards(subtasks, resolved, visibleOK float64) map[string]float64 {
	reward := 0.0
	if visibleOK >= 1 {
		reward = resolved / subtasks
	}
	return map[string]float64{"reward": reward, "n_subtasks": subtasks, "n_resolved": resolved, "n_partial": 0,
		"visible_ok": visibleOK, "n_regressions": 1 - visibleOK, "agent_patch_applied": 1, "agent_build_ok": 1, "grader_failed": 0}
}

// runStage drives one stage of a trial to a normal end: its Pod succeeds. The Job's Complete
// condition is left out, as a busy Job controller sets it late: a Pod that succeeded is the
// stage's end (failure.Stage.ObservePod), and at the trial's end its Jobs are deleted.
func (k kubelet) runStage(trial string, stage podcontract.Stage, run int32, sum *podcontract.Summary) {
	job := k.job(trial, stage, run)
	pod := k.startPod(job, "p1")
	k.finishPod(pod, corev1.PodSucceeded, 0, sum)
}

// trial waits for a trial to exist and returns it.
func (k kubelet) trial(name string) *evalv1.TaskTrial {
	t := &evalv1.TaskTrial{}
	EventuallyWithOffset(1, func() error { return k8s.Get(k.ctx(), client.ObjectKey{Namespace: k.ns, Name: name}, t) },
		20*time.Second, 50*time.Millisecond).Should(Succeed(), "trial %s", name)
	return t
}

// phaseOf polls a trial's phase.
func (k kubelet) phaseOf(name string) func() evalv1.TrialPhase {
	return func() evalv1.TrialPhase {
		t := &evalv1.TaskTrial{}
		if err := k8s.Get(k.ctx(), client.ObjectKey{Namespace: k.ns, Name: name}, t); err != nil {
			return ""
		}
		return t.Status.Phase
	}
}
