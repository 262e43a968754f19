package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"

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
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/trialrecord"
)

// collectVerifier runs the real collector over a verifier directory holding files (path below
// it → content) after a stage that wrote done, and serves its stream as the Pod's collector
// log: what the controller then reads is what a Pod would have sent.
func collectVerifier(k kubelet, pod *corev1.Pod, files map[string][]byte, done hook.Done) *podcontract.Summary {
	root := GinkgoT().TempDir()
	paths := hook.RootedPaths(root)
	for rel, data := range files {
		path := filepath.Join(paths.VerifierDir, filepath.FromSlash(rel))
		Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
		Expect(os.WriteFile(path, data, 0o644)).To(Succeed())
	}
	Expect(os.MkdirAll(filepath.Dir(paths.Done), 0o755)).To(Succeed())
	Expect(os.MkdirAll(filepath.Dir(paths.TerminationLog), 0o755)).To(Succeed())
	b, err := json.Marshal(done)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(paths.Done, b, 0o644)).To(Succeed())
	var stdout bytes.Buffer
	spec := podcontract.StageSpec{Stage: verifierStage, Task: "t", Trial: "tr"}
	sum, err := hook.RunCollector(context.Background(), spec, paths, &stdout, hook.CollectOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(sum.Streamed).To(BeTrue(), "the other files ride on the stream")
	logs.set(k.ns, pod.Name, podbuild.CollectorContainer, stdout.Bytes())
	return &sum
}

// runVerifierWithFiles drives a trial's verifier stage whose Pod's collector sends files.
func (k kubelet) runVerifierWithFiles(trial string, files map[string][]byte, done hook.Done) {
	job := k.job(trial, verifierStage, 1)
	pod := k.startPod(job, "p1")
	k.finishPod(pod, corev1.PodSucceeded, 0, collectVerifier(k, pod, files, done))
	k.completeJob(job, "")
}

var _ = Describe("The verifier's files", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("keep every file below /logs/verifier in the results Secrets, for the CLI's reader, graded or not", func() {
		makeTask(ns, "calc", 3).create()
		makeTask(ns, "strings", 3).grader("").create()
		makeRun(ns, "files").create()
		calc, str := campaign.TrialName("files", "calc", 1), campaign.TrialName("files", "strings", 1)

		eval := make([]byte, 3<<20)
		for i := range eval {
			eval[i] = byte(i % 253)
		}
		graded := map[string][]byte{
			"reward.json":         []byte(`{"reward": 0.6667, "n_subtasks": 3, "n_resolved": 2, "n_partial": 0, "visible_ok": 1, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 1, "grader_failed": 0}`),
			"eval.json":           eval,
			"eval_output.json":    []byte(`{"tests": []}`),
			"test-stdout.txt":     []byte("ran\n"),
			"runs/bug 1/core.bin": {0, 0xff, 0xfe, 0x80},
		}
		gradedRewards, err := reward.ParseJSON(graded["reward.json"])
		Expect(err).NotTo(HaveOccurred())
		// A task graded by its own tests/test.sh whose grader failed: SWE-sweep's nine keys,
		// grader_failed 1, and its error file.
		failed := map[string][]byte{
			"reward.json":      []byte(`{"reward": 0.0, "n_subtasks": 3, "n_resolved": 0, "n_partial": 0, "visible_ok": 0, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 0, "grader_failed": 1}` + "\n"),
			"grader_error.txt": []byte("Traceback: the build failed\n"),
		}
		failedRewards, err := reward.ParseJSON(failed["reward.json"])
		Expect(err).NotTo(HaveOccurred())

		k.runStage(calc, agentStage, 1, agentSummary(samplePatch, ""))
		k.runVerifierWithFiles(calc, graded, hook.Done{Stage: verifierStage, Rewards: gradedRewards})
		k.runStage(str, agentStage, 1, agentSummary(samplePatch, ""))
		k.runVerifierWithFiles(str, failed, hook.Done{Stage: verifierStage, Reason: reasons.GraderFailed, Message: "the grader reported grader_failed", Rewards: failedRewards})
		Eventually(getRun(ns, "files"), timeout, poll).Should(Satisfy(completed))

		ok := k.trial(calc)
		Expect(ok.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(ok.Status.BugsResolved).To(Equal(int32(2)))
		first := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ResultsSecretName(calc)}, first)).To(Succeed())
		Expect(first.Data[podcontract.RecordReward]).To(Equal(graded["reward.json"]), "reward.json stays in the first Secret, as written")
		Expect(string(first.Data[podcontract.ResultsCountKey])).To(Equal("4"), "3 MiB of eval.json in pieces of a Secret each, the rest in the first")
		for i := range 4 {
			s := &corev1.Secret{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ResultsSecretNameAt(calc, i)}, s)).To(Succeed())
			Expect(s.OwnerReferences).To(HaveLen(1))
			Expect(s.OwnerReferences[0].Name).To(Equal(calc), "owned by the trial")
		}
		files, manifest, err := trialrecord.VerifierFiles(context.Background(), k8s, ok)
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(Equal(graded), "every file back, byte for byte")
		Expect(manifest.Files).To(HaveLen(len(graded)))

		bad := k.trial(str)
		Expect(bad.Status.Phase).To(Equal(evalv1.TrialFailed))
		Expect(bad.Status.Reason).To(Equal(reasons.GraderFailed))
		files, _, err = trialrecord.VerifierFiles(context.Background(), k8s, bad)
		Expect(err).NotTo(HaveOccurred())
		Expect(files[podcontract.RecordReward]).To(Equal(failed["reward.json"]), "the nine-key reward.json as test.sh wrote it, never a bare one")
		Expect(files).To(Equal(failed), "and its error file")
	})
})
