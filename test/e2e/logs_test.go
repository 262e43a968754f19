//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// sweepBuild builds bin/sweep from this tree once per suite run, so that the specs run the
// CLI a user runs, as a process of its own.
var sweepBuild = sync.OnceValue(func() error {
	cmd := exec.Command("go", "build", "-o", filepath.Join(root, "bin", "sweep"), "./cmd/sweep")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/sweep: %w: %s", err, out)
	}
	return nil
})

// sweepCLI runs bin/sweep with the suite's kubeconfig and returns its stdout and stderr apart.
func sweepCLI(args ...string) (string, string, error) {
	ExpectWithOffset(1, sweepBuild()).To(Succeed())
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(root, "bin", "sweep"), args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// stageRunning says whether the main container of a trial's stage Pod runs now.
func stageRunning(ns, trial string, stage podcontract.Stage) bool {
	pods := &corev1.PodList{}
	ExpectWithOffset(1, k8s.List(context.Background(), pods, client.InNamespace(ns),
		client.MatchingLabels{evalv1.LabelTrial: trial, evalv1.LabelStage: string(stage)})).To(Succeed())
	for _, p := range pods.Items {
		for _, cs := range p.Status.ContainerStatuses {
			if cs.Name == string(stage) && cs.State.Running != nil {
				return true
			}
		}
	}
	return false
}

var _ = Describe("sweep logs", func() {
	It("reads every trial's agent and verifier log from its Pods while they run and from the store after", func() {
		ns := catalogueNamespace("logs")
		// The agent prints, waits, and prints again: long enough to be read while it runs, and
		// followed with -f to its last line.
		hook, err := os.ReadFile(filepath.Join(root, ".cache", "images", "sweep-hook.ref"))
		Expect(err).NotTo(HaveOccurred())
		// On textkit it also makes the package sleep on import, so that textkit's verifier runs
		// for tens of seconds and is read from its Pod: the other samples' tests take seconds and
		// may be harvested before the CLI reaches them.
		agent := evalv1.AgentSpec{External: &evalv1.ExternalAgent{Image: strings.TrimSpace(string(hook)), BundlePath: "/sweep-hook",
			Command: []string{"sh", "-c", `echo "logs-e2e: agent started"; sleep 30
if [ -d /workspace/textkit/textkit ]; then printf '\nimport time\ntime.sleep(3)\n' >> /workspace/textkit/textkit/__init__.py; fi
echo "logs-e2e: agent done"`}}}
		run := newRun(ns, "logs", agent)
		// Every trial at once: a trial held back by parallelism would start after the others'
		// agents ended, and the spec reads each agent while it runs.
		run.Spec.Parallelism = int32(len(sampleTasks))
		Expect(k8s.Create(context.Background(), run)).To(Succeed())
		kube := []string{"--kubeconfig", os.Getenv("KUBECONFIG"), "-n", ns}

		By("while the agents run: what they printed so far, and -f to their end")
		var trials []evalv1.TaskTrial
		Eventually(func() []evalv1.TaskTrial {
			trials = trialsOf(ns, "logs")
			return trials
		}, 2*time.Minute, time.Second).Should(HaveLen(len(sampleTasks)))
		followed := map[string]chan string{}
		for _, t := range trials {
			Eventually(func() bool { return stageRunning(ns, t.Name, podcontract.StageAgent) }, 5*time.Minute, 200*time.Millisecond).
				Should(BeTrue(), "the agent of %s runs", t.Name)
			Eventually(func(g Gomega) {
				out, stderr, err := sweepCLI(append(kube, "logs", t.Name)...)
				g.Expect(err).NotTo(HaveOccurred(), stderr)
				g.Expect(stderr).To(ContainSubstring("agent log from pod"))
				g.Expect(out).To(ContainSubstring("logs-e2e: agent started"))
			}, time.Minute, time.Second).Should(Succeed(), "sweep logs %s while its agent runs", t.Name)
			done := make(chan string, 1)
			followed[t.Name] = done
			go func(name string) {
				defer GinkgoRecover()
				out, stderr, err := sweepCLI(append(kube, "logs", name, "-f")...)
				done <- fmt.Sprintf("%s\nerr=%v\nstderr=%s", out, err, stderr)
			}(t.Name)
		}
		for name, done := range followed {
			var got string
			Eventually(done, 2*time.Minute).Should(Receive(&got), "sweep logs %s -f returns when the agent ends", name)
			Expect(got).To(ContainSubstring("logs-e2e: agent started"), name)
			Expect(got).To(ContainSubstring("logs-e2e: agent done"), name)
			Expect(got).To(ContainSubstring("err=<nil>"), name)
		}

		By("while the verifiers run: their tests' output from the Pod, or from the record once harvested")
		slow := slices.IndexFunc(trials, func(t evalv1.TaskTrial) bool { return t.Spec.Task == "sweep-samples__textkit" })
		Expect(slow).NotTo(Equal(-1))
		// The slow verifier first: the others' are read after it, from the Pod or the record.
		trials[0], trials[slow] = trials[slow], trials[0]
		Eventually(func() bool { return stageRunning(ns, trials[0].Name, podcontract.StageVerifier) }, 5*time.Minute, 200*time.Millisecond).
			Should(BeTrue(), "the verifier of %s runs", trials[0].Name)
		// A harvested trial's log is in the manager's store, which this machine sees elsewhere.
		store := "file://" + volumeStoreDir()
		for i, t := range trials {
			Eventually(func(g Gomega) {
				out, stderr, err := sweepCLI(append(kube, "logs", t.Name, "--stage", "verifier", "-f", "--store", store)...)
				g.Expect(err).NotTo(HaveOccurred(), stderr)
				g.Expect(out).NotTo(BeEmpty())
				if i == 0 {
					g.Expect(stderr).To(ContainSubstring("verifier log from pod"))
				}
			}, 5*time.Minute, time.Second).Should(Succeed(), "sweep logs %s --stage verifier", t.Name)
		}

		By("after the campaign: from each trial's record in the manager's store")
		sr := waitFinished(ns, "logs")
		for _, t := range trialsOf(ns, "logs") {
			Eventually(func() *evalv1.TrialRecordStatus {
				Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(&t), &t)).To(Succeed())
				return t.Status.Record
			}, 2*time.Minute, time.Second).ShouldNot(BeNil(), "trial %s is recorded", t.Name)

			if !strings.HasPrefix(t.Status.Record.Store, store) {
				_, _, err := sweepCLI(append(kube, "logs", t.Name)...)
				Expect(err).To(HaveOccurred())
			}
			for _, stage := range []string{"agent", "verifier"} {
				out, stderr, err := sweepCLI(append(kube, "logs", t.Name, "--stage", stage, "-f", "--store", store)...)
				Expect(err).NotTo(HaveOccurred(), "%s %s: %s", t.Name, stage, stderr)
				Expect(stderr).To(ContainSubstring(stage+" log from the record "+store+"/"+t.Status.Record.Folder), t.Name)
				Expect(out).NotTo(BeEmpty(), "%s %s", t.Name, stage)
				if stage == "agent" {
					Expect(out).To(ContainSubstring("logs-e2e: agent started"))
					Expect(out).To(ContainSubstring("logs-e2e: agent done"))
				}
			}
		}

		By("after the SweepRun is deleted: sweep info and sweep export read its job folder from the store")
		report, stderr, err := sweepCLI(append(kube, "info", "logs", "-o", "json")...)
		Expect(err).NotTo(HaveOccurred(), stderr)
		Expect(sr.Status.Record).NotTo(BeNil())
		Expect(k8s.Delete(context.Background(), sr)).To(Succeed())
		Eventually(func() []evalv1.TaskTrial { return trialsOf(ns, "logs") }, 2*time.Minute, time.Second).Should(BeEmpty())
		for _, url := range []string{store + "/" + sr.Status.Record.Folder, store + "/" + ns + "/logs"} {
			stored, stderr, err := sweepCLI("info", url, "-o", "json")
			Expect(err).NotTo(HaveOccurred(), stderr)
			Expect(stored).To(MatchJSON(report), url)
		}
		dir := filepath.Join(GinkgoT().TempDir(), "logs")
		_, stderr, err = sweepCLI("export", store+"/"+ns+"/logs", "-o", dir)
		Expect(err).NotTo(HaveOccurred(), stderr)
		copied, stderr, err := sweepCLI("info", dir, "-o", "json")
		Expect(err).NotTo(HaveOccurred(), stderr)
		Expect(copied).To(MatchJSON(report))
	})
})
