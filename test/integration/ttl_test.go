package integration

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
)

var _ = Describe("A finished campaign's TTL", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	trials := func() []evalv1.TaskTrial {
		list := &evalv1.TaskTrialList{}
		Expect(k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: "ttl"})).To(Succeed())
		return list.Items
	}

	It("deletes the trials and keeps the SweepRun with its score, so a GitOps tool that keeps it applied reruns nothing", func() {
		makeTask(ns, "a", 1).create()
		makeRun(ns, "ttl").ttl(2).create()
		a := campaign.TrialName("ttl", "a", 1)
		k.runStage(a, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(a, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(getRun(ns, "ttl"), timeout, poll).Should(Satisfy(completed))
		done := getRun(ns, "ttl")()
		Expect(done.Status.Score).To(Equal("1.0000"))
		Expect(trials()).To(HaveLen(1))

		By("the TTL passes: the trials go, the SweepRun and its summary stay")
		Eventually(func() *evalv1.SweepRun { return getRun(ns, "ttl")() }, timeout, poll).Should(
			WithTransform(func(r *evalv1.SweepRun) bool { return r.Status.TrialsDeletedTime != nil }, BeTrue()))
		Eventually(trials, timeout, poll).Should(BeEmpty())
		kept := getRun(ns, "ttl")()
		Expect(kept.Status.TrialsDeletedTime.Time).NotTo(BeTemporally("<", done.Status.CompletionTime.Add(2*time.Second)))
		Expect(kept.Status.Score).To(Equal(done.Status.Score))
		Expect(kept.Status.Progress).To(Equal(done.Status.Progress))
		Expect(kept.Status.CompletionTime).To(Equal(done.Status.CompletionTime))
		Expect(meta.IsStatusConditionTrue(kept.Status.Conditions, evalv1.ConditionReady)).To(BeTrue())

		By("re-applying it and asking for a retry create no trial")
		annotate(ns, "ttl", map[string]string{"team": "a", evalv1.AnnotationRetry: "after-ttl"})
		Consistently(trials, 3*time.Second, poll).Should(BeEmpty())
		after := getRun(ns, "ttl")()
		Expect(after.Status.Retry).To(BeNil(), "a campaign without trials has nothing to rerun")
		Expect(after.Status.Score).To(Equal(done.Status.Score))
	})
})
