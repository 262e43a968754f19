package integration

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

var _ = Describe("the flake re-check (spec.grading.flakeRechecks)", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("reaches the verifier of every trial, and the figure its result reports reaches the trial's status", func() {
		makeTask(ns, "calc", 2).create()
		makeRun(ns, "rechecked").names("calc").flakeRechecks(3).create()
		name := campaign.TrialName("rechecked", "calc", 1)
		Expect(k.trial(name).Spec.Grading).To(Equal(&evalv1.GradingPolicy{FlakeRechecks: 3}))
		k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
		Expect(k.stageSpec(name, verifierStage).Verifier.FlakeRechecks).To(Equal(int32(3)))
		rewards := sweepRewards(2, 1, 1)
		rewards[reward.KeyRegressionsCleared] = 1
		k.runStage(name, verifierStage, 1, verifierSummary(rewards))
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		t := k.trial(name)
		Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyRegressionsCleared, "1.0000"))
		Expect(t.Status.Regressed).To(BeFalse())
	})

	It("leaves the verifier without it when it is off", func() {
		makeTask(ns, "calc", 2).create()
		makeRun(ns, "plain").names("calc").create()
		name := campaign.TrialName("plain", "calc", 1)
		Expect(k.trial(name).Spec.Grading).To(BeNil())
		k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
		Expect(k.stageSpec(name, verifierStage).Verifier.FlakeRechecks).To(BeZero())
	})

	It("ends a trial whose grader has no re-check InvalidTask, before its agent runs", func() {
		makeTask(ns, "own", 1).grader(podcontract.GraderTestScript).create()
		makeRun(ns, "mixed").names("own").flakeRechecks(2).create()
		name := campaign.TrialName("mixed", "own", 1)
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialError))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal(reasons.InvalidTask))
		Expect(t.Status.Message).To(Equal(`spec.grading.flakeRechecks is 2, but task "own" is graded by test-script, which has no flake re-check (only the swesweep grader re-runs visible regressions): set it to 0 in the SweepRun, or run this task in a campaign of its own without it`))
		jobs := &batchv1.JobList{}
		Expect(k8s.List(context.Background(), jobs, client.InNamespace(ns))).To(Succeed())
		Expect(jobs.Items).To(BeEmpty())
	})
})

var _ = Describe("spec.grading validation by the API server", func() {
	It("refuses more re-runs than the grader takes, and keeps the field immutable", func() {
		ns := newNamespace()
		ctx := context.Background()
		err := k8s.Create(ctx, makeRun(ns, "greedy").flakeRechecks(11).obj())
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.grading.flakeRechecks: Invalid value: 11: spec.grading.flakeRechecks in body should be less than or equal to 10"))

		run := makeRun(ns, "fixed").create()
		changed := run.DeepCopy()
		changed.Spec.Grading = &evalv1.GradingPolicy{FlakeRechecks: 2}
		err = k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.grading is immutable: a campaign's trials are graded by one rule; create a new SweepRun to change it"))
	})
})
