package integration

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// agentSummaryWithUsage is an agent stage whose collector read the agent's usage file.
func agentSummaryWithUsage(input, output int64, cost string) *podcontract.Summary {
	sum := agentSummary(samplePatch, "")
	u := usage.Usage{InputTokens: &input, OutputTokens: &output}
	if cost != "" {
		d, err := usage.ParseDollars(cost)
		Expect(err).NotTo(HaveOccurred())
		u.CostUSD = &d
	}
	sum.Usage = &u
	return sum
}

var _ = Describe("A campaign's token and cost budgets", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	trialsOf := func(run string) func() []evalv1.TaskTrial {
		return func() []evalv1.TaskTrial {
			l := &evalv1.TaskTrialList{}
			Expect(k8s.List(context.Background(), l, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: run})).To(Succeed())
			return l.Items
		}
	}
	// runTrial drives the campaign's next trial through both stages, its agent reporting
	// sum, and returns its name.
	runTrial := func(run string, n int, sum *podcontract.Summary) string {
		Eventually(trialsOf(run), timeout, poll).Should(HaveLen(n))
		var name string
		for _, t := range trialsOf(run)() {
			if !t.Status.Phase.Finished() {
				name = t.Name
			}
		}
		k.runStage(name, agentStage, 1, sum)
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialVerifying))
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		return name
	}
	// expectStopped checks that run completed with the trials that started, stopped by field.
	expectStopped := func(run, field, message string, trials int) *evalv1.SweepRun {
		Eventually(getRun(ns, run), timeout, poll).Should(Satisfy(completed))
		got := getRun(ns, run)()
		Expect(got.Status.Budget).NotTo(BeNil())
		Expect(got.Status.Budget.StoppedBy).To(Equal(field))
		Expect(got.Status.Budget.Message).To(Equal(message))
		Expect(got.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(meta.FindStatusCondition(got.Status.Conditions, evalv1.SweepRunComplete).Message).To(HaveSuffix("; stopped early: " + message))
		Consistently(trialsOf(run), 2*time.Second, poll).Should(HaveLen(trials))
		return got
	}

	It("stops at maxTokens, counting input (cached included) plus output, and the trial that reached it finishes", func() {
		for _, task := range []string{"a", "b", "c"} {
			makeTask(ns, task, 1).create()
		}
		makeRun(ns, "tokens").parallelism(1).maxTokens(1000).create()
		first := runTrial("tokens", 1, agentSummaryWithUsage(600, 100, ""))
		Expect(getRun(ns, "tokens")().Status.Budget).To(BeNil(), "700 of 1000 tokens leave the budget open")
		second := runTrial("tokens", 2, agentSummaryWithUsage(250, 50, ""))

		run := expectStopped("tokens", campaign.BudgetMaxTokens,
			"spec.budget.maxTokens (1000) reached by the 1000 tokens the agents of 2 trials reported (input, cached included, plus output): no new trials start, running ones finish; 2 of 3 planned trials started", 2)
		Expect(run.Status.Progress).To(Equal("2/2"))
		input, output := int64(850), int64(150)
		Expect(run.Status.Usage).To(Equal(&evalv1.UsageTotals{Trials: 2, AgentUsage: evalv1.AgentUsage{InputTokens: &input, OutputTokens: &output}}))
		for name, tokens := range map[string]int64{first: 600, second: 250} {
			Expect(*k.trial(name).Status.Usage.InputTokens).To(Equal(tokens))
		}
	})

	It("stops at maxCostUSD compared exactly: 0.10 + 0.20 reaches 0.30", func() {
		for _, task := range []string{"a", "b", "c"} {
			makeTask(ns, task, 1).create()
		}
		makeRun(ns, "dollars").parallelism(1).maxCostUSD("0.30").create()
		runTrial("dollars", 1, agentSummaryWithUsage(10, 1, "0.1"))
		runTrial("dollars", 2, agentSummaryWithUsage(10, 1, "0.2"))

		run := expectStopped("dollars", campaign.BudgetMaxCostUSD,
			"spec.budget.maxCostUSD (0.30) reached by the 0.30 USD the agents of 2 trials reported: no new trials start, running ones finish; 2 of 3 planned trials started", 2)
		Expect(run.Status.Usage.CostUSD).To(Equal("0.30"))
		Expect(run.Status.Usage.Trials).To(Equal(int32(2)))
	})

	It("records what an agent that ran past its timeout reported: it was paid for", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "slow").create()
		name := campaign.TrialName("slow", "calc", 1)
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		sum := agentSummaryWithUsage(5000, 700, "1.25")
		sum.Done, sum.Reason = false, reasons.CollectorInterrupted
		k.finishPod(pod, corev1.PodFailed, 137, sum)
		k.completeJob(job, "DeadlineExceeded")
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(4, 1, 1)))
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal(reasons.AgentTimeout))
		input, output := int64(5000), int64(700)
		Expect(t.Status.Usage).To(Equal(&evalv1.TrialUsage{AgentUsage: evalv1.AgentUsage{InputTokens: &input, OutputTokens: &output, CostUSD: "1.25"}}))
		Eventually(func() *evalv1.UsageTotals { return getRun(ns, "slow")().Status.Usage }, timeout, poll).Should(Equal(
			&evalv1.UsageTotals{Trials: 1, AgentUsage: evalv1.AgentUsage{InputTokens: &input, OutputTokens: &output, CostUSD: "1.25"}}))
	})

	It("keeps a trial whose usage file was not taken going, and says why", func() {
		makeTask(ns, "a", 1).create()
		makeRun(ns, "malformed").maxTokens(10).create()
		sum := agentSummary(samplePatch, "")
		sum.UsageMessage = "usage file usage.json not taken: n_input_tokens is -3: want an integer from 0 to 2^53"
		name := runTrial("malformed", 1, sum)

		Eventually(getRun(ns, "malformed"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "malformed")()
		Expect(run.Status.Score).To(Equal("1.0000"))
		Expect(run.Status.Usage).To(BeNil())
		Expect(run.Status.Budget).To(BeNil())
		Expect(k.trial(name).Status.Usage).To(Equal(&evalv1.TrialUsage{Message: sum.UsageMessage}))
	})
})

var _ = Describe("A campaign's usage budgets as the API server validates them", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	DescribeTable("rejects a limit that is no amount",
		func(w *runWrapper, wantMessage string) {
			w.Namespace = ns
			err := k8s.Create(context.Background(), w.obj())
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("zero tokens", makeRun("", "bad").maxTokens(0), "spec.budget.maxTokens: Invalid value: 0"),
		Entry("a negative cost", makeRun("", "bad").maxCostUSD("-1"), `spec.budget.maxCostUSD: Invalid value: "-1"`),
		Entry("an exponent", makeRun("", "bad").maxCostUSD("1e3"), `spec.budget.maxCostUSD: Invalid value: "1e3"`),
		Entry("a dollar sign", makeRun("", "bad").maxCostUSD("$25"), `spec.budget.maxCostUSD: Invalid value: "$25"`),
		Entry("ten decimals", makeRun("", "bad").maxCostUSD("0.0000000001"), `spec.budget.maxCostUSD: Invalid value: "0.0000000001"`),
		Entry("ten whole digits", makeRun("", "bad").maxCostUSD("1000000000"), `spec.budget.maxCostUSD: Invalid value: "1000000000"`),
	)

	It("takes dollars with up to 9 decimals, which the budget reads exactly", func() {
		for i, dollars := range []string{"25", "25.00", "0.000000001", "999999999.999999999"} {
			w := makeRun(ns, "ok-"+string(rune('a'+i))).maxCostUSD(dollars)
			Expect(k8s.Create(context.Background(), w.obj())).To(Succeed())
			_, err := usage.ParseDollars(dollars)
			Expect(err).NotTo(HaveOccurred())
		}
	})
})
