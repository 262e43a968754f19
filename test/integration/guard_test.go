package integration

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

var _ = Describe("A campaign's guard", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	// unfinished is the campaign's one trial not finished yet (parallelism 1), "" when none.
	unfinished := func() string {
		list := &evalv1.TaskTrialList{}
		Expect(k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: "guarded"})).To(Succeed())
		for _, t := range list.Items {
			if !t.Status.Phase.Finished() {
				return t.Name
			}
		}
		return ""
	}
	created := func() int {
		list := &evalv1.TaskTrialList{}
		Expect(k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: "guarded"})).To(Succeed())
		return len(list.Items)
	}
	evict := func() {
		var name string
		Eventually(func() string { name = unfinished(); return name }, timeout, poll).ShouldNot(BeEmpty())
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
		Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
		k.completeJob(job, "BackoffLimitExceeded")
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialError))
	}

	It("suspends the campaign after its last N trials all failed on infrastructure, and sweep resume's annotation starts trials again", func() {
		for _, task := range []string{"a", "b", "c", "d"} {
			makeTask(ns, task, 1).create()
		}
		makeRun(ns, "guarded").parallelism(1).retries(0).guard(2).create()

		By("two evictions in a row: the guard suspends the campaign, no third trial starts")
		evict()
		evict()
		Eventually(func() bool { return getRun(ns, "guarded")().Status.Guard.Holds() }, timeout, poll).Should(BeTrue())
		run := getRun(ns, "guarded")()
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSuspend))
		Expect(run.Status.Guard.Reason).To(Equal(reasons.PodEvicted))
		c := meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunSuspended)
		Expect(c.Status).To(Equal(metav1.ConditionTrue))
		Expect(c.Reason).To(Equal(reasons.InfrastructureFailing))
		Expect(c.Message).To(ContainSubstring("(PodEvicted: 2 of 2;"))
		Expect(c.Message).To(ContainSubstring("sweep resume guarded -n " + ns))
		Expect(kstatusOf(run)).To(Equal(status.FailedStatus), "kstatus reads a guarded campaign as Stalled")
		Consistently(created, 3*time.Second, poll).Should(Equal(2))

		By("a resume: the next trial starts, and the guard counts only failures from now on")
		annotate(ns, "guarded", map[string]string{evalv1.AnnotationResume: "r1"})
		// The trial is created before the status that records the resume is written.
		Eventually(func() bool { return getRun(ns, "guarded")().Status.Guard.Holds() }, timeout, poll).Should(BeFalse())
		Eventually(created, timeout, poll).Should(Equal(3))
		run = getRun(ns, "guarded")()
		Expect(run.Status.Guard.ResumeToken).To(Equal("r1"))
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunRunning))
		evict()
		Eventually(created, timeout, poll).Should(Equal(4), "one failure after the resume does not trip a guard of 2")
		Expect(getRun(ns, "guarded")().Status.Guard.Holds()).To(BeFalse())
	})
})
