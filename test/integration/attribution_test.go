package integration

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// agentOutputSummary is a finished agent stage that reports its patch as out alone.
func agentOutputSummary(out podcontract.Output) *podcontract.Summary {
	return &podcontract.Summary{Stage: agentStage, StreamID: "s-agent", Done: true, Outputs: []podcontract.Output{out}}
}

// unpatchedRewards is what a grader reports for the unpatched tree: nothing resolved, nothing
// regressed, the patch not applied.
func unpatchedRewards(bugs float64) map[string]float64 {
	r := sweepRewards(bugs, 0, 1)
	r[reward.KeyPatchApplied] = 0
	return r
}

// trialCondition is the trial's condition of type typ.
func trialCondition(t *evalv1.TaskTrial, typ string) metav1.Condition {
	c := meta.FindStatusCondition(t.Status.Conditions, typ)
	ExpectWithOffset(1, c).NotTo(BeNil(), "condition %s of %s", typ, t.Name)
	return *c
}

var _ = Describe("attribution: an outcome the agent caused is scored, never left unmeasured", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("grades a patch too large or refused as no patch, scores the trial with its reason, and counts its bugs", func() {
		makeTask(ns, "calc", 4).create()
		makeTask(ns, "strings", 2).create()
		makeTask(ns, "hello", 2).create()
		makeRun(ns, "nopatch").create()
		calc, str, hello := campaign.TrialName("nopatch", "calc", 1), campaign.TrialName("nopatch", "strings", 1), campaign.TrialName("nopatch", "hello", 1)

		By("a patch over what the collector carries: the verifier runs without it")
		k.runStage(calc, agentStage, 1, agentOutputSummary(podcontract.Output{Name: podcontract.PatchKey, OriginalSize: 2 << 20, TooLarge: true}))
		k.job(calc, verifierStage, 1)
		artifacts := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ArtifactSecretName(calc)}, artifacts)).To(Succeed())
		Expect(artifacts.Data).NotTo(HaveKey(podcontract.PatchKey), "the verifier grades no patch")
		// The verifier's Job is created before the status that records why is written.
		Eventually(func() string { return k.trial(calc).Status.Reason }, timeout, poll).Should(Equal(reasons.PatchTooLarge))
		k.runStage(calc, verifierStage, 1, verifierSummary(unpatchedRewards(4)))

		By("a symlinked patch the collector refused: the verifier runs without it")
		k.runStage(str, agentStage, 1, agentOutputSummary(podcontract.Output{Name: podcontract.PatchKey, Missing: true,
			Refused: "a symbolic link: code under test could point it at any file"}))
		k.job(str, verifierStage, 1)
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ArtifactSecretName(str)}, artifacts)).To(Succeed())
		Expect(artifacts.Data).NotTo(HaveKey(podcontract.PatchKey))
		k.runStage(str, verifierStage, 1, verifierSummary(unpatchedRewards(2)))

		k.runStage(hello, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(hello, verifierStage, 1, verifierSummary(sweepRewards(2, 2, 1)))

		Eventually(getRun(ns, "nopatch"), timeout, poll).Should(Satisfy(completed))
		for name, want := range map[string]string{calc: reasons.PatchTooLarge, str: reasons.PatchRefused} {
			t := k.trial(name)
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), name)
			Expect(t.Status.Reason).To(Equal(want), name)
			Expect(t.Status.Score).To(Equal("0.0000"), name)
			Expect(t.Status.Patch.Bytes).To(BeZero(), name)
			Expect(trialCondition(t, evalv1.TrialComplete).Reason).To(Equal(want), name)
		}
		Expect(k.trial(calc).Status.BugsTotal).To(Equal(int32(4)))
		run := getRun(ns, "nopatch")()
		Expect(run.Status.GradedTrials).To(Equal(int32(3)))
		Expect(run.Status.EvaluationFailures).To(BeZero(), "not one is 'not measured'")
		Expect(run.Status.BugsTotal).To(Equal(int32(8)))
		Expect(run.Status.Score).To(Equal("0.2500"), "2 of 8 bugs: the unscored patches count their bugs unresolved")
	})

	It("scores 0 a verifier OOM-killed within its own memory limit, and keeps a grader's cause on a scored trial", func() {
		makeTask(ns, "calc", 4).create()
		makeTask(ns, "strings", 2).create()
		makeRun(ns, "oom").create()
		calc, str := campaign.TrialName("oom", "calc", 1), campaign.TrialName("oom", "strings", 1)

		By("the verifier's main container is killed in its memory cgroup while running the agent's code")
		k.runStage(calc, agentStage, 1, agentSummary(samplePatch, ""))
		job := k.job(calc, verifierStage, 1)
		Expect(job.Spec.Template.Spec.Containers[0].Resources.Limits).To(HaveKey(corev1.ResourceMemory), "the task's memory_mb is the container's own limit")
		pod := k.startPod(job, "p1")
		k.oomKillPod(pod, verifierStage)
		k.completeJob(job, "PodFailurePolicy")

		By("the grader decided the tests hung on the patch and scored it")
		k.runStage(str, agentStage, 1, agentSummary(samplePatch, ""))
		hung := verifierSummary(reward.Zero(2))
		hung.Reason, hung.Message = reasons.TestsHungOnPatch, "the suite ran past its limit on the patched tree and within it on the unpatched tree"
		k.runStage(str, verifierStage, 1, hung)

		Eventually(getRun(ns, "oom"), timeout, poll).Should(Satisfy(completed))
		t := k.trial(calc)
		Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(t.Status.Reason).To(Equal(reasons.VerifierOutOfMemory))
		Expect(t.Status.Score).To(Equal("0.0000"))
		Expect(t.Status.BugsTotal).To(Equal(int32(4)))
		Expect(t.Status.BugsResolved).To(BeZero())
		Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyVisibleOK, "0.0000"))
		Expect(t.Status.InfrastructureRetries).To(BeZero(), "not retried")
		Expect(trialCondition(t, evalv1.TrialVerified).Reason).To(Equal(reasons.VerifierOutOfMemory))
		results := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ResultsSecretName(calc)}, results)).To(Succeed())
		Expect(reward.ParseJSON(results.Data[podcontract.RecordReward])).To(Equal(reward.Zero(4)))

		s := k.trial(str)
		Expect(s.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(s.Status.Reason).To(Equal(reasons.TestsHungOnPatch))
		verified := trialCondition(s, evalv1.TrialVerified)
		Expect(verified.Reason).To(Equal(reasons.TestsHungOnPatch))
		Expect(verified.Message).To(Equal("score 0.0000: the suite ran past its limit on the patched tree and within it on the unpatched tree"))
		Expect(trialCondition(s, evalv1.TrialComplete).Reason).To(Equal(reasons.TestsHungOnPatch))

		run := getRun(ns, "oom")()
		Expect(run.Status.GradedTrials).To(Equal(int32(2)))
		Expect(run.Status.EvaluationFailures).To(BeZero())
		Expect(run.Status.BugsTotal).To(Equal(int32(6)))
		Expect(run.Status.Score).To(Equal("0.0000"))
	})
})
