package controllers

import (
	"bytes"
	"context"
	"fmt"
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

// observe reads the stage's Job and newest Pod into the failure package's terms.
func (s *trialScope) observe(ctx context.Context, stage podcontract.Stage, job *batchv1.Job) (failure.Stage, *corev1.Pod, error) {
	obs := failure.ObserveJob(stage, job, s.now, s.r.StartTimeout)
	pods := &corev1.PodList{}
	if err := s.r.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingFields{podJobIndex: job.Name}); err != nil {
		return obs, nil, err
	}
	pod := failure.NewestPod(failure.PodsOfAdmission(pods.Items, obs.JobStarted))
	if pod != nil {
		obs.ObservePod(pod)
	}
	return obs, pod, nil
}

// harvest takes a finished stage's outputs into the trial. A returned verdict replaces the
// stage's v: a harvest that failed, artifacts the verifier grades without, a result out of
// bounds. A verifier the agent's code ended (v.ZeroScore) leaves no result to read: it is
// scored reward.Zero of the trial's bugs.
func (s *trialScope) harvest(ctx context.Context, stage podcontract.Stage, v failure.Verdict, sum *podcontract.Summary, pod *corev1.Pod) (*failure.Verdict, error) {
	if v.ZeroScore {
		return s.keepResults(ctx, reward.Zero(int(s.trial.Spec.BugsTotal)), nil)
	}
	outputs, lost := s.readOutputs(ctx, sum, pod)
	if lost != nil {
		return lost, nil
	}
	if stage == podcontract.StageAgent {
		if err := s.recordAgent(ctx, outputs); err != nil {
			return nil, err
		}
		return s.harvestAgent(ctx, sum, outputs)
	}
	return s.keepResults(ctx, sum.Rewards, outputs)
}

func (s *trialScope) readOutputs(ctx context.Context, sum *podcontract.Summary, pod *corev1.Pod) (map[string][]byte, *failure.Verdict) {
	lost := func(err error) *failure.Verdict {
		return &failure.Verdict{Done: true, Class: failure.ClassInfrastructure, Reason: reasons.CollectorLost,
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
	defer func() { _ = rc.Close() }() // a log stream we only read; its close has nothing to report
	out, err := podcontract.DecodeStream(rc, *sum, podcontract.DefaultLimits())
	if err != nil {
		return nil, lost(err)
	}
	return out, nil
}

// harvestAgent keeps what the verifier receives of the agent's artifacts, with the checksums
// the collector sent, in Secrets owned by the trial (podbuild.ArtifactSecrets); the verdict
// says why some were left out.
func (s *trialScope) harvestAgent(ctx context.Context, sum *podcontract.Summary, outputs map[string][]byte) (*failure.Verdict, error) {
	keys := make([]string, len(s.task.Artifacts))
	for i := range s.task.Artifacts {
		keys[i] = podbuild.ArtifactKey(s.task.Artifacts, i)
	}
	data, verdict := failure.VerifierArtifacts(keys, *sum, outputs, podcontract.MaxArtifactBytes)
	checksums := map[string]string{}
	for key := range data {
		if o, ok := sum.Output(key); ok {
			checksums[key] = o.SHA256
		}
	}
	name := podbuild.ArtifactSecretName(s.trial.Name)
	for i, part := range podbuild.ArtifactSecrets(data, checksums) {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: podbuild.ArtifactSecretNameAt(s.trial.Name, i), Namespace: s.trial.Namespace,
				Labels: podbuild.Labels(s.trial, podcontract.StageAgent)},
			Data: part,
		}
		if err := s.createOwned(ctx, secret); err != nil {
			return nil, err
		}
	}
	patch, kept := data[podcontract.PatchKey]
	ps := &evalv1.PatchStatus{SecretName: name, Bytes: int64(len(patch)), FilesChanged: int32(bytes.Count(patch, []byte("diff --git ")))}
	if o, ok := sum.Output(podcontract.PatchKey); ok && kept {
		ps.SHA256 = o.SHA256
	}
	s.trial.Status.Patch = ps
	return verdict, nil
}

// keepResults keeps the verifier's result and outputs in the results Secrets and scores the
// trial, unless the result is out of bounds: then the results are kept and the verdict fails
// the trial unscored.
func (s *trialScope) keepResults(ctx context.Context, result reward.Result, outputs map[string][]byte) (*failure.Verdict, error) {
	s.recordGradingVersion(outputs)
	s.recordVerdicts(outputs)
	bounds, outOfBounds := failure.OutOfBounds(result, int(s.trial.Spec.BugsTotal))
	if !outOfBounds {
		scoreStatus(&s.trial.Status, result)
	}
	if _, ok := outputs[podcontract.RecordReward]; !ok {
		// Only when the verifier left none: reward.json is otherwise kept as it wrote it.
		b, err := reward.Encode(result)
		if err != nil {
			return nil, err
		}
		outputs = maps.Clone(outputs)
		if outputs == nil {
			outputs = map[string][]byte{}
		}
		outputs[podcontract.RecordReward] = b
	}
	if err := s.storeResults(ctx, outputs); err != nil {
		return nil, err
	}
	if outOfBounds {
		return &bounds, nil
	}
	return nil, nil
}

// keepUnscored keeps what a verifier that ended the trial unmeasured sent (a grader failure's
// own reward.json, its error files, the log), without scoring it and without a reward.json of
// our own. When those outputs cannot be read, the note says so for the trial's message.
func (s *trialScope) keepUnscored(ctx context.Context, sum *podcontract.Summary, pod *corev1.Pod) (note string, err error) {
	outputs, lost := s.readOutputs(ctx, sum, pod)
	if lost != nil {
		return "; the verifier's files were not kept: " + lost.Message, nil
	}
	return "", s.storeResults(ctx, outputs)
}

// storeResults keeps every record the verifier sent in the trial's results Secrets (see
// podbuild.SplitResults): reward.json, the grader's own outputs (SWE-bench's report.json) and
// eval.json first, in the first Secret when they fit.
func (s *trialScope) storeResults(ctx context.Context, outputs map[string][]byte) error {
	s.keepVerifierRecords(outputs)
	first := append(append([]string{podcontract.RecordReward}, s.grader.Outputs()...), podcontract.RecordEval, podcontract.RecordVerifierFiles)
	for i, data := range podbuild.SplitResults(outputs, first, podbuild.MaxSecretPayload) {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: podbuild.ResultsSecretNameAt(s.trial.Name, i), Namespace: s.trial.Namespace,
				Labels: podbuild.Labels(s.trial, podcontract.StageVerifier)},
			Data: data,
		}
		if err := s.createOwned(ctx, secret); err != nil {
			return err
		}
	}
	return nil
}

// scoreStatus writes a graded result into the trial's status, as reward.Outcome reads it, so
// that the trial shows what its campaign counts: a result that scoring skips (a reward-only
// task) shows its reward and no bug counts.
func scoreStatus(st *evalv1.TaskTrialStatus, result reward.Result) {
	st.Rewards = make(map[string]string, len(result))
	for k, v := range result {
		st.Rewards[k] = scoring.Format(v)
	}
	o := result.Outcome()
	st.Score = scoring.Format(o.Reward)
	st.BugsTotal, st.BugsResolved = int32(o.Bugs), int32(o.Resolved)
	st.Regressed = o.Regressed
}

// recordVerdicts sets a SWE-bench trial's OfficialVerdictAgrees condition from its eval.json, so that
// a trial whose hardened and official verdicts differ says so, and why, in its status.
func (s *trialScope) recordVerdicts(outputs map[string][]byte) {
	difference, ok := swebench.VerdictsOf(outputs[podcontract.RecordEval])
	if !ok {
		return
	}
	c := metav1.Condition{Type: evalv1.TrialOfficialVerdictAgrees, Status: metav1.ConditionTrue, Reason: reasons.VerdictsAgree,
		Message: "the hardened and the official verdict agree", ObservedGeneration: s.trial.Generation}
	if difference != "" {
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, reasons.VerdictsDiffer, difference
	}
	meta.SetStatusCondition(&s.trial.Status.Conditions, c)
}
