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

var _ = Describe("A campaign's wall-time budget", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("starts no trial once spent, lets the running one finish, and completes with what ran, saying which budget stopped it", func() {
		for _, task := range []string{"a", "b", "c"} {
			makeTask(ns, task, 1).create()
		}
		makeRun(ns, "budgeted").parallelism(1).maxWallSeconds(3).create()
		list := func() []evalv1.TaskTrial {
			l := &evalv1.TaskTrialList{}
			Expect(k8s.List(context.Background(), l, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: "budgeted"})).To(Succeed())
			return l.Items
		}
		Eventually(list, timeout, poll).Should(HaveLen(1))
		first := list()[0].Name

		By("the budget runs out while the first trial runs")
		Eventually(func() *evalv1.BudgetStatus { return getRun(ns, "budgeted")().Status.Budget }, timeout, poll).ShouldNot(BeNil())
		budget := getRun(ns, "budgeted")().Status.Budget
		Expect(budget.StoppedBy).To(Equal(campaign.BudgetMaxWallSeconds))
		Expect(budget.Message).To(Equal("spec.budget.maxWallSeconds (3) reached: no new trials start, running ones finish; 1 of 3 planned trials started"))
		k.runStage(first, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(first, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))

		By("the campaign completes with the one trial that ran")
		Eventually(getRun(ns, "budgeted"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "budgeted")()
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(run.Status.Progress).To(Equal("1/1"))
		Expect(run.Status.Score).To(Equal("1.0000"))
		Expect(meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunComplete).Message).To(HaveSuffix("; stopped early: " + budget.Message))
		Consistently(list, 2*time.Second, poll).Should(HaveLen(1))
	})
})
