package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/controllers"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/hook"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/statusevents"
)

// artifactSecretsMounted are the Secrets a verifier Job's Pod mounts as the agent's artifacts.
func artifactSecretsMounted(job *batchv1.Job) []string {
	var out []string
	for _, v := range job.Spec.Template.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.Secret != nil {
				out = append(out, src.Secret.Name)
			}
		}
	}
	return out
}

// absent reports whether the object is not (or no longer) in the cluster.
func absent(ns, name string, obj client.Object) func() bool {
	return func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, obj))
	}
}

var _ = Describe("Regrading a finished campaign", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("grades each final trial's stored artifacts again with the catalogue's current verifier, without running the agents, and scores the regrades", func() {
		makeTask(ns, "a", 1).create()
		makeTask(ns, "b", 1).create()
		makeRun(ns, "rg").retries(0).create()
		a, b := campaign.TrialName("rg", "a", 1), campaign.TrialName("rg", "b", 1)

		By("a is graded 0, b's agent Pod is evicted (no artifacts): the campaign completes")
		k.runStage(a, agentStage, 1, agentSummaryWithUsage(100, 10, "0.01"))
		k.runStage(a, verifierStage, 1, verifierSummary(sweepRewards(1, 0, 1)))
		job := k.job(b, agentStage, 1)
		pod := k.startPod(job, "p1")
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
		Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
		k.completeJob(job, "BackoffLimitExceeded")
		Eventually(k.phaseOf(b), timeout, poll).Should(Equal(evalv1.TrialError))
		Eventually(getRun(ns, "rg"), timeout, poll).Should(Satisfy(completed))
		Expect(getRun(ns, "rg")().Status.Score).To(Equal("0.0000"))
		original := k.trial(a)
		Expect(original.Status.Patch).NotTo(BeNil())

		By("the catalogue gets a new verifier image, then a regrade request")
		cm := &corev1.ConfigMap{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "task-a"}, cm)).To(Succeed())
		cm.Annotations[evalv1.AnnotationVerifierImage] = "tasks/a:verifier-2"
		Expect(k8s.Update(context.Background(), cm)).To(Succeed())
		annotate(ns, "rg", map[string]string{evalv1.AnnotationRegrade: "g1"})
		Eventually(func() *evalv1.RetryStatus { return getRun(ns, "rg")().Status.Regrade }, timeout, poll).ShouldNot(BeNil())
		run := getRun(ns, "rg")()
		Expect(run.Status.Regrade.Token).To(Equal("g1"))
		Expect(run.Status.Regrade.Trials).To(Equal(int32(1)), "b stored no artifacts: only a is regraded")
		Expect(run.Status.CompletionTime).To(BeNil())
		c := meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunComplete)
		Expect(c.Status).To(Equal(metav1.ConditionFalse))
		Expect(c.Reason).To(Equal(reasons.Retrying))
		Expect(kstatusOf(run)).To(Equal(status.InProgressStatus))
		Eventually(eventsAbout(ns, "rg"), timeout, poll).Should(ContainElement(
			corev1.EventTypeNormal + " " + reasons.Retrying + " " + statusevents.ActionRegrade))

		regrade := campaign.RerunName("rg", "a", 1, 1)
		t := k.trial(regrade)
		Expect(t.Spec.RegradeOf).To(Equal(a))
		Expect(t.Spec.Attempt).To(Equal(int32(1)))
		Expect(t.Spec.Images.Verifier).To(Equal("tasks/a:verifier-2"), "made from the catalogue as it is now")
		Expect(t.Spec.Agent).To(Equal(original.Spec.Agent))
		Expect(t.Labels).To(HaveKeyWithValue(evalv1.LabelRerun, "1"))
		old := k.trial(a)
		Expect(old.Labels).To(HaveKeyWithValue(evalv1.LabelSupersededBy, regrade))
		Expect(old.Labels).To(HaveKeyWithValue(evalv1.LabelRegradedBy, regrade))
		Expect(k.trial(b).Labels).NotTo(HaveKey(evalv1.LabelSupersededBy))

		By("the regrade runs no agent: its verifier mounts the original's artifacts Secrets")
		verify := k.job(regrade, verifierStage, 1)
		Expect(absent(ns, podbuild.JobName(regrade, agentStage, 1), &batchv1.Job{})()).To(BeTrue(), "no agent Job")
		mounted := artifactSecretsMounted(verify)
		Expect(mounted).To(HaveLen(podbuild.MaxArtifactSecrets))
		Expect(mounted[0]).To(Equal(podbuild.ArtifactSecretNameAt(a, 0)))
		Expect(verify.Spec.Template.Spec.Containers[0].Image).To(Equal("tasks/a:verifier-2"))
		t = k.trial(regrade)
		Expect(t.Status.Patch).To(Equal(original.Status.Patch), "the original's patch, from its status")
		Expect(t.Status.Agent).To(BeNil())
		ac := meta.FindStatusCondition(t.Status.Conditions, evalv1.TrialAgentCompleted)
		Expect(ac).NotTo(BeNil())
		Expect(ac.Reason).To(Equal(reasons.Regraded))
		Expect(t.Status.Provenance.RegradeOf).To(Equal(a))

		By("the new verifier grades it 1: the score counts the regrade, not the trial it replaced")
		k.runStage(regrade, verifierStage, 1, verifierSummary(sweepRewards(1, 1, 1)))
		Eventually(getRun(ns, "rg"), timeout, poll).Should(Satisfy(completed))
		run = getRun(ns, "rg")()
		Expect(run.Status.Score).To(Equal("1.0000"))
		Expect(run.Status.Progress).To(Equal("2/2"))
		Expect(k.trial(regrade).Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(k.trial(a).Status.Score).To(Equal("0.0000"), "the earlier record is kept")
		Expect(k.trial(regrade).Status.Usage).To(BeNil(), "a regrade runs no agent")
		Expect(run.Status.Usage.Trials).To(Equal(int32(1)), "the agent that ran is counted once")
		Expect(run.Status.Usage.CostUSD).To(Equal("0.01"))
		Eventually(runStatus(ns, "rg"), timeout, poll).Should(Equal(status.CurrentStatus))

		By("the same annotation applied again does nothing")
		handled := run.Status.Regrade.DeepCopy()
		annotate(ns, "rg", map[string]string{evalv1.AnnotationRegrade: "g1", "sync": "again"})
		Consistently(absent(ns, campaign.RerunName("rg", "a", 1, 2), &evalv1.TaskTrial{}), 2*time.Second, poll).Should(BeTrue())
		run = getRun(ns, "rg")()
		Expect(run.Status.Regrade).To(Equal(handled))
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))

		By("a second regrade grades the original's artifacts again, not its regrade's")
		annotate(ns, "rg", map[string]string{evalv1.AnnotationRegrade: "g2"})
		second := campaign.RerunName("rg", "a", 1, 2)
		Expect(k.trial(second).Spec.RegradeOf).To(Equal(a))
		Expect(artifactSecretsMounted(k.job(second, verifierStage, 1))[0]).To(Equal(podbuild.ArtifactSecretNameAt(a, 0)))
	})

	It("ends a regrade whose original trial is gone ArtifactsLost, naming it", func() {
		cm := makeTask(ns, "a", 1).create()
		trial := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: "lone-r1", Namespace: ns},
			Spec: evalv1.TaskTrialSpec{Task: "a", Attempt: 1, RegradeOf: "lone",
				Images:     evalv1.TrialImages{Agent: "tasks/a:env", Verifier: "tasks/a:verifier"},
				Definition: cm.Data[evalv1.TaskTOMLKey], Grader: "swesweep", BugsTotal: 1,
				Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}}}
		Expect(k8s.Create(context.Background(), trial)).To(Succeed())
		Eventually(k.phaseOf("lone-r1"), timeout, poll).Should(Equal(evalv1.TrialError))
		t := k.trial("lone-r1")
		Expect(t.Status.Reason).To(Equal(reasons.ArtifactsLost))
		Expect(t.Status.Message).To(ContainSubstring("spec.regradeOf: trial lone is gone"))
		Expect(absent(ns, podbuild.JobName("lone-r1", agentStage, 1), &batchv1.Job{})()).To(BeTrue())
		Expect(absent(ns, podbuild.JobName("lone-r1", verifierStage, 1), &batchv1.Job{})()).To(BeTrue())
	})
})

var _ = Describe("A regrade's record", func() {
	var (
		ns  string
		k   kubelet
		dir string
	)
	withStoreManager(&ns, &k, func() *controllers.Stores {
		var store *recordstore.Store
		store, dir = fileStore()
		return &controllers.Stores{Default: store}
	}, nil)

	It("is a trial folder of its own naming the trial it regraded, with none of that trial's agent files", func() {
		makeTask(ns, "calc", 3).create()
		run := makeRun(ns, "rgr").create()
		name := campaign.TrialName("rgr", "calc", 1)
		rewards, err := reward.ParseJSON(gradedFiles["reward.json"])
		Expect(err).NotTo(HaveOccurred())
		k.runStage(name, agentStage, 1, agentSummaryWithLog(samplePatch, agentLog))
		k.runVerifierWithFiles(name, gradedFiles, hook.Done{Stage: verifierStage, Rewards: rewards})
		Eventually(getRun(ns, "rgr"), timeout, poll).Should(Satisfy(completed))

		annotate(ns, "rgr", map[string]string{evalv1.AnnotationRegrade: "g1"})
		regrade := campaign.RerunName("rgr", "calc", 1, 1)
		k.runVerifierWithFiles(regrade, gradedFiles, hook.Done{Stage: verifierStage, Rewards: rewards})
		Eventually(getRun(ns, "rgr"), timeout, poll).Should(Satisfy(completed))
		Expect(k.trial(regrade).Status.Record).NotTo(BeNil())

		folder := trialFolder(dir, run, regrade, "calc")
		Expect(folder).NotTo(Equal(trialFolder(dir, run, name, "calc")))
		files := modTimes(folder)
		Expect(files).To(HaveKey(harborjob.ConfigFile))
		Expect(files).To(HaveKey(harborjob.ResultFile))
		Expect(files).To(HaveKey("verifier/reward.json"))
		for rel := range files {
			Expect(rel).NotTo(HavePrefix("agent/"), "the original's agent files stay in its own folder")
			Expect(rel).NotTo(HavePrefix("artifacts/"))
		}
		var cfg struct {
			RegradeOf  string            `json:"regrade_of"`
			Provenance evalv1.Provenance `json:"provenance"`
		}
		data, err := os.ReadFile(filepath.Join(folder, harborjob.ConfigFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Unmarshal(data, &cfg)).To(Succeed())
		Expect(cfg.RegradeOf).To(Equal(name))
		Expect(cfg.Provenance.RegradeOf).To(Equal(name))
		Expect(os.ReadFile(filepath.Join(trialFolder(dir, run, name, "calc"), "artifacts", podcontract.PatchKey))).To(Equal([]byte(samplePatch)),
			"the original's record keeps its patch")
	})
})
