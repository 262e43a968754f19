package integration

import (
	"bytes"
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

const (
	agentStage    = podcontract.StageAgent
	verifierStage = podcontract.StageVerifier
	samplePatch   = "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
	timeout       = 20 * time.Second
	poll          = 50 * time.Millisecond
)

func getRun(ns, name string) func() *evalv1.SweepRun {
	return func() *evalv1.SweepRun {
		run := &evalv1.SweepRun{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, run)).To(Succeed())
		return run
	}
}

func completed(run *evalv1.SweepRun) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.SweepRunComplete)
}

// streamedAgentSummary reports a patch sent on the collector's stream rather than inline.
func streamedAgentSummary(k kubelet, pod *corev1.Pod, patch string) *podcontract.Summary {
	var buf bytes.Buffer
	Expect(podcontract.EncodeStream(&buf, "s-streamed", []podcontract.Record{{Name: podcontract.PatchKey, Data: []byte(patch)}})).To(Succeed())
	logs.set(k.ns, pod.Name, podbuild.CollectorContainer, buf.Bytes())
	return &podcontract.Summary{Stage: agentStage, StreamID: "s-streamed", Done: true, Streamed: true,
		Outputs: []podcontract.Output{podcontract.NewOutput(podcontract.PatchKey, []byte(patch), int64(len(patch)))}}
}

var _ = Describe("TaskTrial and SweepRun controllers", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("runs the happy path: agent Job, harvest, verifier Job, harvest, scores", func() {
		makeTask(ns, "calc", 4).create()
		makeTask(ns, "strings", 2).create()
		makeRun(ns, "happy").create()
		calc, str := campaign.TrialName("happy", "calc", 1), campaign.TrialName("happy", "strings", 1)

		By("the agent Job is built as docs/design.md §4 says")
		job := k.job(calc, agentStage, 1)
		pod := job.Spec.Template.Spec
		Expect(*pod.AutomountServiceAccountToken).To(BeFalse())
		Expect(job.Spec.PodFailurePolicy.Rules[0].OnPodConditions[0].Type).To(Equal(corev1.DisruptionTarget))
		Expect(*job.Spec.PodReplacementPolicy).To(Equal(batchv1.Failed))
		Expect(*job.Spec.ActiveDeadlineSeconds).To(BeNumerically(">", 60))
		Expect(job.Labels).To(HaveKeyWithValue(evalv1.LabelStage, "agent"))
		Expect(job.OwnerReferences[0].Name).To(Equal(calc))
		By("one NetworkPolicy for the campaign's no-network stages, owned by the SweepRun")
		class := job.Spec.Template.Labels[evalv1.LabelEgress]
		Expect(class).NotTo(BeEmpty(), "the agent's Pods carry their egress class")
		np := &networkingv1.NetworkPolicy{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.NetworkPolicyName("happy", class)}, np)).To(Succeed())
		Expect(np.Spec.Egress).To(BeEmpty())
		Expect(np.Spec.PodSelector.MatchLabels).To(Equal(map[string]string{evalv1.LabelSweepRun: "happy", evalv1.LabelEgress: class}))
		Expect(metav1.GetControllerOf(np).Kind).To(Equal("SweepRun"))

		By("harvesting an inline patch into a Secret owned by the trial, before the verifier starts")
		k.runStage(calc, agentStage, 1, agentSummary(samplePatch, ""))
		verifyJob := k.job(calc, verifierStage, 1)
		secret := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ArtifactSecretName(calc)}, secret)).To(Succeed())
		Expect(string(secret.Data[podcontract.PatchKey])).To(Equal(samplePatch))
		Expect(secret.OwnerReferences[0].Name).To(Equal(calc))
		Expect(verifyJob.Spec.Template.Labels).To(HaveKeyWithValue(evalv1.LabelEgress, class), "both stages have no network: one class")
		Expect(verifyJob.Spec.Template.Spec.Volumes).To(ContainElement(HaveField("VolumeSource.Projected.Sources",
			ContainElement(HaveField("Secret.Name", podbuild.ArtifactSecretName(calc))))))
		Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(job), job)).To(Succeed(), "the harvested agent Job stays until the trial ends")
		Expect(job.DeletionTimestamp.IsZero()).To(BeTrue(), "the harvested agent Job stays until the trial ends")
		k.runStage(calc, verifierStage, 1, verifierSummary(sweepRewards(4, 2, 1)))
		for _, j := range []*batchv1.Job{job, verifyJob} {
			Eventually(func() bool {
				err := k8s.Get(context.Background(), client.ObjectKeyFromObject(j), j)
				return apierrors.IsNotFound(err) || !j.DeletionTimestamp.IsZero()
			}, timeout, poll).Should(BeTrue(), "the trial's Job %s is deleted once it ends", j.Name)
		}

		By("harvesting a streamed patch through the log reader")
		strJob := k.job(str, agentStage, 1)
		strPod := k.startPod(strJob, "p1")
		k.finishPod(strPod, corev1.PodSucceeded, 0, streamedAgentSummary(k, strPod, samplePatch))
		k.completeJob(strJob, "")
		k.runStage(str, verifierStage, 1, verifierSummary(sweepRewards(2, 2, 1)))

		Eventually(getRun(ns, "happy"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "happy")()
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(run.Status.Score).To(Equal("0.6667"))
		Expect(run.Status.BugsResolved).To(Equal("4.00"))
		Expect(run.Status.BugsTotal).To(Equal(int32(6)))
		Expect(run.Status.Progress).To(Equal("2/2"))
		Expect(run.Status.Trials.Succeeded).To(Equal(int32(2)))
		t := k.trial(calc)
		Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(t.Status.Score).To(Equal("0.5000"))
		Expect(t.Status.BugsResolved).To(Equal(int32(2)))
		Expect(t.Status.Patch.Bytes).To(Equal(int64(len(samplePatch))))
		Expect(t.Status.Patch.FilesChanged).To(Equal(int32(1)))
		Expect(t.Status.Rewards).To(HaveKeyWithValue("visible_ok", "1.0000"))
		Expect(t.Status.Reason).To(Equal("Graded"))
		Expect(k.trial(str).Status.Patch.SHA256).NotTo(BeEmpty())
	})

	It("waits for the Pod's final status when the finished Job is seen first", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "order").create()
		name := campaign.TrialName("order", "calc", 1)
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		k.completeJob(job, "")
		Consistently(func() int32 { return k.trial(name).Status.InfrastructureRetries }, 2*time.Second, poll).Should(BeZero(),
			"a Job finished before its Pod's status arrived is not a lost collector")
		k.finishPod(pod, corev1.PodSucceeded, 0, agentSummary(samplePatch, ""))
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(4, 4, 1)))
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		Expect(k.trial(name).Status.Agent.Run).To(Equal(int32(1)))
	})

	It("harvests a stage once its Pod succeeded, before the Job controller marks the Job Complete", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "early").create()
		name := campaign.TrialName("early", "calc", 1)
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		k.finishPod(pod, corev1.PodSucceeded, 0, agentSummary(samplePatch, ""))
		k.job(name, verifierStage, 1)
		Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(job), job)).To(Succeed())
		Expect(job.Status.Conditions).To(BeEmpty(), "the agent Job was never marked finished")
		agent := k.trial(name).Status.Agent
		Expect(agent.CompletionTime).NotTo(BeNil())
		Expect(agent.JobFinishTime).NotTo(BeNil())
		Expect(agent.JobFinishTime.Time).To(BeTemporally("<=", agent.CompletionTime.Time), "the stage ended when its Pod's last container did")
		Expect(k.trial(name).Status.Patch.Bytes).To(Equal(int64(len(samplePatch))))
	})

	It("verifies an agent that ran past its timeout", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "slow").create()
		name := campaign.TrialName("slow", "calc", 1)
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		sum := agentSummary(samplePatch, "")
		sum.Done, sum.Reason = false, reasons.CollectorInterrupted
		k.finishPod(pod, corev1.PodFailed, 137, sum)
		k.completeJob(job, "DeadlineExceeded")
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(4, 1, 1)))
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal(reasons.AgentTimeout))
		Expect(t.Status.Score).To(Equal("0.2500"))
		Expect(t.Status.Patch.Bytes).To(Equal(int64(len(samplePatch))))
	})

	It("lets the Job replace a disrupted Pod, retries a Job lost to eviction, and never scores the lost runs", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "evict").retries(1).create()
		name := campaign.TrialName("evict", "calc", 1)

		By("a DisruptionTarget Pod is ignored by the Job's pod failure policy: a new Pod runs in the same Job")
		job := k.job(name, agentStage, 1)
		first := k.startPod(job, "p1")
		first.Status.Phase = corev1.PodFailed
		first.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI"}}
		Expect(k8s.Status().Update(context.Background(), first)).To(Succeed())
		Consistently(k.phaseOf(name), time.Second, poll).Should(Equal(evalv1.TrialAgentRunning))
		second := k.startPod(job, "p2")

		By("a Pod evicted without a DisruptionTarget fails the Job: the stage runs again in a new Job")
		second.Status.Phase, second.Status.Reason, second.Status.Message = corev1.PodFailed, "Evicted", "node low on ephemeral-storage"
		Expect(k8s.Status().Update(context.Background(), second)).To(Succeed())
		k.completeJob(job, "BackoffLimitExceeded")
		Eventually(func() int32 { return k.trial(name).Status.InfrastructureRetries }, timeout, poll).Should(Equal(int32(1)))
		Expect(k.trial(name).Status.Reason).To(Equal("PodEvicted"))
		Expect(k.trial(name).Status.Score).To(BeEmpty())

		By("the retry is evicted too: retries are exhausted and the trial is an Error, not a score")
		retry := k.job(name, agentStage, 2)
		pod := k.startPod(retry, "p1")
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
		Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
		k.completeJob(retry, "BackoffLimitExceeded")
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialError))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal("PodEvicted"))
		Expect(t.Status.Score).To(BeEmpty())
		Expect(t.Status.Message).To(ContainSubstring("infrastructure retries exhausted"))
		Eventually(getRun(ns, "evict"), timeout, poll).Should(Satisfy(func(r *evalv1.SweepRun) bool {
			return r.Status.EvaluationFailures == 1 && r.Status.GradedTrials == 0 && r.Status.Phase == evalv1.SweepRunFailedPh
		}))
	})

	It("excludes a grader failure from the campaign score", func() {
		makeTask(ns, "calc", 4).create()
		makeTask(ns, "strings", 2).create()
		makeRun(ns, "grader").create()
		calc, str := campaign.TrialName("grader", "calc", 1), campaign.TrialName("grader", "strings", 1)
		k.runStage(calc, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(calc, verifierStage, 1, verifierSummary(map[string]float64{"reward": 0, "grader_failed": 1}))
		k.runStage(str, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(str, verifierStage, 1, verifierSummary(sweepRewards(2, 1, 1)))
		Eventually(getRun(ns, "grader"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "grader")()
		Expect(run.Status.Score).To(Equal("0.5000"), "only strings is graded: 1 of 2 bugs")
		Expect(run.Status.BugsTotal).To(Equal(int32(2)))
		Expect(run.Status.EvaluationFailures).To(Equal(int32(1)))
		t := k.trial(calc)
		Expect(t.Status.Phase).To(Equal(evalv1.TrialFailed))
		Expect(t.Status.Reason).To(Equal(reasons.GraderFailed))
		Expect(t.Status.GraderFailed).To(BeTrue())
		Expect(k.trial(str).Status.GraderFailed).To(BeFalse())
	})

	It("fails a trial whose result is out of bounds, keeps its results, and never scores it", func() {
		makeTask(ns, "calc", 2).create()
		makeTask(ns, "strings", 2).create()
		// Verifier retries are asked for: a result out of bounds is not retried all the same.
		run := makeRun(ns, "bounds").retries(2)
		run.Spec.RetryPolicy.RetryVerifierFailures = true
		run.create()
		calc, str := campaign.TrialName("bounds", "calc", 1), campaign.TrialName("bounds", "strings", 1)
		forged := sweepRewards(2, 1000, 1)
		forged["reward"] = 1
		k.runStage(calc, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(calc, verifierStage, 1, verifierSummary(forged))
		k.runStage(str, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(str, verifierStage, 1, verifierSummary(sweepRewards(2, 1, 1)))
		Eventually(getRun(ns, "bounds"), timeout, poll).Should(Satisfy(completed))

		t := k.trial(calc)
		Expect(t.Status.Phase).To(Equal(evalv1.TrialFailed))
		Expect(t.Status.Reason).To(Equal(reasons.RewardOutOfBounds))
		Expect(t.Status.Message).To(ContainSubstring("n_resolved is 1000, above n_subtasks (2)"))
		Expect(t.Status.Score).To(BeEmpty(), "never scored")
		Expect(t.Status.BugsResolved).To(BeZero())
		Expect(t.Status.VerifierRetries).To(BeZero(), "not retried")
		Expect(t.Status.GraderFailed).To(BeFalse())
		secret := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ResultsSecretName(calc)}, secret)).To(Succeed())
		Expect(string(secret.Data[podcontract.RecordReward])).To(ContainSubstring(`"n_resolved":1000`), "the results are kept")

		got := getRun(ns, "bounds")()
		Expect(got.Status.Score).To(Equal("0.5000"), "only strings is graded: 1 of 2 bugs")
		Expect(got.Status.BugsTotal).To(Equal(int32(2)))
		Expect(got.Status.EvaluationFailures).To(Equal(int32(1)))
		Expect(got.Status.GradedTrials).To(Equal(int32(1)))
	})

	It("reads a reward-only result one way in the trial and in the campaign: skipped, not bugs", func() {
		makeTask(ns, "hello", 5).create()
		makeTask(ns, "strings", 2).create()
		makeRun(ns, "rewardonly").create()
		hello, str := campaign.TrialName("rewardonly", "hello", 1), campaign.TrialName("rewardonly", "strings", 1)
		k.runStage(hello, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(hello, verifierStage, 1, verifierSummary(map[string]float64{"reward": 1}))
		k.runStage(str, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(str, verifierStage, 1, verifierSummary(sweepRewards(2, 1, 1)))
		Eventually(getRun(ns, "rewardonly"), timeout, poll).Should(Satisfy(completed))
		t := k.trial(hello)
		Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(t.Status.Score).To(Equal("1.0000"))
		Expect(t.Status.BugsTotal).To(BeZero(), "not the task's 5 declared bugs")
		Expect(t.Status.BugsResolved).To(BeZero(), "not 5/5")
		run := getRun(ns, "rewardonly")()
		Expect(run.Status.BugsTotal).To(Equal(int32(2)), "only strings counts: not 5 bugs, not 1")
		Expect(run.Status.Score).To(Equal("0.5000"))
		Expect(run.Status.GradedTrials).To(Equal(int32(1)))
		Expect(run.Status.EvaluationFailures).To(BeZero())
	})

	It("never has more unfinished trials than parallelism, checked at every step", func() {
		tasks := []string{"t1", "t2", "t3", "t4", "t5"}
		for _, t := range tasks {
			makeTask(ns, t, 1).create()
		}
		makeRun(ns, "par").attempts(2).parallelism(3).create()
		unfinished := func() int {
			list := &evalv1.TaskTrialList{}
			Expect(k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
			n := 0
			for _, t := range list.Items {
				if !t.Status.Phase.Finished() {
					n++
				}
			}
			return n
		}
		for _, task := range tasks {
			for attempt := int32(1); attempt <= 2; attempt++ {
				name := campaign.TrialName("par", task, attempt)
				k.trial(name)
				Expect(unfinished()).To(BeNumerically("<=", 3))
				k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
				Expect(unfinished()).To(BeNumerically("<=", 3))
				k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
				Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
				Consistently(unfinished, 200*time.Millisecond, 20*time.Millisecond).Should(BeNumerically("<=", 3))
			}
		}
		Eventually(getRun(ns, "par"), timeout, poll).Should(Satisfy(completed))
		Expect(getRun(ns, "par")().Status.Score).To(Equal("1.0000"))
	})

	It("ends a trial with an invalid task as Error InvalidTask, naming the field", func() {
		makeTask(ns, "broken", 1).definition("[agent]\ntimeout_sec = \"forever\"\n").create()
		makeRun(ns, "invalid").create()
		name := campaign.TrialName("invalid", "broken", 1)
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialError))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal("InvalidTask"))
		Expect(t.Status.Message).To(Equal(`spec.definition (task.toml of task "broken"): key "agent.timeout_sec": want a number, got string "forever"`))
		jobs := &batchv1.JobList{}
		Expect(k8s.List(context.Background(), jobs, client.InNamespace(ns))).To(Succeed())
		Expect(jobs.Items).To(BeEmpty())
	})
})

var _ = Describe("a SWE-bench task graded in part", func() {
	It("is refused as InvalidTask: an instance is one bug", func() {
		ns := newNamespace()
		k := kubelet{ns: ns}
		stop := startManager()
		defer stop()
		makeTask(ns, "inst", 1).grader(podcontract.GraderSWEBench).create()
		makeRun(ns, "subset").names("inst").bugs("inst", "b1").create()
		name := campaign.TrialName("subset", "inst", 1)
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialError))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal("InvalidTask"))
		Expect(t.Status.Message).To(Equal(`spec.bugs: a SWE-bench instance is one bug and cannot be graded in part; remove task "inst" from spec.tasks.bugs of the SweepRun`))
	})
})

var _ = Describe("a manager restarted mid-campaign", func() {
	It("finishes every trial once and creates none twice", func() {
		ns := newNamespace()
		k := kubelet{ns: ns}
		for _, t := range []string{"a", "b", "c"} {
			makeTask(ns, t, 2).create()
		}
		stop := startManager()
		makeRun(ns, "restart").attempts(2).parallelism(4).create()
		a1, a2 := campaign.TrialName("restart", "a", 1), campaign.TrialName("restart", "a", 2)
		k.runStage(a1, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(a1, verifierStage, 1, verifierSummary(sweepRewards(2, 2, 1)))
		Eventually(k.phaseOf(a1), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		// a2's agent finished while no manager runs.
		job := k.job(a2, agentStage, 1)
		stop()
		pod := k.startPod(job, "p1")
		k.finishPod(pod, corev1.PodSucceeded, 0, agentSummary(samplePatch, ""))
		k.completeJob(job, "")
		finishedAt := k.trial(a1).Status.CompletionTime

		stop = startManager()
		defer stop()
		k.runStage(a2, verifierStage, 1, verifierSummary(sweepRewards(2, 1, 1)))
		for _, t := range []string{"b", "c"} {
			for attempt := int32(1); attempt <= 2; attempt++ {
				name := campaign.TrialName("restart", t, attempt)
				k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
				k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(2, 2, 1)))
			}
		}
		Eventually(getRun(ns, "restart"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "restart")()
		Expect(run.Status.Score).To(Equal("0.9167"), "a: (2+1)/2 of 2, b and c: 2 of 2 each → 5.5/6")
		trials := &evalv1.TaskTrialList{}
		Expect(k8s.List(context.Background(), trials, client.InNamespace(ns))).To(Succeed())
		Expect(trials.Items).To(HaveLen(6))
		for _, t := range trials.Items {
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
			Expect(t.Status.Agent.Run).To(Equal(int32(1)), "%s ran its agent more than once", t.Name)
			Expect(t.Status.Verifier.Run).To(Equal(int32(1)), "%s ran its verifier more than once", t.Name)
		}
		Expect(k.trial(a1).Status.CompletionTime).To(Equal(finishedAt), "a finished trial is not finished again")
		results := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ResultsSecretName(a2)}, results)).To(Succeed())
		Expect(string(results.Data[podcontract.RecordReward])).To(ContainSubstring(`"n_resolved":1`))
	})
})
