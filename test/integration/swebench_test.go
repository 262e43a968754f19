package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

// swebenchImport is what `sweep swebench import` writes for the test dataset of
// internal/cli/swebenchcli, rendered with kustomize: that package's golden test keeps it equal
// to the command's output.
var swebenchImport = filepath.Join("..", "..", "internal", "cli", "swebenchcli", "testdata", "golden", "import.yaml")

// applyImport creates every object of the rendered import in ns, as kubectl apply -k -n would.
func applyImport(ns string) {
	data, err := os.ReadFile(swebenchImport)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		err := dec.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return
		}
		ExpectWithOffset(1, err).NotTo(HaveOccurred())
		obj.SetNamespace(ns)
		ExpectWithOffset(1, k8s.Create(context.Background(), obj)).To(Succeed(), "%s %s", obj.GetKind(), obj.GetName())
	}
}

// swebenchRewards are what the SWE-bench grader writes for a completed or an error instance.
func swebenchRewards(resolved, errorInstance bool) map[string]float64 {
	r := map[string]float64{"reward": 0, "n_subtasks": 1, "n_resolved": 0, "visible_ok": 1, "grader_failed": 0,
		swebench.RewardError: 0, reward.KeyPatchApplied: 1}
	if resolved {
		r["reward"], r["n_resolved"] = 1, 1
	}
	if errorInstance {
		r[swebench.RewardError], r[reward.KeyPatchApplied] = 1, 0
	}
	return r
}

// expectNoEgress checks that job's pods are selected by one NetworkPolicy, and that it denies
// all egress: the campaign's policy of no-network stages, since neither stage has network.
func expectNoEgress(ns, trial string, stage podcontract.Stage, job *batchv1.Job) {
	policies := &networkingv1.NetworkPolicyList{}
	ExpectWithOffset(1, k8s.List(context.Background(), policies, client.InNamespace(ns))).To(Succeed())
	var selecting []networkingv1.NetworkPolicy
	for _, np := range policies.Items {
		selector, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		ExpectWithOffset(1, err).NotTo(HaveOccurred())
		if selector.Matches(labels.Set(job.Spec.Template.Labels)) {
			selecting = append(selecting, np)
		}
	}
	ExpectWithOffset(1, selecting).To(HaveLen(1), "one policy selects the %s Job's pods of trial %s", stage, trial)
	ExpectWithOffset(1, selecting[0].Spec.PolicyTypes).To(ConsistOf(networkingv1.PolicyTypeEgress))
	ExpectWithOffset(1, selecting[0].Spec.Egress).To(BeEmpty(), "no egress rule: all egress is denied")
}

// graderVolume is the pod's volume holding a ConfigMap named cm, if any.
func graderVolume(job *batchv1.Job, cm string) *corev1.Volume {
	for i, v := range job.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == cm {
			return &job.Spec.Template.Spec.Volumes[i]
		}
	}
	return nil
}

var _ = Describe("SWE-bench instances imported by sweep swebench import", func() {
	var (
		ns string
		k  kubelet
	)
	withManager(&ns, &k)

	It("run through the controllers: the grader ConfigMap reaches only the verifier, neither stage has network, and an error instance scores 0", func() {
		applyImport(ns)
		resolved, failed := campaign.TrialName("swebench", "calc__calc-1", 1), campaign.TrialName("swebench", "calc__calc-2", 1)
		By("the trial snapshots the instance's task: its eval image, the swebench grader and its ConfigMap, its own patch Secret")
		t := k.trial(resolved)
		Expect(t.Spec.Agent.Patch.SecretName).To(Equal("swebench-calc--calc-1-patch"))
		patch := func(trial, task string) string {
			secret := &corev1.Secret{}
			ExpectWithOffset(1, k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: k.trial(trial).Spec.Agent.Patch.SecretName}, secret)).To(Succeed())
			ExpectWithOffset(1, secret.Data).To(HaveLen(1), "one prediction per Secret")
			return string(secret.Data[task])
		}
		Expect(t.Spec.Images.Agent).To(Equal("mirror.example/sweb.eval.x86_64.calc_1776_calc-1:v1"))
		Expect(t.Spec.Images.Verifier).To(Equal(t.Spec.Images.Agent))
		Expect(t.Spec.Grader).To(Equal(podcontract.GraderSWEBench))
		Expect(t.Spec.GraderConfigMap).To(Equal("swebench-calc--calc-1-grader"))
		Expect(t.Spec.BugsTotal).To(Equal(int32(1)))

		By("the agent Job does not mount the grader ConfigMap")
		agentJob := k.job(resolved, agentStage, 1)
		Expect(graderVolume(agentJob, "swebench-calc--calc-1-grader")).To(BeNil())
		Expect(agentJob.Spec.Template.Spec.Volumes).To(ContainElement(HaveField("Secret.SecretName", "swebench-calc--calc-1-patch")), "the agent reads the instance's own patch Secret")
		for _, c := range agentJob.Spec.Template.Spec.Containers {
			Expect(c.VolumeMounts).NotTo(ContainElement(HaveField("MountPath", podcontract.GraderConfigDir)))
		}
		By("the agent has no network: the import sets network_mode = \"no-network\"")
		expectNoEgress(ns, resolved, agentStage, agentJob)
		k.runStage(resolved, agentStage, 1, agentSummary(patch(resolved, "calc__calc-1"), ""))

		By("the verifier Job mounts it at /sweep/grader, and its stage spec names the grader")
		verifyJob := k.job(resolved, verifierStage, 1)
		vol := graderVolume(verifyJob, "swebench-calc--calc-1-grader")
		Expect(vol).NotTo(BeNil())
		By("the verifier, which runs the model's code, has no network either")
		expectNoEgress(ns, resolved, verifierStage, verifyJob)
		verifier := verifyJob.Spec.Template.Spec.Containers[0]
		Expect(verifier.Image).To(Equal(t.Spec.Images.Verifier))
		Expect(verifier.VolumeMounts).To(ContainElement(And(HaveField("Name", vol.Name), HaveField("MountPath", podcontract.GraderConfigDir), HaveField("ReadOnly", true))))
		spec := k.stageSpec(resolved, verifierStage)
		Expect(spec.Verifier.Grader).To(Equal(podcontract.GraderSWEBench))
		Expect(spec.Verifier.GraderDir).To(Equal(podcontract.GraderConfigDir))
		Expect(spec.Workdir).To(Equal(swebench.DefaultWorkdir))
		Expect(spec.Artifacts).To(ContainElement(podcontract.Artifact{Path: podcontract.PatchPath, Key: podcontract.PatchKey}))
		report := []byte(`{"calc__calc-1": {"resolved": true}}`)
		withReport := verifierSummary(swebenchRewards(true, false))
		out := podcontract.NewOutput(podcontract.RecordSWEBenchReport, report, int64(len(report)))
		out.Inline = report
		withReport.Outputs = append(withReport.Outputs, out)
		difference := "hardened verdict error (invalid run: the exit code says the tests failed), official verdict resolved"
		evalJSON, err := json.Marshal(swebench.GraderEval{Schema: swebench.GraderEvalSchema, GradingVersion: swebench.V5, VerdictDifference: difference})
		Expect(err).NotTo(HaveOccurred())
		evalOut := podcontract.NewOutput(podcontract.RecordEval, evalJSON, int64(len(evalJSON)))
		evalOut.Inline = evalJSON
		withReport.Outputs = append(withReport.Outputs, evalOut)
		k.runStage(resolved, verifierStage, 1, withReport)

		By("the second instance's patch did not apply: an error instance, measured as unresolved")
		k.runStage(failed, agentStage, 1, agentSummary(patch(failed, "calc__calc-2"), reasons.PatchApplyFailed))
		k.runStage(failed, verifierStage, 1, verifierSummary(swebenchRewards(false, true)))

		Eventually(getRun(ns, "swebench"), timeout, poll).Should(Satisfy(completed))
		run := getRun(ns, "swebench")()
		Expect(run.Status.Progress).To(Equal("2/2"))
		Expect(run.Status.BugsTotal).To(Equal(int32(2)))
		Expect(run.Status.BugsResolved).To(Equal("1.00"))
		Expect(run.Status.Score).To(Equal("0.5000"))
		Expect(run.Status.EvaluationFailures).To(Equal(int32(0)))
		ok := k.trial(resolved)
		Expect(ok.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(ok.Status.Score).To(Equal("1.0000"))
		Expect(ok.Status.BugsResolved).To(Equal(int32(1)))
		results := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.ResultsSecretName(resolved)}, results)).To(Succeed())
		Expect(results.Data[podcontract.RecordSWEBenchReport]).To(Equal(report), "the instance's report.json is kept for the run report")
		c := meta.FindStatusCondition(ok.Status.Conditions, evalv1.TrialOfficialVerdictAgrees)
		Expect(c).NotTo(BeNil(), "a SWE-bench trial says whether its two verdicts agree")
		Expect(c.Status).To(Equal(metav1.ConditionFalse))
		Expect(c.Reason).To(Equal(reasons.VerdictsDiffer))
		Expect(c.Message).To(Equal(difference))
		bad := k.trial(failed)
		Expect(bad.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(bad.Status.Score).To(Equal("0.0000"))
		Expect(bad.Status.GraderFailed).To(BeFalse())
		Expect(bad.Status.Rewards).To(HaveKeyWithValue(swebench.RewardError, "1.0000"))
		Expect(meta.FindStatusCondition(bad.Status.Conditions, evalv1.TrialOfficialVerdictAgrees)).To(BeNil(), "no eval.json, no claim about the verdicts")
	})
})

// stageSpec reads the stage spec a trial's first Job of stage carries to its Pod.
func (k kubelet) stageSpec(trial string, stage podcontract.Stage) podcontract.StageSpec {
	job := k.job(trial, stage, 1)
	var spec podcontract.StageSpec
	ExpectWithOffset(1, json.Unmarshal([]byte(job.Spec.Template.Annotations[podbuild.StageSpecAnnotation]), &spec)).To(Succeed())
	return spec
}
