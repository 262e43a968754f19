//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// bigDataPatch is the calc-engine fix plus a data file of dataBytes, as a small patch: the
// data file travels as a GIT binary patch (deflated, so the patch agent's Secret holds it), and
// once applied it is a text file, which the task's collect hook diffs line by line into a
// model.patch of more than dataBytes.
func bigDataPatch(dataBytes int) []byte {
	dir := GinkgoT().TempDir()
	git := func(args ...string) []byte {
		var out bytes.Buffer
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=sweep", "-c", "user.email=sweep@localhost"}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, GinkgoWriter
		ExpectWithOffset(1, cmd.Run()).To(Succeed(), "git %v", args)
		return out.Bytes()
	}
	// filepath.Join would drop the trailing "/.", and cp would copy the folder itself.
	Expect(exec.Command("cp", "-a", filepath.Join(root, "tasks", "calc-engine", "environment", "repo")+"/.", dir).Run()).To(Succeed())
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "baseline")
	fixes, err := filepath.Glob(filepath.Join(root, "tasks", "calc-engine", "solution", "*.patch"))
	Expect(err).NotTo(HaveOccurred())
	for _, fix := range fixes {
		git("apply", "--whitespace=nowarn", fix)
	}
	line := "0123456789,abcdefghij,ABCDEFGHIJ,0123456789,abcdefghij,ABCDEF\n"
	Expect(os.WriteFile(filepath.Join(dir, "data.csv"), []byte(strings.Repeat(line, dataBytes/len(line)+1)), 0o644)).To(Succeed())
	// Only here, not in the tree: the diff below sends the data file deflated.
	Expect(os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), []byte("data.csv binary\n"), 0o644)).To(Succeed())
	git("add", "-A")
	return git("diff", "--cached", "--binary", "HEAD")
}

var _ = Describe("a patch larger than a Secret", func() {
	It("is graded: a 5 MiB model.patch reaches the verifier over several Secrets and scores the fix", func() {
		ns := catalogueNamespace("bigpatch")
		const task = "sweep-samples__calc-engine"
		patch := bigDataPatch(5 << 20)
		Expect(len(patch)).To(BeNumerically("<", podbuild.MaxSecretPayload), "the agent's input fits its Secret")
		Expect(k8s.Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "patches", Namespace: ns},
			Data: map[string][]byte{task: patch}})).To(Succeed())
		run := newRun(ns, "bigpatch", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}})
		run.Spec.Tasks = evalv1.TaskSelection{Names: []string{task}}
		Expect(k8s.Create(context.Background(), run)).To(Succeed())
		sr := waitFinished(ns, "bigpatch")
		trials := trialsOf(ns, "bigpatch")
		reportTrialTimes(trials)
		Expect(trials).To(HaveLen(1))
		t := trials[0]
		Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
		Expect(t.Status.Reason).NotTo(Equal(reasons.PatchTooLarge))
		Expect(t.Status.Patch.Bytes).To(BeNumerically(">", 5<<20), "the collect hook diffed the data file as text")
		Expect(t.Status.Patch.SHA256).NotTo(BeEmpty())
		Expect(sr.Status.Score).To(Equal("1.0000"), "the fix is graded with the data file beside it")

		secrets := &corev1.SecretList{}
		Expect(k8s.List(context.Background(), secrets, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelTrial: t.Name})).To(Succeed())
		artifacts := 0
		for _, s := range secrets.Items {
			if strings.HasPrefix(s.Name, podbuild.ArtifactSecretName(t.Name)) {
				artifacts++
			}
		}
		Expect(artifacts).To(BeNumerically(">=", 6), "5 MiB spread over Secrets of 1 MiB")
		first := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ArtifactSecretName(t.Name)}, first)).To(Succeed())
		Expect(string(first.Data[podcontract.ArtifactChecksumKey(podcontract.PatchKey)])).To(Equal(t.Status.Patch.SHA256))
	})
})
