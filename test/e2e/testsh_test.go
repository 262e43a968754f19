//go:build e2e

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// scriptTask is the sample task graded by its own tests/test.sh (tasks/rangeset), as
// SWE-sweep's tasks are: the verifier Pod runs the script, whose grader writes all nine keys.
const scriptTask = "sweep-samples__rangeset"

// sweepRewardKeys are the keys SWE-sweep's grader writes into every reward.json.
var sweepRewardKeys = []string{reward.KeyReward, reward.KeySubtasks, reward.KeyResolved, reward.KeyPartial,
	reward.KeyVisibleOK, reward.KeyRegressions, reward.KeyPatchApplied, reward.KeyBuildOK, reward.KeyGraderFailed}

var _ = Describe("a task graded by its own tests/test.sh", func() {
	It("has no built-in grader in the catalogue", func() {
		ns := catalogueNamespace("testsh-catalogue")
		cms := &corev1.ConfigMapList{}
		Expect(k8s.List(context.Background(), cms, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelTask: scriptTask})).To(Succeed())
		Expect(cms.Items).To(HaveLen(1))
		Expect(cms.Items[0].Annotations).NotTo(HaveKey(evalv1.AnnotationGrader), "the verifier must run tests/test.sh")
		Expect(cms.Items[0].Annotations).To(HaveKeyWithValue(evalv1.AnnotationBugs, "3"))
	})

	DescribeTable("scores what its grader writes, with all nine keys",
		func(agent evalv1.AgentSpec, score string, resolved string) {
			ns := catalogueNamespace("testsh")
			sr := newRun(ns, "testsh", agent)
			sr.Spec.Tasks.Names = []string{scriptTask}
			Expect(k8s.Create(context.Background(), sr)).To(Succeed())
			done := waitFinished(ns, "testsh")
			trials := trialsOf(ns, "testsh")
			reportTrialTimes(trials)
			Expect(trials).To(HaveLen(1))
			t := trials[0]
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
			Expect(t.Status.Rewards).To(HaveLen(len(sweepRewardKeys)), "rewards: %v", t.Status.Rewards)
			for _, k := range sweepRewardKeys {
				Expect(t.Status.Rewards).To(HaveKey(k))
			}
			Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyReward, score))
			Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyResolved, resolved))
			Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeySubtasks, "3.0000"))
			Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyVisibleOK, "1.0000"))
			Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyPatchApplied, "1.0000"))
			Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyGraderFailed, "0.0000"))
			Expect(t.Status.Score).To(Equal(score))
			Expect(done.Status.Score).To(Equal(score))
			Expect(done.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		},
		Entry("the oracle (its solution) resolves every bug", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}, "1.0000", "3.0000"),
		Entry("the nop agent resolves none", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}, "0.0000", "0.0000"),
	)
})
