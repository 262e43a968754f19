//go:build e2e

package e2e

import (
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// The pod-level attacks (attacks_test.go) run in the verifier Pod of a sample task graded by
// the built-in swesweep grader: its tests run as the unprivileged test identity, which cannot
// write or read the run and verifier directories, read the bundle's fixes, signal the grader,
// or outlive the stage. Each campaign must be measured, and score 0.
var _ = Describe("the agent's code cannot forge a grade", func() {
	It("scores 0 for patches that forge the run directory, read the fixes, kill the grader or leave a daemon", func() {
		patches, err := attackPatches(filepath.Join(root, "tasks", attackDir, "environment", "repo"))
		Expect(err).NotTo(HaveOccurred())
		ns := catalogueNamespace("forge")
		// One campaign per attack, all at once: each has its own Secret of patches, keyed by
		// the task name as the patch agent reads it.
		for _, name := range attackNames() {
			Expect(k8s.Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
				Data: map[string][]byte{attackTask: []byte(patches[name])}})).To(Succeed())
			sr := newRun(ns, name, evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: name}})
			sr.Spec.Tasks.Names = []string{attackTask}
			Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		}
		for _, name := range attackNames() {
			By("attack " + name)
			sr := waitFinished(ns, name)
			trials := trialsOf(ns, name)
			reportTrialTimes(trials)
			Expect(trials).To(HaveLen(1), name)
			t := trials[0]
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", name, t.Status.Reason, t.Status.Message)
			// Measured as 0 (or refused with its reason, also a 0): never a forged grade, never
			// "not measured".
			Expect(t.Status.Score).To(Equal("0.0000"), "%s: %s %s", name, t.Status.Reason, t.Status.Message)
			got := rewards(t)
			Expect(got).To(HaveKeyWithValue(reward.KeyReward, 0.0), name)
			Expect(got).To(HaveKeyWithValue(reward.KeyResolved, 0.0), name)
			Expect(got).To(HaveKeyWithValue(reward.KeyGraderFailed, 0.0), name)
			Expect(sr.Status.Score).To(Equal("0.0000"), name)
			Expect(sr.Status.GradedTrials).To(Equal(int32(1)), name)
		}
	})
})
