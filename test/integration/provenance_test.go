package integration

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/provenance"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

const (
	digestAgent    = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestVerifier = "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
	digestMoved    = "sha256:dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
	digestHook     = "sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
)

// reportImage reports the image ID the node resolved for the Pod's main container, as the
// kubelet does once it runs.
func (k kubelet) reportImage(pod *corev1.Pod, imageID string) {
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(pod), pod)).To(Succeed())
	pod.Status.ContainerStatuses[0].ImageID = imageID
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), pod)).To(Succeed())
}

// reportHookImage reports the image ID of the Pod's container that installed sweep-hook: the
// collector, which runs on.
func (k kubelet) reportHookImage(pod *corev1.Pod, imageID string) {
	ExpectWithOffset(1, k8s.Get(k.ctx(), client.ObjectKeyFromObject(pod), pod)).To(Succeed())
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: podbuild.InstallContainer, ImageID: imageID,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}
	ExpectWithOffset(1, k8s.Status().Update(k.ctx(), pod)).To(Succeed())
}

func mainImage(job *batchv1.Job) string { return job.Spec.Template.Spec.Containers[0].Image }

func provenanceOf(k kubelet, name string) func() *evalv1.Provenance {
	return func() *evalv1.Provenance { return k.trial(name).Status.Provenance }
}

var _ = Describe("Provenance", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("records each trial's versions, catalogue hash and agent, pins the campaign's images once, and fails a Pod under another digest as infrastructure", func() {
		cm := makeTask(ns, "a", 1).create()
		makeRun(ns, "pv").attempts(2).parallelism(1).retries(0).create()
		first, second := campaign.TrialName("pv", "a", 1), campaign.TrialName("pv", "a", 2)
		registryAgent := "docker.io/tasks/a@" + digestAgent

		By("the first trial has its provenance from its first reconcile")
		Eventually(provenanceOf(k, first), timeout, poll).ShouldNot(BeNil())
		Expect(*provenanceOf(k, first)()).To(Equal(evalv1.Provenance{
			OperatorVersion:      provenance.OperatorVersion(),
			Grader:               "swesweep/" + swesweep.GraderVersion,
			Parser:               "testresults/" + testresults.Version,
			TaskDefinitionSHA256: provenance.TaskEntrySHA256(cm),
			Agent:                map[string]string{"kind": "patch", "patchSecret": "patches"},
		}))

		By("its agent Pod runs the tag and reports a registry digest: the campaign pins it")
		job := k.job(first, agentStage, 1)
		Expect(mainImage(job)).To(Equal("tasks/a:env"))
		pod := k.startPod(job, "p1")
		k.reportImage(pod, registryAgent)
		k.finishPod(pod, corev1.PodSucceeded, 0, agentSummary(samplePatch, ""))
		k.completeJob(job, "")
		Eventually(func() []evalv1.PinnedImage { return getRun(ns, "pv")().Status.Images }, timeout, poll).Should(ContainElement(
			evalv1.PinnedImage{Image: "tasks/a:env", Digest: digestAgent, Reference: registryAgent}))

		By("its verifier reports an imported image's bare ID: pinned without a reference to run")
		job = k.job(first, verifierStage, 1)
		pod = k.startPod(job, "p1")
		k.reportHookImage(pod, digestHook)
		k.reportImage(pod, digestVerifier)
		Eventually(func() string { return provenanceOf(k, first)().HookImage }, timeout, poll).Should(Equal("sweep/hook:test@"+digestHook),
			"the verifier's grader ran from the hook it installed")
		k.finishPod(pod, corev1.PodSucceeded, 0, verifierSummary(sweepRewards(1, 1, 1)))
		k.completeJob(job, "")
		Eventually(k.phaseOf(first), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		p := provenanceOf(k, first)()
		Expect(p.AgentImage).To(Equal("tasks/a:env@" + digestAgent))
		Expect(p.AgentImageID).To(Equal(registryAgent))
		Expect(p.VerifierImage).To(Equal("tasks/a:verifier@" + digestVerifier))
		Expect(p.VerifierImageID).To(Equal(digestVerifier))
		Expect(getRun(ns, "pv")().Status.Images).To(ConsistOf(
			evalv1.PinnedImage{Image: "tasks/a:env", Digest: digestAgent, Reference: registryAgent},
			evalv1.PinnedImage{Image: "tasks/a:verifier", Digest: digestVerifier}))

		By("the second trial's agent runs the pinned registry reference")
		job = k.job(second, agentStage, 1)
		Expect(mainImage(job)).To(Equal(registryAgent))
		pod = k.startPod(job, "p1")
		k.reportImage(pod, registryAgent)
		k.finishPod(pod, corev1.PodSucceeded, 0, agentSummary(samplePatch, ""))
		k.completeJob(job, "")

		By("its verifier runs the imported tag, which now names another image: infrastructure, never graded")
		job = k.job(second, verifierStage, 1)
		Expect(mainImage(job)).To(Equal("tasks/a:verifier"))
		pod = k.startPod(job, "p1")
		k.reportImage(pod, digestMoved)
		Eventually(k.phaseOf(second), timeout, poll).Should(Equal(evalv1.TrialError))
		t := k.trial(second)
		Expect(t.Status.Reason).To(Equal(reasons.ImageDigestMismatch))
		Expect(t.Status.Message).To(ContainSubstring(digestMoved))
		Expect(t.Status.Message).To(ContainSubstring(digestVerifier))
		Expect(t.Status.Score).To(BeEmpty())
		Expect(t.Status.Rewards).To(BeEmpty())
		Expect(t.Status.Provenance.VerifierImageID).To(Equal(digestMoved), "the trial shows what its Pod ran")
		Expect(getRun(ns, "pv")().Status.Images).To(ContainElement(
			evalv1.PinnedImage{Image: "tasks/a:verifier", Digest: digestVerifier}), "a pin stays")
		Eventually(getRun(ns, "pv"), timeout, poll).Should(Satisfy(completed))
		Expect(getRun(ns, "pv")().Status.Score).To(Equal("1.0000"), "only the first trial is scored")
	})

	It("keeps a trial of no campaign unchecked: it records what its Pods ran", func() {
		// A TaskTrial created on its own has no SweepRun to pin its images.
		cm := makeTask(ns, "solo", 1).create()
		run := makeRun(ns, "unused").obj()
		spec := campaign.TrialSpec(run, campaign.Task{Name: "solo", ConfigMap: cm}, 1)
		spec.SweepRun = ""
		trial := &evalv1.TaskTrial{}
		trial.Namespace, trial.Name, trial.Spec = ns, "solo-1", spec
		Expect(k8s.Create(context.Background(), trial)).To(Succeed())
		k.runStage("solo-1", agentStage, 1, agentSummary(samplePatch, ""))
		job := k.job("solo-1", verifierStage, 1)
		pod := k.startPod(job, "p1")
		k.reportImage(pod, digestMoved)
		k.finishPod(pod, corev1.PodSucceeded, 0, verifierSummary(sweepRewards(1, 1, 1)))
		k.completeJob(job, "")
		Eventually(k.phaseOf("solo-1"), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		p := provenanceOf(k, "solo-1")()
		Expect(p.VerifierImage).To(Equal("tasks/solo:verifier@" + digestMoved))
		Expect(p.TaskDefinitionSHA256).To(BeEmpty(), "the catalogue hash is the SweepRun's to take")
	})
})
