package integration

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// trialsIn lists the namespace's trials.
func trialsIn(ns string) func() []evalv1.TaskTrial {
	return func() []evalv1.TaskTrial {
		list := &evalv1.TaskTrialList{}
		Expect(k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
		return list.Items
	}
}

var _ = Describe("a bug subset (spec.tasks.bugs)", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	// expectRefused waits for the SweepRun to fail with reason, its message holding want, and
	// checks that it created no trial.
	expectRefused := func(name, reason string, want ...string) {
		Eventually(func() evalv1.SweepRunPhase { return getRun(ns, name)().Status.Phase }, timeout, poll).Should(Equal(evalv1.SweepRunFailedPh))
		run := getRun(ns, name)()
		failed := meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunFailed)
		Expect(failed).NotTo(BeNil())
		Expect(failed.Reason).To(Equal(reason))
		for _, w := range want {
			Expect(failed.Message).To(ContainSubstring(w))
		}
		Expect(meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunProgressing)).To(HaveField("Reason", reason))
		Expect(run.Status.CompletionTime).NotTo(BeNil())
		Consistently(trialsIn(ns), time.Second, poll).Should(BeEmpty())
	}

	It("is refused when created for a test.sh task that lists no bug ids", func() {
		makeTask(ns, "real", 3).grader(podcontract.GraderTestScript).create()
		makeRun(ns, "no-means").names("real").bugs("real", "b1").create()
		expectRefused("no-means", reasons.BugSubsetUnsupported,
			`sweeprun `+ns+`/no-means: spec.tasks.bugs["real"]: task real is graded by its own tests/test.sh, which takes a bug subset only through tests/swesweep_eval.json`,
			"configmap task-real has no eval.sweep.dev/bug-ids annotation", "bundle the catalogue again with `sweep tasks bundle`")
	})

	It("is refused when created naming ids the task does not have", func() {
		makeTask(ns, "real", 3).grader(podcontract.GraderTestScript).bugIDs("b1", "b2", "b3").create()
		makeRun(ns, "unknown").names("real").bugs("real", "b2", "b9", "a0").create()
		expectRefused("unknown", reasons.UnknownBugs,
			`sweeprun `+ns+`/unknown: spec.tasks.bugs["real"] names bug ids that task real does not have: a0, b9; its bugs are b1,b2,b3 (annotation eval.sweep.dev/bug-ids of configmap task-real)`)
	})

	It("is refused when created with an empty list", func() {
		makeTask(ns, "calc", 2).bugIDs("b1", "b2").create()
		makeRun(ns, "empty").names("calc").bugs("calc").create()
		expectRefused("empty", reasons.EmptyBugSubset,
			`sweeprun `+ns+`/empty: spec.tasks.bugs["calc"] is empty: name at least one bug id of task calc`)
	})

	It("reaches a test.sh task's verifier when the task has the ids, each once, in the order given", func() {
		makeTask(ns, "real", 3).grader(podcontract.GraderTestScript).bugIDs("b1", "b2", "b3").create()
		makeRun(ns, "subset").names("real").bugs("real", "b3", "b1", "b3").create()
		name := campaign.TrialName("subset", "real", 1)
		Eventually(trialsIn(ns), timeout, poll).Should(HaveLen(1))
		t := k.trial(name)
		Expect(t.Spec.Bugs).To(Equal([]string{"b3", "b1"}))
		Expect(t.Spec.BugsTotal).To(Equal(int32(2)))
		k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
		k.job(name, verifierStage, 1)
		spec := k.stageSpec(name, verifierStage)
		Expect(spec.Verifier).NotTo(BeNil())
		Expect(spec.Verifier.Bugs).To(Equal([]string{"b3", "b1"}))
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(2, 1, 1)))
		Eventually(getRun(ns, "subset"), timeout, poll).Should(Satisfy(completed))
		Expect(getRun(ns, "subset")().Status.BugsTotal).To(Equal(int32(2)))
	})

	It("fails the trial unscored when its verifier could not pass the subset to test.sh", func() {
		makeTask(ns, "real", 3).grader(podcontract.GraderTestScript).bugIDs("b1", "b2", "b3").create()
		makeRun(ns, "stale").names("real").bugs("real", "b2").create()
		name := campaign.TrialName("stale", "real", 1)
		k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
		// What sweep-hook reports when the verifier image's swesweep_eval.json lacks the id.
		msg := "spec.bugs (b2) names bug ids that /tests/swesweep_eval.json does not have: b2; it has b1; test.sh was not run"
		k.runStage(name, verifierStage, 1, &podcontract.Summary{Stage: verifierStage, StreamID: "s-verify", Done: true, ExitCode: -1,
			Reason: reasons.UnknownBugs, Message: msg})
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialFailed))
		t := k.trial(name)
		Expect(t.Status.Reason).To(Equal(reasons.UnknownBugs))
		Expect(t.Status.Message).To(Equal(msg))
		Expect(t.Status.Rewards).To(BeEmpty())
		Eventually(getRun(ns, "stale"), timeout, poll).Should(Satisfy(func(r *evalv1.SweepRun) bool { return r.Status.CompletionTime != nil }))
		run := getRun(ns, "stale")()
		Expect(run.Status.GradedTrials).To(BeZero())
		Expect(run.Status.EvaluationFailures).To(Equal(int32(1)))
	})
})
