//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

var _ = Describe("a test.sh task's bug subset and its grader's files", func() {
	It("grades only the chosen bug, as SWE-sweep's harness does, and exports every file its grader wrote", func() {
		ns := catalogueNamespace("testsh-subset")
		sr := newRun(ns, "subset", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}})
		sr.Spec.Tasks.Names = []string{scriptTask}
		sr.Spec.Tasks.Bugs = map[string][]string{scriptTask: {"singleton-text"}}
		Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		waitFinished(ns, "subset")
		trials := trialsOf(ns, "subset")
		Expect(trials).To(HaveLen(1))
		t := trials[0]
		Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
		Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeySubtasks, "1.0000"))
		Expect(t.Status.Rewards).To(HaveKeyWithValue(reward.KeyResolved, "1.0000"))
		Expect(t.Status.Score).To(Equal("1.0000"))

		dir := GinkgoT().TempDir()
		cluster := clioptions.NewCluster()
		kubeconfig := os.Getenv("KUBECONFIG")
		cluster.Flags.KubeConfig, cluster.Flags.Namespace = &kubeconfig, &ns
		streams, _, errOut := clioptions.NewTestIOStreams()
		Expect(clioptions.Execute(context.Background(), &export.Options{Dir: dir, Cluster: cluster}, streams, []string{"subset"})).
			To(Succeed(), "sweep export: %s", errOut.String())
		rewards, err := filepath.Glob(filepath.Join(dir, "*", "verifier", reward.FileJSON))
		Expect(err).NotTo(HaveOccurred())
		Expect(rewards).To(HaveLen(1), "exported: %v", rewards)
		verifier := filepath.Dir(rewards[0])

		var written map[string]float64
		Expect(json.Unmarshal(readFile(rewards[0]), &written)).To(Succeed())
		Expect(written).To(HaveLen(len(sweepRewardKeys)), "reward.json as the grader wrote it: %v", written)
		outcome, err := sweepbundle.ReadOutcome(readFile(filepath.Join(verifier, "eval.json")))
		Expect(err).NotTo(HaveOccurred())
		Expect(outcome.Subtasks).To(HaveExactElements(And(HaveField("ID", "singleton-text"), HaveField("Resolved", true),
			HaveField("Partial", false), HaveField("Tests", Not(BeEmpty())))), "only the chosen bug, resolved, with its tests' outcomes")
		var consoles any
		Expect(json.Unmarshal(readFile(filepath.Join(verifier, "eval_output.json")), &consoles)).To(Succeed(),
			"eval_output.json, which only the task's own grader writes, is exported")
	})

	It("refuses, before any trial, a bug the task does not have", func() {
		ns := catalogueNamespace("testsh-unknown")
		sr := newRun(ns, "unknown", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}})
		sr.Spec.Tasks.Names = []string{scriptTask}
		sr.Spec.Tasks.Bugs = map[string][]string{scriptTask: {"no-such-bug"}}
		Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		done := waitFinished(ns, "unknown")
		failed := meta.FindStatusCondition(done.Status.Conditions, evalv1.SweepRunFailed)
		Expect(failed).NotTo(BeNil())
		Expect(failed.Reason).To(Equal(reasons.UnknownBugs))
		Expect(failed.Message).To(ContainSubstring("no-such-bug"))
		Expect(trialsOf(ns, "unknown")).To(BeEmpty())
	})
})

func readFile(path string) []byte {
	b, err := os.ReadFile(path)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return b
}
