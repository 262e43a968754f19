package controllers

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/provenance"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// trialScope is one reconcile of one trial: the phases below read and change it, and the
// reconciler writes its status once at the end.
type trialScope struct {
	r         *TaskTrialReconciler
	trial     *evalv1.TaskTrial
	now       time.Time
	task      *taskdef.Task
	grader    grading.Grader
	timeouts  podbuild.Timeouts
	resources corev1.ResourceRequirements
	// record is where the trial's record goes, and what of it this reconcile harvested.
	record recordPlace
	// replacedAgent is the agent run a retry replaced in this reconcile, for the metrics.
	replacedAgent *evalv1.StageStatus
}

// phase is one step of the trial; done says the reconcile stops here with result.
type phase func(ctx context.Context) (result ctrl.Result, done bool, err error)

func (s *trialScope) run(ctx context.Context) (ctrl.Result, error) {
	st := &s.trial.Status
	if err := s.deleteHarvestedJobs(ctx); err != nil {
		return ctrl.Result{}, err
	}
	if st.Phase.Finished() {
		return ctrl.Result{}, nil
	}
	if st.Phase == "" {
		st.Phase = evalv1.TrialPending
		st.StartTime = s.metaNow()
	}
	s.ensureProvenance()
	before := st.DeepCopy()
	result, err := s.phases(ctx, s.loadTask, s.ensureNetworkPolicies, s.agentStage, s.verifierStage)
	if err == nil && st.Phase.Finished() {
		err = s.writeRecord(ctx)
	}
	return s.waitForStore(before, result, err)
}

// phases runs ps in order until one is done.
func (s *trialScope) phases(ctx context.Context, ps ...phase) (ctrl.Result, error) {
	for _, p := range ps {
		result, done, err := p(ctx)
		if err != nil || done {
			return result, err
		}
	}
	return ctrl.Result{}, nil
}

func (s *trialScope) metaNow() *metav1.Time {
	t := metav1.NewTime(s.now)
	return &t
}

// loadTask parses the definition and the run's policies; any error is the task's and final.
func (s *trialScope) loadTask(context.Context) (ctrl.Result, bool, error) {
	spec := &s.trial.Spec
	fail := func(msg string) (ctrl.Result, bool, error) {
		s.finish(evalv1.TrialError, reasons.InvalidTask, msg)
		return ctrl.Result{}, true, nil
	}
	if spec.Definition == "" {
		return fail(fmt.Sprintf("spec.definition is empty: task %q needs its task.toml (the %s key of the task ConfigMap)", spec.Task, evalv1.TaskTOMLKey))
	}
	task, err := taskdef.Parse(fmt.Sprintf("spec.definition (task.toml of task %q)", spec.Task), []byte(spec.Definition))
	if err != nil {
		return fail(err.Error())
	}
	if spec.Images.Agent == "" {
		return fail(fmt.Sprintf("spec.images.agent is empty: annotate the task ConfigMap of %q with %s", spec.Task, evalv1.AnnotationAgentImage))
	}
	if spec.Images.Verifier == "" {
		return fail(fmt.Sprintf("spec.images.verifier is empty: annotate the task ConfigMap of %q with %s", spec.Task, evalv1.AnnotationVerifierImage))
	}
	if _, err := podbuild.AgentKind(s.trial); err != nil {
		return fail(err.Error())
	}
	if s.grader, err = grading.Lookup(spec.Grader); err != nil {
		return fail(fmt.Sprintf("spec.grader of task %q: %v", spec.Task, err))
	}
	if err := s.grader.ValidateTrial(grading.TrialOptions{Task: spec.Task, Bugs: spec.Bugs, FlakeRechecks: spec.Grading.Rechecks()}); err != nil {
		return fail(err.Error())
	}
	if s.timeouts, err = podbuild.StageTimeouts(s.trial, task); err != nil {
		return fail(err.Error())
	}
	if s.resources, err = podbuild.Resources(spec.Resources, task.Environment); err != nil {
		return fail(err.Error())
	}
	s.task = task
	return ctrl.Result{}, false, nil
}

// ensureNetworkPolicies makes sure, before the trial's first Job, that the egress
// NetworkPolicies its stages' Pods are selected by exist: its campaign's, shared by its
// trials, or its own (podbuild.NetworkPolicies).
func (s *trialScope) ensureNetworkPolicies(ctx context.Context) (ctrl.Result, bool, error) {
	if s.trial.Status.Agent != nil || s.trial.Status.Verifier != nil {
		return ctrl.Result{}, false, nil
	}
	for _, np := range podbuild.NetworkPolicies(s.trial, s.task.Agent, s.task.Verifier.Stage) {
		if err := s.r.policies.ensure(ctx, s.r.Client, np, s.now); err != nil {
			return ctrl.Result{}, true, err
		}
	}
	return ctrl.Result{}, false, nil
}

func (s *trialScope) createOwned(ctx context.Context, o client.Object) error {
	if err := controllerutil.SetControllerReference(s.trial, o, s.r.Scheme()); err != nil {
		return err
	}
	if err := s.r.Create(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create %T %s: %w", o, o.GetName(), err)
	}
	return nil
}

func (s *trialScope) agentStage(ctx context.Context) (ctrl.Result, bool, error) {
	if s.trial.Spec.RegradeOf != "" {
		return s.regradeArtifacts(ctx)
	}
	return s.stage(ctx, podcontract.StageAgent, &s.trial.Status.Agent)
}

// regradeArtifacts stands for a regrade's agent stage: no agent runs. The patch is the one
// the trial named by spec.regradeOf stored, as that trial's status describes it (the manager
// reads no Secret), and the verifier mounts that trial's artifacts Secrets, checking each
// artifact's checksum as always. A regrade whose trial is gone or stored no artifacts ends
// ArtifactsLost.
func (s *trialScope) regradeArtifacts(ctx context.Context) (ctrl.Result, bool, error) {
	st := &s.trial.Status
	if st.Patch != nil {
		return ctrl.Result{}, false, nil
	}
	name := s.trial.Spec.RegradeOf
	lost := func(why string) (ctrl.Result, bool, error) {
		msg := fmt.Sprintf("spec.regradeOf: trial %s %s: nothing to regrade", name, why)
		if run := s.trial.Spec.SweepRun; run != "" {
			msg += fmt.Sprintf("; `sweep retry %s --reason %s` runs the attempt's agent again", run, reasons.ArtifactsLost)
		}
		s.finish(evalv1.TrialError, reasons.ArtifactsLost, msg)
		return ctrl.Result{}, true, nil
	}
	original := &evalv1.TaskTrial{}
	err := s.r.Get(ctx, types.NamespacedName{Namespace: s.trial.Namespace, Name: name}, original)
	if apierrors.IsNotFound(err) {
		return lost("is gone, and its artifacts Secrets with it")
	}
	if err != nil {
		return ctrl.Result{}, true, err
	}
	if original.Status.Patch == nil {
		return lost("stored no artifacts (its agent stage did not finish: its status.patch is empty)")
	}
	st.Patch = original.Status.Patch.DeepCopy()
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.TrialAgentCompleted, Status: metav1.ConditionTrue, Reason: reasons.Regraded,
		Message:            fmt.Sprintf("the agent did not run: the verifier grades the artifacts trial %s stored (Secret %s)", name, st.Patch.SecretName),
		ObservedGeneration: s.trial.Generation})
	return ctrl.Result{}, false, nil
}

func (s *trialScope) verifierStage(ctx context.Context) (ctrl.Result, bool, error) {
	return s.stage(ctx, podcontract.StageVerifier, &s.trial.Status.Verifier)
}

// stage drives one stage: create its Job, watch it, and act on how it ended.
func (s *trialScope) stage(ctx context.Context, stage podcontract.Stage, ss **evalv1.StageStatus) (ctrl.Result, bool, error) {
	st := &s.trial.Status
	if *ss != nil && (*ss).CompletionTime != nil {
		return ctrl.Result{}, false, nil
	}
	if *ss == nil {
		*ss = &evalv1.StageStatus{Run: 1, JobName: podbuild.JobName(s.trial.Name, stage, 1)}
	}
	if stage == podcontract.StageAgent {
		st.Phase = evalv1.TrialAgentRunning
	} else {
		st.Phase = evalv1.TrialVerifying
	}
	if st.RetryAfter != nil && s.now.Before(st.RetryAfter.Time) {
		return ctrl.Result{RequeueAfter: st.RetryAfter.Sub(s.now)}, true, nil
	}
	st.RetryAfter = nil
	job := &batchv1.Job{}
	err := s.r.Get(ctx, types.NamespacedName{Namespace: s.trial.Namespace, Name: (*ss).JobName}, job)
	if apierrors.IsNotFound(err) {
		return s.createJob(ctx, stage, *ss)
	}
	if err != nil {
		return ctrl.Result{}, true, err
	}
	obs, pod, err := s.observe(ctx, stage, job)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	recordStageTimes(*ss, obs)
	s.recordAdmission(*ss, obs)
	verdict := failure.Classify(obs)
	if hold, err := s.checkImage(ctx, stage, pod, &verdict); err != nil || hold {
		return ctrl.Result{RequeueAfter: provenance.PinRecheck}, true, err
	}
	if !verdict.Done {
		return ctrl.Result{RequeueAfter: obs.RecheckAfter()}, true, nil
	}
	decision := failure.Next(verdict, failure.Used{Infrastructure: st.InfrastructureRetries, Verifier: st.VerifierRetries}, s.trial.Spec.RetryPolicy)
	switch {
	case decision.Step == failure.StepProceed:
		if hv, err := s.harvest(ctx, stage, verdict, obs.Summary, pod); err != nil {
			return ctrl.Result{}, true, err
		} else if hv != nil {
			decision = failure.Next(*hv, failure.Used{Infrastructure: st.InfrastructureRetries, Verifier: st.VerifierRetries}, s.trial.Spec.RetryPolicy)
			verdict = *hv
		}
	case decision.Step == failure.StepFinish && stage == podcontract.StageVerifier && obs.Summary != nil:
		// The last verifier run of a trial it leaves unmeasured: what it wrote (a grader
		// failure's own reward.json among it) is kept for export.
		note, err := s.keepUnscored(ctx, obs.Summary, pod)
		if err != nil {
			return ctrl.Result{}, true, err
		}
		verdict.Message, decision.Message = verdict.Message+note, decision.Message+note
	}
	s.recordStageEnd(stage, *ss, verdict, obs.Summary)
	switch decision.Step {
	case failure.StepRetry:
		return s.retry(ctx, stage, ss, verdict.Class, decision)
	case failure.StepFinish:
		s.finish(decision.Phase, decision.Reason, decision.Message)
		return ctrl.Result{}, true, nil
	}
	if stage == podcontract.StageVerifier {
		s.finishGraded()
		return ctrl.Result{}, true, nil
	}
	return ctrl.Result{}, false, nil
}

func (s *trialScope) createJob(ctx context.Context, stage podcontract.Stage, ss *evalv1.StageStatus) (ctrl.Result, bool, error) {
	image, err := s.runImage(ctx, stage)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	spec, err := podbuild.StageSpec(s.trial, s.task, stage, s.timeouts)
	if err != nil {
		return ctrl.Result{}, true, err
	}
	job := podbuild.Job(podbuild.JobInput{Trial: s.trial, Task: s.task, Stage: stage, Run: ss.Run,
		HookImage: s.r.HookImage, Image: image, Timeouts: s.timeouts, Resources: s.resources, StageSpec: spec})
	if err := s.createOwned(ctx, job); err != nil {
		return ctrl.Result{}, true, err
	}
	if ss.StartTime == nil {
		ss.StartTime = s.metaNow()
	}
	s.recordAdmission(ss, failure.ObserveJob(stage, job, s.now, s.r.StartTimeout))
	return ctrl.Result{RequeueAfter: s.r.StartTimeout}, true, nil
}

// recordAdmission keeps, for a trial with a Kueue queue, how the stage's Job stands with it
// (failure.Admit) in the stage's status and the Admitted condition.
func (s *trialScope) recordAdmission(ss *evalv1.StageStatus, obs failure.Stage) {
	queue := s.trial.Spec.QueueName
	if queue == "" {
		return
	}
	prev := failure.Admission{Evictions: ss.Evictions}
	if ss.AdmissionTime != nil {
		prev.Admitted = ss.AdmissionTime.Time
	}
	if ss.EvictionTime != nil {
		prev.Evicted = ss.EvictionTime.Time
	}
	next, state := failure.Admit(obs, prev, queue)
	ss.AdmissionTime, ss.EvictionTime, ss.Evictions = optionalTime(next.Admitted), optionalTime(next.Evicted), next.Evictions
	status := metav1.ConditionTrue
	if state.Waiting() {
		status = metav1.ConditionFalse
	}
	meta.SetStatusCondition(&s.trial.Status.Conditions, metav1.Condition{Type: evalv1.TrialAdmitted, Status: status,
		Reason: state.Reason, Message: state.Message, ObservedGeneration: s.trial.Generation})
}

func optionalTime(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return &metav1.Time{Time: t}
}

func (s *trialScope) retry(ctx context.Context, stage podcontract.Stage, ss **evalv1.StageStatus, class failure.Class, d failure.Decision) (ctrl.Result, bool, error) {
	st := &s.trial.Status
	if class == failure.ClassVerifier {
		st.VerifierRetries++
	} else {
		st.InfrastructureRetries++
	}
	old := *ss
	if err := s.deleteJob(ctx, old.JobName); err != nil {
		return ctrl.Result{}, true, err
	}
	if stage == podcontract.StageAgent {
		s.replacedAgent = old
	}
	run := old.Run + 1
	*ss = &evalv1.StageStatus{Run: run, JobName: podbuild.JobName(s.trial.Name, stage, run)}
	st.RetryAfter = &metav1.Time{Time: s.now.Add(d.Backoff)}
	st.Reason, st.Message = d.Reason, d.Message
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: conditionOf(stage), Status: metav1.ConditionFalse,
		Reason: d.Reason, Message: d.Message, ObservedGeneration: s.trial.Generation})
	return ctrl.Result{RequeueAfter: max(d.Backoff, time.Millisecond)}, true, nil
}

func conditionOf(stage podcontract.Stage) string {
	if stage == podcontract.StageAgent {
		return evalv1.TrialAgentCompleted
	}
	return evalv1.TrialVerified
}

// recordStageTimes keeps when the stage's container started and its Job finished, as the
// Pod and Job show them, for the queue-wait and harvest-latency metrics.
func recordStageTimes(ss *evalv1.StageStatus, obs failure.Stage) {
	if ss.ContainerStartTime == nil && obs.Pod != nil && !obs.Pod.StartedAt.IsZero() {
		ss.ContainerStartTime = &metav1.Time{Time: obs.Pod.StartedAt}
	}
	if ss.JobFinishTime == nil && obs.Finished() && !obs.JobFinishedAt.IsZero() {
		ss.JobFinishTime = &metav1.Time{Time: obs.JobFinishedAt}
	}
}

func (s *trialScope) recordStageEnd(stage podcontract.Stage, ss *evalv1.StageStatus, v failure.Verdict, sum *podcontract.Summary) {
	ss.CompletionTime = s.metaNow()
	ss.Reason, ss.Message = v.Reason, v.Message
	if sum != nil {
		code := int32(sum.ExitCode)
		ss.ExitCode = &code
		if stage == podcontract.StageAgent {
			// Once per run of the stage: the next run's Job, or the stage's end, follows.
			campaign.RecordUsage(&s.trial.Status, sum.Usage, sum.UsageMessage)
		}
	}
	if stage == podcontract.StageVerifier {
		// Set from each verifier run's verdict, so that a retry that grades clears it.
		s.trial.Status.GraderFailed = v.Reason == reasons.GraderFailed
	}
	if v.Class == failure.ClassInfrastructure || v.Class == failure.ClassVerifier && stage == podcontract.StageVerifier {
		return
	}
	reason := v.Reason
	if reason == "" {
		reason = reasons.Completed
	}
	st := &s.trial.Status
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: conditionOf(stage), Status: metav1.ConditionTrue,
		Reason: reason, Message: v.Message, ObservedGeneration: s.trial.Generation})
	if v.Reason != "" {
		st.Reason, st.Message = v.Reason, v.Message
	}
}

// finish ends the trial.
func (s *trialScope) finish(phase evalv1.TrialPhase, reason, message string) {
	st := &s.trial.Status
	st.Phase, st.Reason, st.Message = phase, reason, message
	st.CompletionTime = s.metaNow()
	st.RetryAfter = nil
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.TrialComplete, Status: metav1.ConditionTrue,
		Reason: reason, Message: message, ObservedGeneration: s.trial.Generation})
}

// finishGraded ends a trial whose verifier produced rewards. Its reason is the cause of its
// score when the agent caused one (the grader's PatchRefused or TestsHungOnPatch, the
// verifier's VerifierOutOfMemory, else the agent stage's PatchTooLarge, AgentTimeout, ...),
// else Graded.
func (s *trialScope) finishGraded() {
	st := &s.trial.Status
	score := fmt.Sprintf("score %s", st.Score)
	verified, verifiedMessage := reasons.Graded, score
	if v := st.Verifier; v != nil && v.Reason != "" {
		verified, verifiedMessage = v.Reason, score+": "+v.Message
	}
	reason, message := verified, verifiedMessage
	if reason == reasons.Graded && st.Agent != nil && st.Agent.Reason != "" {
		reason, message = st.Agent.Reason, st.Agent.Message
	}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.TrialVerified, Status: metav1.ConditionTrue,
		Reason: verified, Message: verifiedMessage, ObservedGeneration: s.trial.Generation})
	s.finish(evalv1.TrialSucceeded, reason, message)
}

// deleteHarvestedJobs removes the Jobs of a trial whose end the status already records: only
// then may the Pods (and their termination messages and logs) go. A harvested agent Job stays
// until then, so that its Pod holds what its status records until the trial ends and the
// trial's Jobs go in one request.
func (s *trialScope) deleteHarvestedJobs(ctx context.Context) error {
	key := client.ObjectKeyFromObject(s.trial)
	if !s.trial.Status.Phase.Finished() || s.r.jobsDeleted.Is(key, s.trial.ResourceVersion) {
		return nil
	}
	jobs := &batchv1.JobList{}
	if err := s.r.List(ctx, jobs, client.InNamespace(s.trial.Namespace), client.MatchingLabels{evalv1.LabelTrial: s.trial.Name}); err != nil {
		return err
	}
	if !slices.ContainsFunc(jobs.Items, func(j batchv1.Job) bool { return j.DeletionTimestamp.IsZero() }) {
		return nil
	}
	if err := s.r.DeleteAllOf(ctx, &batchv1.Job{}, client.InNamespace(s.trial.Namespace), client.MatchingLabels{evalv1.LabelTrial: s.trial.Name},
		client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		return err
	}
	s.r.jobsDeleted.Set(key, s.trial.ResourceVersion)
	return nil
}

func (s *trialScope) deleteJob(ctx context.Context, name string) error {
	job := &batchv1.Job{}
	err := s.r.Get(ctx, types.NamespacedName{Namespace: s.trial.Namespace, Name: name}, job)
	if apierrors.IsNotFound(err) || (err == nil && !job.DeletionTimestamp.IsZero()) {
		return nil
	}
	if err != nil {
		return err
	}
	return client.IgnoreNotFound(s.r.Delete(ctx, job, client.PropagationPolicy(metav1.DeletePropagationBackground)))
}
