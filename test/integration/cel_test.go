package integration

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

var _ = Describe("SweepRun validation by the API server", func() {
	var ns string
	BeforeEach(func() { ns = newNamespace() })

	DescribeTable("rejects an invalid SweepRun on create",
		func(mutate func(*evalv1.SweepRun), wantMessage string) {
			run := makeRun(ns, "bad").obj()
			mutate(run)
			err := k8s.Create(context.Background(), run)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(wantMessage))
		},
		Entry("two agent kinds", func(r *evalv1.SweepRun) { r.Spec.Agent.Nop = &evalv1.NopAgent{} },
			"spec.agent: Invalid value: set exactly one agent kind: patch, oracle, nop or external"),
		Entry("no agent kind", func(r *evalv1.SweepRun) { r.Spec.Agent = evalv1.AgentSpec{} },
			"set exactly one agent kind"),
		Entry("no task selection", func(r *evalv1.SweepRun) { r.Spec.Tasks = evalv1.TaskSelection{} },
			"spec.tasks: Invalid value: select tasks by names, by selector, or both"),
		Entry("zero attempts", func(r *evalv1.SweepRun) { r.Spec.Attempts = 0 },
			"spec.attempts: Invalid value: 0: spec.attempts in body should be greater than or equal to 1"),
		Entry("parallelism too large", func(r *evalv1.SweepRun) { r.Spec.Parallelism = 20000 },
			"spec.parallelism: Invalid value: 20000: spec.parallelism in body should be less than or equal to 10000"),
		Entry("malformed timeout multiplier", func(r *evalv1.SweepRun) {
			r.Spec.Timeouts = &evalv1.TimeoutPolicy{AgentMultiplier: "fast"}
		}, "spec.timeouts.agentMultiplier: Invalid value: \"fast\""),
		Entry("scaled resources without a scale", func(r *evalv1.SweepRun) {
			r.Spec.Resources = &evalv1.ResourcePolicy{Mode: evalv1.ResourcesScaled}
		}, "mode Scaled needs scale"),
		Entry("runAsNonRoot with uid 0", func(r *evalv1.SweepRun) {
			r.Spec.PodSecurity = &evalv1.PodSecurity{RunAsUser: ptr.To[int64](0), RunAsNonRoot: ptr.To(true)}
		}, "spec.podSecurity: Invalid value: runAsNonRoot is true but runAsUser is 0"),
		Entry("SYS_ADMIN added", func(r *evalv1.SweepRun) {
			r.Spec.PodSecurity = &evalv1.PodSecurity{AddCapabilities: []string{"NET_RAW", "SYS_ADMIN"}}
		}, "spec.podSecurity.addCapabilities: Invalid value: addCapabilities cannot hold ALL or SYS_ADMIN"),
		Entry("ALL added", func(r *evalv1.SweepRun) {
			r.Spec.PodSecurity = &evalv1.PodSecurity{AddCapabilities: []string{"ALL"}}
		}, "addCapabilities cannot hold ALL or SYS_ADMIN"),
		Entry("a lower-case capability", func(r *evalv1.SweepRun) {
			r.Spec.PodSecurity = &evalv1.PodSecurity{AddCapabilities: []string{"net_raw"}}
		}, "spec.podSecurity.addCapabilities[0]: Invalid value: \"net_raw\""),
		Entry("a negative uid", func(r *evalv1.SweepRun) {
			r.Spec.PodSecurity = &evalv1.PodSecurity{RunAsUser: ptr.To[int64](-1)}
		}, "spec.podSecurity.runAsUser: Invalid value: -1"),
		Entry("too many infrastructure retries", func(r *evalv1.SweepRun) { r.Spec.RetryPolicy.InfrastructureRetries = 50 },
			"spec.retryPolicy.infrastructureRetries: Invalid value: 50"),
	)

	It("keeps the campaign fields immutable and lets parallelism and suspend change", func() {
		run := makeRun(ns, "fixed").create()
		ctx := context.Background()

		changed := run.DeepCopy()
		changed.Spec.Tasks = evalv1.TaskSelection{Names: []string{"other"}}
		err := k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.tasks is immutable: create a new SweepRun to change the task selection"))

		changed = run.DeepCopy()
		changed.Spec.Tasks.Exclusions = &evalv1.TaskExclusions{ConfigMapName: "excl"}
		err = k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.tasks is immutable"), "an exclusion list cannot be added to a campaign")

		changed = run.DeepCopy()
		changed.Spec.Agent = evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}
		err = k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.agent is immutable"))

		changed = run.DeepCopy()
		changed.Spec.Attempts = 3
		err = k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.attempts is immutable"))

		changed = run.DeepCopy()
		changed.Spec.Timeouts = &evalv1.TimeoutPolicy{AgentMultiplier: "2"}
		err = k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.timeouts is immutable"))

		changed = run.DeepCopy()
		changed.Spec.PodSecurity = &evalv1.PodSecurity{RunAsUser: ptr.To[int64](1000)}
		err = k8s.Update(ctx, changed)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.podSecurity is immutable: create a new SweepRun to change the pod security"))

		changed = run.DeepCopy()
		changed.Spec.Parallelism = 3
		changed.Spec.Suspend = true
		Expect(k8s.Update(ctx, changed)).To(Succeed())
	})

	It("keeps a TaskTrial's spec immutable", func() {
		trial := &evalv1.TaskTrial{
			ObjectMeta: metav1.ObjectMeta{Name: "lone", Namespace: ns},
			Spec: evalv1.TaskTrialSpec{Task: "calc", Attempt: 1, Definition: "name = \"calc\"",
				Images: evalv1.TrialImages{Agent: "a", Verifier: "v"}, Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}},
		}
		Expect(k8s.Create(context.Background(), trial)).To(Succeed())
		trial.Spec.Attempt = 2
		err := k8s.Update(context.Background(), trial)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("TaskTrial spec is immutable"))
	})
})
