package failure

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// ObserveJob is what a stage's Job shows at now: when it was created, and whether and how it
// ended.
func ObserveJob(stage podcontract.Stage, job *batchv1.Job, now time.Time, startTimeout time.Duration) Stage {
	obs := Stage{Stage: stage, Now: now, JobCreated: job.CreationTimestamp.Time, StartTimeout: startTimeout,
		Suspended: job.Spec.Suspend != nil && *job.Spec.Suspend}
	if job.Status.StartTime != nil {
		obs.JobStarted = job.Status.StartTime.Time
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil {
		obs.ActiveDeadline = time.Duration(*d) * time.Second
	}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			obs.JobComplete, obs.JobFinishedAt = true, c.LastTransitionTime.Time
		case batchv1.JobFailed:
			obs.JobFailed, obs.JobFailureReason, obs.JobFailureMessage = true, c.Reason, c.Message
			obs.JobFinishedAt = c.LastTransitionTime.Time
		}
	}
	return obs
}

// NewestPod is the latest created of a Job's Pods (a retried Pod replaces the one before), nil
// when there is none.
func NewestPod(pods []corev1.Pod) *corev1.Pod {
	var newest *corev1.Pod
	for i := range pods {
		if newest == nil || newest.CreationTimestamp.Before(&pods[i].CreationTimestamp) {
			newest = &pods[i]
		}
	}
	return newest
}

// PodsOfAdmission leaves out of a Job's Pods those of an earlier admission: after its queue
// evicted the Job and admitted it again (docs/kueue.md), the Pods the Job controller deleted
// on the eviction may still be listed, and they say nothing of the stage's new run. Such a
// Pod is being deleted and was created before the Job's current start (status.startTime,
// started), or the Job has not started again yet (started zero: Kueue unsuspended it, the Job
// controller has not recorded the start). A Pod of the current run is never left out unless
// it is being deleted too.
func PodsOfAdmission(pods []corev1.Pod, started time.Time) []corev1.Pod {
	var current []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil || (!started.IsZero() && !p.CreationTimestamp.Time.Before(started)) {
			current = append(current, p)
		}
	}
	return current
}

// ObservePod adds what the stage's Pod shows: its state, and the collector's summary from the
// collector container's termination message. A Pod that succeeded settles the stage (see
// settleOnPod).
func (s *Stage) ObservePod(pod *corev1.Pod) {
	s.Pod = podState(pod, podbuild.MainContainer(s.Stage))
	if msg := collectorMessage(pod); msg != "" {
		sum, err := podcontract.DecodeSummary(msg)
		if err != nil {
			s.SummaryError = err
		} else {
			s.Summary = &sum
		}
	}
	s.settleOnPod()
}

// settleOnPod takes a Pod that succeeded (its containers did, Pod.Succeeded) at least a
// second before its Job's deadline as the stage's end, without waiting for the Job's Complete
// condition. A stage's Job has one Pod and no retries (podbuild.Job), so the Job controller
// counts that Pod as the Job's completion, but on a busy cluster seconds later, and the trial
// would wait for it. A Job it marked DeadlineExceeded in a sync after such a Pod had ended is
// not the stage's timeout: the Pod's containers all ended by themselves, in time. The second
// of margin covers the whole seconds of the Pod's timestamps; a Pod that ended later waits
// for the Job's verdict.
func (s *Stage) settleOnPod() {
	p := s.Pod
	if !p.Succeeded || p.EndedAt.IsZero() || s.JobComplete {
		return
	}
	if s.ActiveDeadline > 0 && p.EndedAt.Add(time.Second).After(s.StartClock().Add(s.ActiveDeadline)) {
		return
	}
	s.JobComplete, s.JobFinishedAt = true, p.EndedAt
	s.JobFailed, s.JobFailureReason, s.JobFailureMessage = false, "", ""
}

func podState(pod *corev1.Pod, main string) *Pod {
	p := &Pod{Reason: pod.Status.Reason, Message: pod.Status.Message,
		Succeeded: pod.Status.Phase == corev1.PodSucceeded || (pod.Status.Phase != corev1.PodFailed && ContainersSucceeded(pod))}
	p.Terminal = p.Succeeded || pod.Status.Phase == corev1.PodFailed
	p.EndedAt = lastEnd(pod.Status)
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			p.Disruption = c.Reason
		}
	}
	for _, cs := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		if cs.State.Waiting != nil && cs.State.Waiting.Reason != "" {
			p.Waiting = append(p.Waiting, ContainerWaiting{Container: cs.Name, Reason: cs.State.Waiting.Reason, Message: cs.State.Waiting.Message})
		}
		if cs.Name == main && (cs.State.Running != nil || cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil) {
			p.Started = true
			p.StartedAt = firstStart(cs)
		}
		if cs.Name == main && (oomKilled(cs.State.Terminated) || oomKilled(cs.LastTerminationState.Terminated)) {
			p.OOMKilled = true
		}
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == main {
			_, p.MemoryLimited = c.Resources.Limits[corev1.ResourceMemory]
		}
	}
	return p
}

// ContainersSucceeded reports whether every container of the Pod has ended with exit code 0,
// the condition on which the kubelet reports the Pod Succeeded. It reports the containers'
// ends first, with the Pod still Running, and the phase only once it has torn the Pod down
// (its sandbox and network), about a second later on the local cluster: a stage waiting for
// the phase waits for that teardown. None of those containers runs again: a stage's Pod has
// restart policy Never (podbuild.Job), and the kubelet restarts no sidecar once the regular
// containers are done. Every container the spec names must have its status.
func ContainersSucceeded(pod *corev1.Pod) bool {
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	if len(pod.Status.ContainerStatuses) == 0 || len(statuses) < len(pod.Spec.InitContainers)+len(pod.Spec.Containers) {
		return false
	}
	for _, cs := range statuses {
		if t := cs.State.Terminated; t == nil || t.ExitCode != 0 {
			return false
		}
	}
	return true
}

// lastEnd is when the last of the Pod's containers ended, zero while any has not (or has no
// end recorded).
func lastEnd(st corev1.PodStatus) time.Time {
	var last time.Time
	for _, cs := range append(append([]corev1.ContainerStatus{}, st.InitContainerStatuses...), st.ContainerStatuses...) {
		t := cs.State.Terminated
		if t == nil || t.FinishedAt.IsZero() {
			return time.Time{}
		}
		if t.FinishedAt.After(last) {
			last = t.FinishedAt.Time
		}
	}
	return last
}

// firstStart is when the container first started: its earlier run's start if it restarted.
func firstStart(cs corev1.ContainerStatus) time.Time {
	for _, t := range []*corev1.ContainerStateTerminated{cs.LastTerminationState.Terminated, cs.State.Terminated} {
		if t != nil && !t.StartedAt.IsZero() {
			return t.StartedAt.Time
		}
	}
	if r := cs.State.Running; r != nil {
		return r.StartedAt.Time
	}
	return time.Time{}
}

// oomKilled is the runtime's reason for a container the kernel killed in its memory cgroup.
func oomKilled(t *corev1.ContainerStateTerminated) bool { return t != nil && t.Reason == "OOMKilled" }

// collectorMessage is the collector's termination message, from its last run if it restarted.
func collectorMessage(pod *corev1.Pod) string {
	for _, cs := range pod.Status.InitContainerStatuses {
		if cs.Name != podbuild.CollectorContainer {
			continue
		}
		if t := cs.State.Terminated; t != nil && t.Message != "" {
			return t.Message
		}
		if t := cs.LastTerminationState.Terminated; t != nil {
			return t.Message
		}
	}
	return ""
}

// RecheckAfter is when to look at a stage that is not done again: soon when its Job has
// finished but the Pod's final status is not in yet, when its start timeout would expire
// while the main container has not started, and not at all (0) once it runs or while its Job
// waits for admission, since Job and Pod events wake the trial for the rest.
func (s Stage) RecheckAfter() time.Duration {
	if s.Finished() {
		return time.Second
	}
	if s.Suspended || (s.Pod != nil && s.Pod.Started) {
		return 0
	}
	return max(s.StartClock().Add(s.StartTimeout).Sub(s.Now), time.Second)
}
