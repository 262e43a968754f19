package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/hook"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// bigPatch is a patch of about size bytes adding a data file, as an agent that commits a large
// generated file writes it.
func bigPatch(size int) string {
	var b strings.Builder
	lines := size / 65
	fmt.Fprintf(&b, "diff --git a/data.txt b/data.txt\nnew file mode 100644\n--- /dev/null\n+++ b/data.txt\n@@ -0,0 +1,%d @@\n", lines)
	for i := range lines {
		sum := sha256.Sum256([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
		fmt.Fprintf(&b, "+%s\n", hex.EncodeToString(sum[:]))
	}
	return b.String()
}

// collectAgentPatch runs the real collector over an agent stage that left patch and serves its
// stream as the Pod's collector log.
func collectAgentPatch(k kubelet, pod *corev1.Pod, patch string) *podcontract.Summary {
	paths := hook.RootedPaths(GinkgoT().TempDir())
	for _, dir := range []string{filepath.Dir(paths.Patch), filepath.Dir(paths.Done), filepath.Dir(paths.TerminationLog)} {
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	}
	Expect(os.WriteFile(paths.Patch, []byte(patch), 0o644)).To(Succeed())
	now := time.Now()
	b, err := json.Marshal(hook.Done{Stage: agentStage, StartedAt: now, FinishedAt: now})
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(paths.Done, b, 0o644)).To(Succeed())
	var stdout bytes.Buffer
	spec := podcontract.StageSpec{Stage: agentStage, Task: "t", Trial: "tr", Artifacts: []podcontract.Artifact{{Path: paths.Patch, Key: podcontract.PatchKey}}}
	sum, err := hook.RunCollector(context.Background(), spec, paths, &stdout, hook.CollectOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(sum.Streamed).To(BeTrue())
	logs.set(k.ns, pod.Name, podbuild.CollectorContainer, stdout.Bytes())
	return &sum
}

var _ = Describe("a patch larger than a Secret", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("reaches the verifier over several artifacts Secrets, all mounted, and is reassembled whole", func() {
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "big").create()
		calc := campaign.TrialName("big", "calc", 1)
		patch := bigPatch(5 << 20)

		By("the collector streams the 5 MiB patch and the controller spreads it over Secrets owned by the trial")
		job := k.job(calc, agentStage, 1)
		pod := k.startPod(job, "p1")
		k.finishPod(pod, corev1.PodSucceeded, 0, collectAgentPatch(k, pod, patch))
		k.completeJob(job, "")
		verifyJob := k.job(calc, verifierStage, 1)
		// The verifier Job is created in the reconcile whose one status write records the
		// harvest: the Job can be seen before the status.
		t := &evalv1.TaskTrial{}
		Eventually(func() *evalv1.PatchStatus {
			t = k.trial(calc)
			return t.Status.Patch
		}, 20*time.Second, 50*time.Millisecond).ShouldNot(BeNil(), "trial %s records its patch", calc)
		sum := sha256.Sum256([]byte(patch))
		Expect(t.Status.Patch.Bytes).To(Equal(int64(len(patch))))
		Expect(t.Status.Patch.SHA256).To(Equal(hex.EncodeToString(sum[:])))
		Expect(t.Status.Reason).NotTo(Equal(reasons.PatchTooLarge))
		secrets := &corev1.SecretList{}
		Expect(k8s.List(context.Background(), secrets, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelTrial: calc, evalv1.LabelStage: string(agentStage)})).To(Succeed())
		Expect(len(secrets.Items)).To(BeNumerically(">=", 6), "5 MiB takes six Secrets of 1 MiB")
		merged := map[string][]byte{}
		for _, s := range secrets.Items {
			Expect(s.Name).To(HavePrefix(podbuild.ArtifactSecretName(calc)))
			Expect(s.OwnerReferences[0].Name).To(Equal(calc))
			for key, v := range s.Data {
				merged[key] = v
			}
		}

		By("the verifier Job mounts every one of them in one projected volume at the input directory")
		var input *corev1.Volume
		for i, v := range verifyJob.Spec.Template.Spec.Volumes {
			if v.Projected != nil {
				input = &verifyJob.Spec.Template.Spec.Volumes[i]
			}
		}
		Expect(input).NotTo(BeNil())
		var mounted []string
		for _, src := range input.Projected.Sources {
			mounted = append(mounted, src.Secret.Name)
		}
		for _, s := range secrets.Items {
			Expect(mounted).To(ContainElement(s.Name))
		}
		Expect(verifyJob.Spec.Template.Spec.Containers[0].VolumeMounts).To(ContainElement(And(
			HaveField("Name", input.Name), HaveField("MountPath", podcontract.InputDir), HaveField("ReadOnly", true))))

		By("the verifier stage reassembles the patch from the merged Secrets, checks it, and its tests see it whole")
		paths := hook.RootedPaths(GinkgoT().TempDir())
		for key, v := range merged {
			path := filepath.Join(paths.Input, key)
			Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
			Expect(os.WriteFile(path, v, 0o644)).To(Succeed())
		}
		want := filepath.Join(GinkgoT().TempDir(), "want.patch")
		Expect(os.WriteFile(want, []byte(patch), 0o644)).To(Succeed())
		Expect(os.MkdirAll(paths.Tests, 0o755)).To(Succeed())
		testSh := fmt.Sprintf("if cmp -s %s %s; then echo 1; else echo 0; fi > %s/reward.txt\n", paths.Patch, want, paths.VerifierDir)
		Expect(os.WriteFile(filepath.Join(paths.Tests, "test.sh"), []byte(testSh), 0o755)).To(Succeed())
		spec := podcontract.StageSpec{Stage: verifierStage, Task: "calc", Trial: calc, TimeoutSeconds: 30,
			Artifacts: []podcontract.Artifact{{Path: paths.Patch, Key: podcontract.PatchKey}}}
		done, err := hook.RunVerify(context.Background(), spec, paths, hook.VerifyOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(done.Reason).To(BeEmpty(), done.Message)
		Expect(done.Rewards).To(HaveKeyWithValue("reward", 1.0), "the tests saw the agent's patch byte for byte")

		k.runStage(calc, verifierStage, 1, verifierSummary(sweepRewards(4, 4, 1)))
		Eventually(getRun(ns, "big"), timeout, poll).Should(Satisfy(completed))
		Expect(k.trial(calc).Status.Score).To(Equal("1.0000"))
	})
})
