package integration

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/statusevents"
)

// kstatusOf is what kstatus (Flux's health checks, cli-utils) computes for the object.
func kstatusOf(obj runtime.Object) status.Status {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	Expect(err).NotTo(HaveOccurred())
	res, err := status.Compute(&unstructured.Unstructured{Object: u})
	Expect(err).NotTo(HaveOccurred())
	return res.Status
}

func runStatus(ns, name string) func() status.Status {
	return func() status.Status { return kstatusOf(getRun(ns, name)()) }
}

// eventsAbout lists the events.k8s.io/v1 Events regarding the named object, as
// "Type Reason Action".
func eventsAbout(ns, name string) func() []string {
	return func() []string {
		list := &eventsv1.EventList{}
		Expect(k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
		var out []string
		for _, e := range list.Items {
			if e.Regarding.Name == name {
				out = append(out, e.Type+" "+e.Reason+" "+e.Action)
			}
		}
		return out
	}
}

// observed: every kstatus condition carries the object's generation, as does the status.
func observed(generation, statusGeneration int64, conds []metav1.Condition) {
	ExpectWithOffset(1, statusGeneration).To(Equal(generation))
	for _, typ := range []string{evalv1.ConditionReady, evalv1.ConditionReconciling, evalv1.ConditionStalled} {
		c := meta.FindStatusCondition(conds, typ)
		ExpectWithOffset(1, c).NotTo(BeNil(), typ)
		ExpectWithOffset(1, c.ObservedGeneration).To(Equal(generation), typ)
	}
}

var _ = Describe("Conditions and Events", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("records a trial's retry and a campaign's completion as Events, and kstatus follows the campaign to Current", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "ev").retries(1).create()
		name := campaign.TrialName("ev", "calc", 1)

		By("running: Reconciling, kstatus InProgress, the score empty rather than 0")
		Eventually(runStatus(ns, "ev"), timeout, poll).Should(Equal(status.InProgressStatus))
		run := getRun(ns, "ev")()
		Expect(meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.ConditionReconciling)).To(BeTrue())
		Expect(meta.IsStatusConditionFalse(run.Status.Conditions, evalv1.ConditionReady)).To(BeTrue())
		Expect(run.Status.Score).To(BeEmpty())
		observed(run.Generation, run.Status.ObservedGeneration, run.Status.Conditions)

		By("an evicted agent Job is retried: a Warning with the retry's reason")
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
		Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
		k.completeJob(job, "BackoffLimitExceeded")
		Eventually(eventsAbout(ns, name), timeout, poll).Should(ContainElement(
			corev1.EventTypeWarning + " " + reasons.PodEvicted + " " + statusevents.ActionRetry))
		t := k.trial(name)
		Expect(meta.IsStatusConditionTrue(t.Status.Conditions, evalv1.ConditionReconciling)).To(BeTrue())
		Expect(kstatusOf(t)).To(Equal(status.InProgressStatus))

		By("the retry and the verifier succeed: the campaign completes, Ready, kstatus Current")
		k.runStage(name, agentStage, 2, agentSummary(samplePatch, ""))
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(4, 2, 1)))
		Eventually(runStatus(ns, "ev"), timeout, poll).Should(Equal(status.CurrentStatus))
		run = getRun(ns, "ev")()
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.ConditionReady)).To(BeTrue())
		Expect(meta.IsStatusConditionFalse(run.Status.Conditions, evalv1.ConditionReconciling)).To(BeTrue())
		Expect(meta.IsStatusConditionFalse(run.Status.Conditions, evalv1.ConditionStalled)).To(BeTrue())
		Expect(run.Status.Score).To(Equal("0.5000"))
		observed(run.Generation, run.Status.ObservedGeneration, run.Status.Conditions)
		Eventually(eventsAbout(ns, "ev"), timeout, poll).Should(ContainElements(
			corev1.EventTypeNormal+" "+reasons.TrialsRunning+" "+statusevents.ActionChangePhase,
			corev1.EventTypeNormal+" "+reasons.AllTrialsFinished+" "+statusevents.ActionChangePhase))
		Eventually(eventsAbout(ns, name), timeout, poll).Should(ContainElements(
			corev1.EventTypeNormal+" "+reasons.TrialRunning+" "+statusevents.ActionChangePhase,
			corev1.EventTypeNormal+" "+reasons.Graded+" "+statusevents.ActionChangePhase))
		Expect(kstatusOf(k.trial(name))).To(Equal(status.CurrentStatus))

		By("a spec change after completion is observed: the conditions carry the new generation")
		run.Spec.Parallelism = 3
		Expect(k8s.Update(context.Background(), run)).To(Succeed())
		Eventually(func() int64 { return getRun(ns, "ev")().Status.ObservedGeneration }, timeout, poll).Should(Equal(run.Generation))
		run = getRun(ns, "ev")()
		observed(run.Generation, run.Status.ObservedGeneration, run.Status.Conditions)
		Expect(kstatusOf(run)).To(Equal(status.CurrentStatus))
	})

	It("is Stalled, kstatus Failed, while its tasks are missing", func() {
		makeRun(ns, "lost").names("nope").create()
		Eventually(runStatus(ns, "lost"), timeout, poll).Should(Equal(status.FailedStatus))
		run := getRun(ns, "lost")()
		c := meta.FindStatusCondition(run.Status.Conditions, evalv1.ConditionStalled)
		Expect(c.Reason).To(Equal(reasons.TasksNotFound))
		Expect(meta.IsStatusConditionFalse(run.Status.Conditions, evalv1.ConditionReady)).To(BeTrue())
		Eventually(eventsAbout(ns, "lost"), timeout, poll).Should(ContainElement(
			corev1.EventTypeWarning + " " + reasons.TasksNotFound + " " + statusevents.ActionChangePhase))

		By("applying the task lets it run")
		makeTask(ns, "nope", 1).create()
		Eventually(runStatus(ns, "lost"), timeout, poll).Should(Equal(status.InProgressStatus))
	})

	It("is Stalled while its last trials all fail on infrastructure, and Ready once it ends with a score", func() {
		for _, task := range []string{"a", "b", "c", "d"} {
			makeTask(ns, task, 1).create()
		}
		makeRun(ns, "infra").retries(0).create()
		for _, task := range []string{"a", "b", "c"} {
			job := k.job(campaign.TrialName("infra", task, 1), agentStage, 1)
			pod := k.startPod(job, "p1")
			pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
			Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
			k.completeJob(job, "BackoffLimitExceeded")
			Eventually(k.phaseOf(campaign.TrialName("infra", task, 1)), timeout, poll).Should(Equal(evalv1.TrialError))
		}
		Eventually(runStatus(ns, "infra"), timeout, poll).Should(Equal(status.FailedStatus))
		run := getRun(ns, "infra")()
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunRunning), "new trials still run")
		Expect(meta.FindStatusCondition(run.Status.Conditions, evalv1.ConditionStalled).Reason).To(Equal(reasons.InfrastructureFailing))
		Expect(run.Status.Score).To(BeEmpty(), "no trial graded yet")
		Eventually(eventsAbout(ns, "infra"), timeout, poll).Should(ContainElement(
			corev1.EventTypeWarning + " " + reasons.InfrastructureFailing + " " + statusevents.ActionStall))
		Expect(kstatusOf(k.trial(campaign.TrialName("infra", "a", 1)))).To(Equal(status.FailedStatus), "an Error trial is Stalled")

		d := campaign.TrialName("infra", "d", 1)
		k.runStage(d, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(d, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(runStatus(ns, "infra"), timeout, poll).Should(Equal(status.CurrentStatus), "Error trials included, the score is final")
		Expect(getRun(ns, "infra")().Status.Score).To(Equal("1.0000"))
	})
})

var _ = Describe("A SweepRun no controller has seen", func() {
	It("reads as unobserved, so that kstatus waits instead of calling it Current", func() {
		ns := newNamespace()
		makeTask(ns, "calc", 1).create()
		makeRun(ns, "unseen").create()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(evalv1.GroupVersion.WithKind("SweepRun"))
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "unseen"}, u)).To(Succeed())
		Expect(u.Object["status"]).To(Equal(map[string]any{"observedGeneration": int64(0)}))
		Expect(kstatusOf(u)).To(Equal(status.InProgressStatus))
	})
})
