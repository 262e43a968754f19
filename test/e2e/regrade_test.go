//go:build e2e

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

var _ = Describe("regrading a finished campaign", func() {
	It("grades every stored patch again in place without running the agents, to the same score with the same verifier images", func() {
		ns := catalogueNamespace("regrade")
		patchSecret(ns, "partial.patch")
		Expect(k8s.Create(context.Background(), newRun(ns, "regrade", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}}))).To(Succeed())
		first := waitFinished(ns, "regrade")
		Expect(first.Status.Score).To(Equal("0.5000"))
		originals := map[string]evalv1.TaskTrial{}
		for _, t := range trialsOf(ns, "regrade") {
			Expect(t.Status.Patch).NotTo(BeNil(), "%s stored no artifacts", t.Name)
			originals[t.Name] = t
		}
		Expect(originals).To(HaveLen(len(sampleTasks)))

		By("sweep regrade --watch: the request, then the campaign followed to its new end")
		stdout, stderr, err := sweepCLI("regrade", "regrade", "-n", ns, "--watch")
		Expect(err).NotTo(HaveOccurred(), "sweep regrade: %s%s", stdout, stderr)
		Expect(stdout).To(ContainSubstring("sweeprun.eval.sweep.dev/regrade regrade requested: 3 trials' stored artifacts will be graded again"))
		sr := waitFinished(ns, "regrade")
		Expect(sr.Status.Regrade).NotTo(BeNil())
		Expect(sr.Status.Regrade.Trials).To(Equal(int32(len(sampleTasks))))
		Expect(meta.IsStatusConditionTrue(sr.Status.Conditions, evalv1.ConditionReady)).To(BeTrue())
		Expect(sr.Status.Score).To(Equal(first.Status.Score), "the same patches under the same verifier images")
		Expect(sr.Status.Progress).To(Equal(first.Status.Progress), "each attempt counts once")

		By("every final trial is a regrade of its attempt's original, graded as the original was")
		all := trialsOf(ns, "regrade")
		final := campaign.FinalTrials(all)
		Expect(final).To(HaveLen(len(sampleTasks)))
		for _, t := range final {
			original, ok := originals[t.Spec.RegradeOf]
			Expect(ok).To(BeTrue(), "final trial %s regrades %q, not an original", t.Name, t.Spec.RegradeOf)
			Expect(t.Name).To(Equal(campaign.NextRunName(&original)))
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
			Expect(rewards(t)).To(Equal(rewards(original)), t.Name)
			Expect(t.Status.Patch).To(Equal(original.Status.Patch), t.Name)
			Expect(meta.FindStatusCondition(t.Status.Conditions, evalv1.TrialAgentCompleted).Reason).To(Equal(reasons.Regraded), t.Name)
			Expect(t.Status.Provenance.RegradeOf).To(Equal(original.Name), t.Name)
			Expect(t.Status.Provenance.VerifierImageID).To(Equal(original.Status.Provenance.VerifierImageID), t.Name)
			Expect(t.Status.Provenance.AgentImageID).To(BeEmpty(), "%s ran no agent", t.Name)
			pods := &corev1.PodList{}
			Expect(k8s.List(context.Background(), pods, client.InNamespace(ns),
				client.MatchingLabels{evalv1.LabelTrial: t.Name, evalv1.LabelStage: string(podcontract.StageAgent)})).To(Succeed())
			Expect(pods.Items).To(BeEmpty(), "%s ran an agent Pod", t.Name)
		}
		for _, t := range all {
			if _, isOriginal := originals[t.Name]; isOriginal {
				Expect(t.Labels).To(HaveKeyWithValue(evalv1.LabelRegradedBy, campaign.NextRunName(&t)), "%s is kept, superseded", t.Name)
			}
		}
	})
})
