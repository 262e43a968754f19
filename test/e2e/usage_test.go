//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
)

var _ = Describe("A campaign's token budget", func() {
	It("stops starting trials once the usage its agents report reaches spec.budget.maxTokens", func() {
		ns := catalogueNamespace("usage")
		hook, err := os.ReadFile(filepath.Join(root, ".cache", "images", "sweep-hook.ref"))
		Expect(err).NotTo(HaveOccurred())
		// Each agent says it read 1000 tokens (400 from a cache) and wrote 200: 1200 count
		// toward maxTokens, so the second trial's report reaches 1500.
		agent := evalv1.AgentSpec{External: &evalv1.ExternalAgent{Image: strings.TrimSpace(string(hook)), BundlePath: "/sweep-hook",
			Command: []string{"sh", "-c", `printf '{"n_input_tokens": 1000, "n_cache_tokens": 400, "n_output_tokens": 200, "cost_usd": 0.05}' > "$SWEEP_USAGE_FILE"`}}}
		run := newRun(ns, "usage", agent)
		run.Spec.Parallelism = 1
		limit := int64(1500)
		run.Spec.Budget = &evalv1.BudgetPolicy{MaxTokens: &limit}
		Expect(k8s.Create(context.Background(), run)).To(Succeed())

		done := waitFinished(ns, "usage")
		Expect(done.Status.Budget).NotTo(BeNil())
		Expect(done.Status.Budget.StoppedBy).To(Equal(campaign.BudgetMaxTokens))
		Expect(done.Status.Budget.Message).To(HavePrefix("spec.budget.maxTokens (1500) reached by the 2400 tokens the agents of 2 trials reported"))
		Expect(done.Status.Budget.Message).To(HaveSuffix("2 of 3 planned trials started"))
		input, cached, output := int64(2000), int64(800), int64(400)
		Expect(done.Status.Usage).To(Equal(&evalv1.UsageTotals{Trials: 2,
			AgentUsage: evalv1.AgentUsage{InputTokens: &input, CachedTokens: &cached, OutputTokens: &output, CostUSD: "0.10"}}))
		Consistently(func() []evalv1.TaskTrial { return trialsOf(ns, "usage") }, 10*time.Second, time.Second).Should(HaveLen(2))
		for _, t := range trialsOf(ns, "usage") {
			Expect(t.Status.Phase.Finished()).To(BeTrue(), t.Name)
			Expect(t.Status.Usage).NotTo(BeNil(), t.Name)
			Expect(t.Status.Usage.CostUSD).To(Equal("0.05"), t.Name)
			Expect(t.Status.Usage.Message).To(BeEmpty(), t.Name)
		}

		By("sweep info reports the usage, and sweep export writes it as Harbor's agent_result")
		kube := []string{"--kubeconfig", os.Getenv("KUBECONFIG"), "-n", ns}
		out, stderr, err := sweepCLI(append(kube, "info", "usage")...)
		Expect(err).NotTo(HaveOccurred(), stderr)
		Expect(out).To(ContainSubstring("agent usage, as 2 trials' agents reported it: 2000 input tokens (800 of them cached), 400 output tokens, 0.10 USD"))
		dir := filepath.Join(GinkgoT().TempDir(), "job")
		_, stderr, err = sweepCLI(append(kube, "export", "usage", "-o", dir)...)
		Expect(err).NotTo(HaveOccurred(), stderr)
		results, err := filepath.Glob(filepath.Join(dir, "*", "result.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(results).To(HaveLen(2))
		for _, f := range results {
			data, err := os.ReadFile(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(data)).To(ContainSubstring(`"n_cache_tokens": 400`), f)
		}
	})
})
