package integration

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/statusevents"
)

// annotate merge-patches the SweepRun's annotations, as `sweep retry` or a GitOps tool does.
func annotate(ns, name string, annotations map[string]string) {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	Expect(err).NotTo(HaveOccurred())
	run := &evalv1.SweepRun{}
	run.Namespace, run.Name = ns, name
	Expect(k8s.Patch(context.Background(), run, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}

var _ = Describe("Retrying a finished campaign", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("reruns its infrastructure failure as a new trial of the same attempt, keeps the old one, scores the new one and completes again", func() {
		makeTask(ns, "a", 1).create()
		makeTask(ns, "b", 1).create()
		makeRun(ns, "rt").retries(0).create()
		a, b := campaign.TrialName("rt", "a", 1), campaign.TrialName("rt", "b", 1)

		By("a is evicted (no infrastructure retries left), b is graded: the campaign completes")
		job := k.job(a, agentStage, 1)
		pod := k.startPod(job, "p1")
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
		Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
		k.completeJob(job, "BackoffLimitExceeded")
		Eventually(k.phaseOf(a), timeout, poll).Should(Equal(evalv1.TrialError))
		k.runStage(b, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(b, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(getRun(ns, "rt"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "rt")()
		Expect(run.Status.Score).To(Equal("1.0000"))
		Expect(run.Status.EvaluationFailures).To(Equal(int32(1)))
		firstEnd := run.Status.CompletionTime.Time

		By("a retry request: the campaign leaves completion and a's attempt reruns")
		annotate(ns, "rt", map[string]string{evalv1.AnnotationRetry: "t1"})
		rerun := campaign.RerunName("rt", "a", 1, 1)
		Eventually(func() *evalv1.RetryStatus { return getRun(ns, "rt")().Status.Retry }, timeout, poll).ShouldNot(BeNil())
		run = getRun(ns, "rt")()
		Expect(run.Status.Retry.Token).To(Equal("t1"))
		Expect(run.Status.Retry.Trials).To(Equal(int32(1)))
		Expect(run.Status.CompletionTime).To(BeNil())
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunRunning))
		c := meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunComplete)
		Expect(c.Status).To(Equal(metav1.ConditionFalse))
		Expect(c.Reason).To(Equal(reasons.Retrying))
		Expect(kstatusOf(run)).To(Equal(status.InProgressStatus))
		Eventually(eventsAbout(ns, "rt"), timeout, poll).Should(ContainElement(
			corev1.EventTypeNormal + " " + reasons.Retrying + " " + statusevents.ActionRetry))

		t := k.trial(rerun)
		Expect(t.Spec.Task).To(Equal("a"))
		Expect(t.Spec.Attempt).To(Equal(int32(1)), "the rerun takes the same attempt index")
		Expect(t.Labels).To(HaveKeyWithValue(evalv1.LabelRerun, "1"))
		old := k.trial(a)
		Expect(old.Status.Phase).To(Equal(evalv1.TrialError), "the earlier record is kept")
		Expect(old.Labels).To(HaveKeyWithValue(evalv1.LabelSupersededBy, rerun))
		Expect(run.Status.Trials.Created).To(Equal(int32(2)), "each attempt counts once")

		By("the rerun is graded: the score counts it, not the Error it replaced; the campaign completes again")
		k.runStage(rerun, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(rerun, verifierStage, 1, verifierSummary(sweepRewards(1, 0, 1)))
		Eventually(getRun(ns, "rt"), timeout, poll).Should(Satisfy(completed))
		run = getRun(ns, "rt")()
		Expect(run.Status.Score).To(Equal("0.5000"))
		Expect(run.Status.GradedTrials).To(Equal(int32(2)))
		Expect(run.Status.EvaluationFailures).To(BeZero())
		Expect(run.Status.Progress).To(Equal("2/2"))
		Expect(run.Status.CompletionTime.Time).To(BeTemporally(">=", firstEnd), "the TTL counts from the new completion")
		Expect(run.Status.CompletionTime.Time).To(BeTemporally(">=", run.Status.Retry.HandledAt.Time))
		Expect(meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.SweepRunComplete)).To(BeTrue())
		Eventually(runStatus(ns, "rt"), timeout, poll).Should(Equal(status.CurrentStatus))

		By("the same annotation applied again (a GitOps sync) does nothing")
		handled := run.Status.Retry.DeepCopy()
		annotate(ns, "rt", map[string]string{evalv1.AnnotationRetry: "t1", "sync": "again"})
		second := campaign.RerunName("rt", "a", 1, 2)
		Consistently(func() bool {
			err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: second}, &evalv1.TaskTrial{})
			return apierrors.IsNotFound(err)
		}, 2*time.Second, poll).Should(BeTrue())
		run = getRun(ns, "rt")()
		Expect(run.Status.Retry).To(Equal(handled))
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
	})

	It("records a request that finds nothing to rerun and stays complete", func() {
		makeTask(ns, "b", 1).create()
		makeRun(ns, "clean").create()
		b := campaign.TrialName("clean", "b", 1)
		k.runStage(b, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(b, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(getRun(ns, "clean"), timeout, poll).Should(Satisfy(completed))
		end := getRun(ns, "clean")().Status.CompletionTime

		annotate(ns, "clean", map[string]string{evalv1.AnnotationRetry: "t1", evalv1.AnnotationRetryReasons: "PodEvicted,Flaky"})
		Eventually(func() *evalv1.RetryStatus { return getRun(ns, "clean")().Status.Retry }, timeout, poll).ShouldNot(BeNil())
		run := getRun(ns, "clean")()
		Expect(run.Status.Retry.Message).To(ContainSubstring("annotation eval.sweep.dev/retry-reasons: Flaky: not a trial reason"))
		Expect(run.Status.CompletionTime).To(Equal(end))

		annotate(ns, "clean", map[string]string{evalv1.AnnotationRetry: "t2", evalv1.AnnotationRetryReasons: ""})
		Eventually(func() string { return getRun(ns, "clean")().Status.Retry.Token }, timeout, poll).Should(Equal("t2"))
		run = getRun(ns, "clean")()
		Expect(run.Status.Retry.Message).To(ContainSubstring("nothing to rerun"))
		Expect(run.Status.CompletionTime).To(Equal(end))
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
	})
})
