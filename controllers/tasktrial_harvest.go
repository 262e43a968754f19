package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// observe reads the stage's Job and newest Pod into the failure package's terms.
func (s *trialScope) observe(ctx context.Context, stage podcontract.Stage, job *batchv1.Job) (failure.Stage, *corev1.Pod, error) {
	obs := failure.Stage{Stage: stage, Now: s.now, JobCreated: job.CreationTimestamp.Time, StartTimeout: s.r.StartTimeout}
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
	pods := &corev1.PodList{}
	if err := s.r.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}); err != nil {
		return obs, nil, err
	}
	if len(pods.Items) == 0 {
		return obs, nil, nil
	}
	sort.Slice(pods.Items, func(i, j int) bool {
		return pods.Items[j].CreationTimestamp.Before(&pods.Items[i].CreationTimestamp)
	})
	pod := &pods.Items[0]
	obs.Pod = podObservation(pod, podbuild.MainContainer(stage))
	if msg := collectorMessage(pod); msg != "" {
		sum, err := podcontract.DecodeSummary(msg)
		if err != nil {
			obs.SummaryError = err
		} else {
			obs.Summary = &sum
		}
	}
	return obs, pod, nil
}

func podObservation(pod *corev1.Pod, main string) *failure.Pod {
	p := &failure.Pod{Reason: pod.Status.Reason, Message: pod.Status.Message,
		Terminal: pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && c.Status == corev1.ConditionTrue {
			p.Disruption = c.Reason
		}
	}
	for _, cs := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		if cs.State.Waiting != nil && cs.State.Waiting.Reason != "" {
			p.Waiting = append(p.Waiting, failure.ContainerWaiting{Container: cs.Name, Reason: cs.State.Waiting.Reason, Message: cs.State.Waiting.Message})
		}
		if cs.Name == main && (cs.State.Running != nil || cs.State.Terminated != nil || cs.LastTerminationState.Terminated != nil) {
			p.Started = true
		}
	}
	return p
}

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

// harvest takes a finished stage's outputs into the trial. A returned verdict replaces the
// stage's (a harvest that failed, or a patch too large to keep).
func (s *trialScope) harvest(ctx context.Context, stage podcontract.Stage, sum *podcontract.Summary, pod *corev1.Pod) (*failure.Verdict, error) {
	outputs, v := s.readOutputs(ctx, sum, pod)
	if v != nil {
		return v, nil
	}
	if stage == podcontract.StageAgent {
		return s.harvestAgent(ctx, sum, outputs)
	}
	return s.harvestVerifier(ctx, sum, outputs)
}

func (s *trialScope) readOutputs(ctx context.Context, sum *podcontract.Summary, pod *corev1.Pod) (map[string][]byte, *failure.Verdict) {
	lost := func(err error) *failure.Verdict {
		return &failure.Verdict{Done: true, Class: failure.ClassInfrastructure, Reason: failure.ReasonCollectorLost,
			Message: "reading the collector's outputs: " + err.Error()}
	}
	if !sum.Streamed {
		out, err := sum.InlineOutputs()
		if err != nil {
			return nil, lost(err)
		}
		return out, nil
	}
	if pod == nil {
		return nil, lost(fmt.Errorf("the pod is gone"))
	}
	rc, err := s.r.Logs.ContainerLog(ctx, pod.Namespace, pod.Name, podbuild.CollectorContainer)
	if err != nil {
		return nil, lost(err)
	}
	defer rc.Close()
	out, err := podcontract.DecodeStream(rc, *sum, podcontract.DefaultLimits())
	if err != nil {
		return nil, lost(err)
	}
	return out, nil
}

func (s *trialScope) harvestAgent(ctx context.Context, sum *podcontract.Summary, outputs map[string][]byte) (*failure.Verdict, error) {
	data := map[string][]byte{}
	size := 0
	for i := range s.task.Artifacts {
		key := podbuild.ArtifactKey(s.task.Artifacts, i)
		if o, ok := sum.Output(key); ok && o.TooLarge {
			return tooLarge(key, o.OriginalSize), nil
		}
		if b, ok := outputs[key]; ok {
			data[key] = b
			size += len(b)
		}
	}
	if size > podbuild.MaxSecretPayload {
		return tooLarge("artifacts", int64(size)), nil
	}
	name := podbuild.ArtifactSecretName(s.trial.Name)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.trial.Namespace, Labels: podbuild.Labels(s.trial, podcontract.StageAgent)},
		Data:       data,
	}
	if err := s.createOwned(ctx, secret); err != nil {
		return nil, err
	}
	patch := data[podcontract.PatchKey]
	ps := &evalv1.PatchStatus{SecretName: name, Bytes: int64(len(patch)), FilesChanged: int32(bytes.Count(patch, []byte("diff --git ")))}
	if o, ok := sum.Output(podcontract.PatchKey); ok {
		ps.SHA256 = o.SHA256
	}
	s.trial.Status.Patch = ps
	return nil, nil
}

func tooLarge(what string, size int64) *failure.Verdict {
	return &failure.Verdict{Done: true, Class: failure.ClassInput, Reason: failure.ReasonPatchTooLarge,
		Message: fmt.Sprintf("%s has %d bytes, more than the %d an object can hold; shrink the change or configure an artifact bucket", what, size, podbuild.MaxSecretPayload)}
}

func (s *trialScope) harvestVerifier(ctx context.Context, sum *podcontract.Summary, outputs map[string][]byte) (*failure.Verdict, error) {
	st := &s.trial.Status
	st.Rewards = make(map[string]string, len(sum.Rewards))
	for k, v := range sum.Rewards {
		st.Rewards[k] = scoring.Format(v)
	}
	reward := sum.Rewards[scoring.KeyReward]
	st.Score = scoring.Format(reward)
	st.BugsTotal = s.trial.Spec.BugsTotal
	if n, ok := sum.Rewards[scoring.KeySubtasks]; ok {
		st.BugsTotal, st.BugsResolved = int32(n), int32(sum.Rewards[scoring.KeyResolved])
	} else {
		// A reward-only task counts as one bug unless its ConfigMap says otherwise.
		st.BugsTotal = max(st.BugsTotal, 1)
		if reward >= 1 {
			st.BugsResolved = st.BugsTotal
		}
	}
	if v, ok := sum.Rewards[scoring.KeyVisibleOK]; ok && v < 1 {
		st.Regressed = true
	}
	data := map[string][]byte{}
	size := 0
	for _, key := range []string{podcontract.RecordReward, podcontract.RecordSWEBenchReport, podcontract.RecordEval} {
		if b, ok := outputs[key]; ok && size+len(b) <= podbuild.MaxSecretPayload {
			data[key] = b
			size += len(b)
		}
	}
	if _, ok := data[podcontract.RecordReward]; !ok {
		b, err := json.Marshal(sum.Rewards)
		if err != nil {
			return nil, err
		}
		data[podcontract.RecordReward] = b
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: podbuild.ResultsSecretName(s.trial.Name), Namespace: s.trial.Namespace,
			Labels: podbuild.Labels(s.trial, podcontract.StageVerifier)},
		Data: data,
	}
	return nil, s.createOwned(ctx, secret)
}
