//go:build e2e

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	"github.com/swe-sweep/sweep-operator/internal/provenance"
)

var _ = Describe("provenance", func() {
	It("shows every trial's image digests as the nodes resolved them, pinned by the campaign, and its versions", func() {
		ns := catalogueNamespace("provenance")
		Expect(k8s.Create(context.Background(), newRun(ns, "prov", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}))).To(Succeed())
		sr := waitFinished(ns, "prov")
		Expect(sr.Status.Score).To(Equal("1.0000"))

		tasks := &corev1.ConfigMapList{}
		Expect(k8s.List(context.Background(), tasks, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask})).To(Succeed())
		entries := map[string]string{}
		for i := range tasks.Items {
			entries[tasks.Items[i].Labels[evalv1.LabelTask]] = provenance.TaskEntrySHA256(&tasks.Items[i])
		}

		trials := trialsOf(ns, "prov")
		Expect(trials).To(HaveLen(len(sampleTasks)))
		for _, t := range trials {
			p := t.Status.Provenance
			Expect(p).NotTo(BeNil(), t.Name)
			g, err := grading.Lookup(t.Spec.Grader)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.Grader).To(Equal(grading.Versioned(g)), t.Name)
			Expect(p.Parser).To(Equal(g.Parser()), t.Name)
			Expect(p.OperatorVersion).NotTo(BeEmpty(), t.Name)
			Expect(p.HookImage).To(ContainSubstring("@sha256:"), "%s: the hook the verifier installed", t.Name)
			Expect(p.TaskDefinitionSHA256).To(Equal(entries[t.Spec.Task]), t.Name)
			Expect(p.Agent).To(Equal(map[string]string{"kind": "oracle"}), t.Name)
			for _, img := range []struct{ image, id, ran string }{
				{t.Spec.Images.Agent, p.AgentImageID, p.AgentImage}, {t.Spec.Images.Verifier, p.VerifierImageID, p.VerifierImage},
			} {
				digest := provenance.Digest(img.id)
				Expect(digest).To(HavePrefix("sha256:"), "%s: the node reported image ID %q for %s", t.Name, img.id, img.image)
				Expect(img.ran).To(Equal(provenance.Ran(img.image, img.id)), t.Name)
				pin := provenance.Find(sr.Status.Images, img.image)
				Expect(pin).NotTo(BeNil(), "%s: the campaign pinned no digest for %s", t.Name, img.image)
				Expect(pin.Digest).To(Equal(digest), "%s ran %s under another digest than the pinned one", t.Name, img.image)
				AddReportEntry("pinned image", img.image+" "+pin.Digest+" reference "+pin.Reference)
			}
		}
	})
})
