package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

var _ = Describe("an exclusion list (spec.tasks.exclusions)", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	progressing := func(name string) func() *metav1.Condition {
		return func() *metav1.Condition {
			return meta.FindStatusCondition(getRun(ns, name)().Status.Conditions, evalv1.SweepRunProgressing)
		}
	}
	catalogue := func() {
		makeTask(ns, "calc", 3).bugIDs("b1", "b2", "b3").create()
		makeTask(ns, "semver", 2).bugIDs("s1", "s2").create()
		makeTask(ns, "text", 2).bugIDs("t1", "t2").create()
	}

	It("leaves an excluded bug and a whole task out of the trials, the status and the score, and later edits of the list change nothing", func() {
		catalogue()
		list := exclusionList(ns, "excl", exclusions.Entry{Task: "calc", Bug: "b2", Reason: exclusions.Flaky, Detail: "test_add flipped 2/5"},
			exclusions.Entry{Task: "text", Reason: exclusions.Trivial})
		Expect(k8s.Create(context.Background(), list)).To(Succeed())
		makeRun(ns, "curated").names("calc", "semver", "text").parallelism(1).exclusions("excl").create()

		calc := campaign.TrialName("curated", "calc", 1)
		Eventually(trialsIn(ns), timeout, poll).Should(HaveLen(1))
		t := k.trial(calc)
		Expect(t.Spec.Bugs).To(Equal([]string{"b1", "b3"}))
		Expect(t.Spec.BugsTotal).To(Equal(int32(2)))
		sum := sha256.Sum256([]byte(list.Data[exclusions.ConfigMapKey]))
		Eventually(func() *evalv1.ExclusionsStatus { return getRun(ns, "curated")().Status.Exclusions }, timeout, poll).Should(Equal(&evalv1.ExclusionsStatus{
			ConfigMapName: "excl", Snapshot: campaign.ExclusionsSnapshotName("curated"), SHA256: hex.EncodeToString(sum[:]),
			TasksExcluded: 1, BugsExcluded: 3,
			ByReason: []evalv1.ExclusionCount{{Reason: "trivial", Tasks: 1, Bugs: 2}, {Reason: "flaky", Bugs: 1}},
		}))
		Expect(getRun(ns, "curated")().Status.Trials.Total).To(Equal(int32(2)))

		By("the list is edited after the campaign planned: it changes nothing")
		edited := exclusionList(ns, "excl", exclusions.Entry{Task: "semver", Reason: exclusions.Broken})
		cm := &corev1.ConfigMap{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "excl"}, cm)).To(Succeed())
		cm.Data = edited.Data
		Expect(k8s.Update(context.Background(), cm)).To(Succeed())
		k.runStage(calc, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(calc, verifierStage, 1, verifierSummary(sweepRewards(2, 1, 1)))

		semver := campaign.TrialName("curated", "semver", 1)
		Eventually(trialsIn(ns), timeout, poll).Should(HaveLen(2))
		Expect(k.trial(semver).Spec.Bugs).To(BeEmpty())
		Expect(k.trial(semver).Spec.BugsTotal).To(Equal(int32(2)))
		k.runStage(semver, agentStage, 1, agentSummary(samplePatch, ""))
		k.runStage(semver, verifierStage, 1, verifierSummary(sweepRewards(2, 2, 1)))

		By("the score counts the bugs left: 1 of calc's 2 and both of semver's")
		Eventually(getRun(ns, "curated"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "curated")()
		Expect(run.Status.BugsTotal).To(Equal(int32(4)))
		Expect(run.Status.BugsResolved).To(Equal("3.00"))
		Expect(run.Status.Score).To(Equal("0.7500"))
		Expect(run.Status.Tasks).To(Equal(int32(2)))
		Expect(run.Status.Exclusions.SHA256).To(Equal(hex.EncodeToString(sum[:])))
		Expect(run.Status.Exclusions.TasksExcluded).To(Equal(int32(1)))
		Consistently(trialsIn(ns), time.Second, poll).Should(HaveLen(2))

		By("the snapshot is immutable and owned by the SweepRun")
		snap := &corev1.ConfigMap{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: campaign.ExclusionsSnapshotName("curated")}, snap)).To(Succeed())
		Expect(snap.Data).To(Equal(list.Data))
		Expect(snap.Immutable).To(HaveValue(BeTrue()))
		Expect(metav1.IsControlledBy(snap, run)).To(BeTrue())
	})

	It("waits while the list's ConfigMap is missing, saying which and how to fix it, and starts once it is applied", func() {
		catalogue()
		makeRun(ns, "waiting").names("calc").exclusions("excl").create()
		Eventually(progressing("waiting"), timeout, poll).Should(HaveField("Reason", reasons.ExclusionsNotFound))
		run := getRun(ns, "waiting")()
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunPending))
		Expect(progressing("waiting")().Message).To(Equal("sweeprun " + ns + "/waiting: spec.tasks.exclusions.configMapName names configmap " + ns +
			"/excl, which does not exist: apply the exclusion list (key exclusions.json) to namespace " + ns + ", or create a SweepRun without it"))
		Expect(meta.FindStatusCondition(run.Status.Conditions, evalv1.ConditionStalled)).To(HaveField("Reason", reasons.ExclusionsNotFound))
		Consistently(trialsIn(ns), time.Second, poll).Should(BeEmpty())

		Expect(k8s.Create(context.Background(), exclusionList(ns, "excl", exclusions.Entry{Task: "calc", Bug: "b1", Reason: exclusions.Broken}))).To(Succeed())
		Eventually(trialsIn(ns), timeout, poll).Should(HaveLen(1))
		Expect(k.trial(campaign.TrialName("waiting", "calc", 1)).Spec.Bugs).To(Equal([]string{"b2", "b3"}))
		Eventually(progressing("waiting"), timeout, poll).Should(HaveField("Reason", reasons.TrialsRunning))
	})

	It("waits on an invalid list with a condition naming the entry, and starts once it is fixed", func() {
		catalogue()
		bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "excl", Namespace: ns}, Data: map[string]string{exclusions.ConfigMapKey: `{"schema":"sweep-exclusions/1","entries":[` +
			`{"task":"calc","bug":"b1","reason":"flaky"},{"task":"calc","bug":"b2","reason":"slow"}]}`}}
		Expect(k8s.Create(context.Background(), bad)).To(Succeed())
		makeRun(ns, "invalid").names("calc").exclusions("excl").create()
		Eventually(progressing("invalid"), timeout, poll).Should(HaveField("Reason", reasons.InvalidExclusions))
		Expect(progressing("invalid")().Message).To(Equal("sweeprun " + ns + "/invalid: configmap " + ns + `/excl: entries[1].reason is "slow": use one of broken, trivial, flaky, listed; ` +
			"fix key exclusions.json of the ConfigMap (`sweep tasks check --repeat N` writes a valid list)"))
		Consistently(trialsIn(ns), time.Second, poll).Should(BeEmpty())

		bad.Data[exclusions.ConfigMapKey] = `{"schema":"sweep-exclusions/1","entries":[{"task":"calc","bug":"b1","reason":"flaky"},{"task":"calc","bug":"b2","reason":"broken"}]}`
		Expect(k8s.Update(context.Background(), bad)).To(Succeed())
		Eventually(trialsIn(ns), timeout, poll).Should(HaveLen(1))
		Expect(k.trial(campaign.TrialName("invalid", "calc", 1)).Spec.Bugs).To(Equal([]string{"b3"}))
		Expect(getRun(ns, "invalid")().Status.Exclusions).To(HaveField("BugsExcluded", int32(2)))
	})
})
