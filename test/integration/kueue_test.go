package integration

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// holdFinalizer keeps a deleted Pod listed, as a Pod the kubelet is still killing stays.
const holdFinalizer = "sweep.test/hold"

func (w *runWrapper) queue(name string, classes *evalv1.WorkloadPriorityClasses) *runWrapper {
	w.Spec.QueueName, w.Spec.WorkloadPriorityClasses = name, classes
	return w
}

// admit plays Kueue admitting a queued Job (it unsuspends it) and the Job controller starting
// it (status.startTime, the Suspended condition false).
func (k kubelet) admit(job *batchv1.Job) {
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(job), job)).To(Succeed())
	job.Spec.Suspend = ptr.To(false)
	ExpectWithOffset(1, k8s.Update(k.ctx(), job)).To(Succeed())
	now := metav1.Now()
	job.Status.StartTime = &now
	job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionFalse, Reason: "JobResumed", LastTransitionTime: now}}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), job)).To(Succeed())
}

// evict plays a Kueue eviction of an admitted Job (a preemption): Kueue suspends it again and
// clears status.startTime, the Job controller sets the Suspended condition and deletes the
// Job's Pod, which the kubelet kills. The Pod stays listed, terminating, until its
// holdFinalizer goes.
func (k kubelet) evict(job *batchv1.Job, pod *corev1.Pod) {
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(job), job)).To(Succeed())
	job.Spec.Suspend = ptr.To(true)
	ExpectWithOffset(1, k8s.Update(k.ctx(), job)).To(Succeed())
	job.Status.StartTime = nil
	job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionTrue, Reason: "JobSuspended", LastTransitionTime: metav1.Now()}}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), job)).To(Succeed())
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(pod), pod)).To(Succeed())
	// Killed mid-pull of its second image: a waiting reason that would be an infrastructure
	// failure in a running Job.
	pod.Status.Phase = corev1.PodFailed
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: pod.Spec.Containers[0].Name,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "killed while pulling"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}}}}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), pod)).To(Succeed())
	ExpectWithOffset(1, k8s.Delete(k.ctx(), pod)).To(Succeed())
}

// release lets a held Pod go.
func (k kubelet) release(pod *corev1.Pod) {
	patch := []byte(`{"metadata":{"finalizers":null}}`)
	ExpectWithOffset(1, client.IgnoreNotFound(k8s.Patch(k.ctx(), pod, client.RawPatch(types.MergePatchType, patch)))).To(Succeed())
}

func (k kubelet) admitted(name string) func() *metav1.Condition {
	return func() *metav1.Condition {
		return meta.FindStatusCondition(k.trial(name).Status.Conditions, evalv1.TrialAdmitted)
	}
}

func queuedTrials(ns, name string) func() int32 {
	return func() int32 { return getRun(ns, name)().Status.Trials.Queued }
}

var _ = Describe("A campaign in a Kueue queue", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("waits for admission without a failure, follows an eviction on the same Job without a retry, and scores every trial", func() {
		makeTask(ns, "a", 1).create()
		makeTask(ns, "b", 1).create()
		makeRun(ns, "kq").retries(0).queue("team-a", &evalv1.WorkloadPriorityClasses{Agent: "agents", Verifier: "verifiers"}).create()
		a, b := campaign.TrialName("kq", "a", 1), campaign.TrialName("kq", "b", 1)

		By("both agent Jobs are created suspended in the queue, with the agents' priority class")
		aJob, bJob := k.job(a, agentStage, 1), k.job(b, agentStage, 1)
		for _, job := range []*batchv1.Job{aJob, bJob} {
			Expect(job.Spec.Suspend).To(HaveValue(BeTrue()))
			Expect(job.Labels).To(HaveKeyWithValue(podbuild.QueueLabel, "team-a"))
			Expect(job.Labels).To(HaveKeyWithValue(podbuild.PriorityClassLabel, "agents"))
		}
		Eventually(k.admitted(a), timeout, poll).Should(And(Not(BeNil()), HaveField("Status", metav1.ConditionFalse),
			HaveField("Reason", reasons.WaitingForAdmission), HaveField("Message", ContainSubstring("LocalQueue team-a"))))
		Eventually(queuedTrials(ns, "kq"), timeout, poll).Should(Equal(int32(2)))

		By("a is admitted and its agent runs")
		k.admit(aJob)
		pod := k.startPod(aJob, "p1")
		pod.Finalizers = []string{holdFinalizer}
		Expect(k8s.Update(k.ctx(), pod)).To(Succeed())
		Eventually(k.admitted(a), timeout, poll).Should(HaveField("Status", metav1.ConditionTrue))
		Eventually(queuedTrials(ns, "kq"), timeout, poll).Should(Equal(int32(1)))
		Eventually(func() *metav1.Time { return k.trial(a).Status.Agent.AdmissionTime }, timeout, poll).ShouldNot(BeNil())

		By("Kueue evicts a's running agent: the trial waits again, counted once, nothing failed or retried")
		time.Sleep(1100 * time.Millisecond) // the re-admission's start (seconds) must be after p1's creation
		k.evict(aJob, pod)
		Eventually(k.admitted(a), timeout, poll).Should(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", reasons.QueueEvicted)))
		Eventually(queuedTrials(ns, "kq"), timeout, poll).Should(Equal(int32(2)))
		Consistently(func(g Gomega) {
			t := k.trial(a)
			g.Expect(t.Status.Phase).To(Equal(evalv1.TrialAgentRunning))
			g.Expect(t.Status.InfrastructureRetries).To(BeZero())
			g.Expect(t.Status.Agent.Run).To(Equal(int32(1)))
			g.Expect(t.Status.Agent.Evictions).To(Equal(int32(1)))
			g.Expect(t.Status.Agent.AdmissionTime).To(BeNil())
			g.Expect(t.Status.Agent.CompletionTime).To(BeNil())
		}, 2*time.Second, 100*time.Millisecond).Should(Succeed())

		By("Kueue admits the same Job again; its evicted Pod, still terminating, is not the new run's")
		uid := aJob.UID
		time.Sleep(1100 * time.Millisecond)
		k.admit(aJob)
		Eventually(k.admitted(a), timeout, poll).Should(HaveField("Status", metav1.ConditionTrue))
		Consistently(k.phaseOf(a), 2*time.Second, 100*time.Millisecond).Should(Equal(evalv1.TrialAgentRunning))
		again := k.job(a, agentStage, 1)
		Expect(again.UID).To(Equal(uid), "the controller kept the Job Kueue re-admits")
		p2 := k.startPod(again, "p2")
		k.release(pod)
		k.finishPod(p2, corev1.PodSucceeded, 0, agentSummary(samplePatch, ""))
		k.completeJob(again, "")

		By("the verifier Job is queued with the verifiers' priority class, then graded")
		vJob := k.job(a, verifierStage, 1)
		Expect(vJob.Spec.Suspend).To(HaveValue(BeTrue()))
		Expect(vJob.Labels).To(HaveKeyWithValue(podbuild.PriorityClassLabel, "verifiers"))
		Eventually(k.admitted(a), timeout, poll).Should(And(HaveField("Reason", reasons.WaitingForAdmission),
			HaveField("Message", ContainSubstring(string(podcontract.StageVerifier)))))
		k.admit(vJob)
		k.runStage(a, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(k.phaseOf(a), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		t := k.trial(a)
		Expect(t.Status.InfrastructureRetries).To(BeZero())
		Expect(t.Status.Agent.Evictions).To(Equal(int32(1)))
		Expect(t.Status.Score).To(Equal("1.0000"))

		By("b waited in the queue all along, then runs: the campaign scores both, with no failure")
		k.admit(bJob)
		k.runStage(b, agentStage, 1, agentSummary(samplePatch, ""))
		k.admit(k.job(b, verifierStage, 1))
		k.runStage(b, verifierStage, 1, verifierSummary(sweepRewards(1, 0, 1)))
		Eventually(getRun(ns, "kq"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "kq")()
		Expect(run.Status.GradedTrials).To(Equal(int32(2)))
		Expect(run.Status.EvaluationFailures).To(BeZero())
		Expect(run.Status.Trials.Error).To(BeZero())
		Expect(run.Status.Trials.Queued).To(BeZero())
		Expect(run.Status.Score).To(Equal("0.5000"))
	})

	It("refuses workloadPriorityClasses without a queue, naming both fields", func() {
		run := makeRun(ns, "noqueue").queue("", &evalv1.WorkloadPriorityClasses{Verifier: "verifiers"}).obj()
		err := k8s.Create(k.ctx(), run)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(And(ContainSubstring("spec.workloadPriorityClasses needs spec.queueName"), ContainSubstring("LocalQueue")))
	})
})
