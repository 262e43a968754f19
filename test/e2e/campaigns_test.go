//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// sampleTasks maps task names to their directories under tasks/.
var sampleTasks = map[string]string{
	"sweep-samples__calc-engine": "calc-engine",
	"sweep-samples__textkit":     "textkit",
	"sweep-samples__semverlite":  "semverlite",
}

func taskNames() []string {
	var out []string
	for name := range sampleTasks {
		out = append(out, name)
	}
	return out
}

// copyTextkit adds the task name to the catalogue in ns: textkit's task with agentImage as its
// agent image, and returns textkit's own agent image.
func copyTextkit(ns, name, agentImage string) (textkitImage string) {
	cms := &corev1.ConfigMapList{}
	ExpectWithOffset(1, k8s.List(context.Background(), cms, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelTask: "sweep-samples__textkit"})).To(Succeed())
	ExpectWithOffset(1, cms.Items).To(HaveLen(1))
	task := cms.Items[0].DeepCopy()
	textkitImage = task.Annotations[evalv1.AnnotationAgentImage]
	ExpectWithOffset(1, textkitImage).NotTo(BeEmpty())
	task.ObjectMeta = metav1.ObjectMeta{Name: name, Namespace: ns,
		Labels: map[string]string{evalv1.LabelTask: name}, Annotations: task.Annotations}
	task.Annotations[evalv1.AnnotationAgentImage] = agentImage
	ExpectWithOffset(1, k8s.Create(context.Background(), task)).To(Succeed())
	return textkitImage
}

func newRun(ns, name string, agent evalv1.AgentSpec) *evalv1.SweepRun {
	return &evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: evalv1.SweepRunSpec{
			Tasks:       evalv1.TaskSelection{Names: taskNames()},
			Agent:       agent,
			Attempts:    1,
			Parallelism: 2,
			Resources: &evalv1.ResourcePolicy{Mode: evalv1.ResourcesOverride, Override: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			}},
		},
	}
}

// patchSecret holds one fixture patch per sample task, keyed by task name.
func patchSecret(ns, fixture string) {
	data := map[string][]byte{}
	for name, dir := range sampleTasks {
		b, err := os.ReadFile(filepath.Join(root, "tasks", dir, "fixtures", fixture))
		Expect(err).NotTo(HaveOccurred())
		data[name] = b
	}
	Expect(k8s.Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "patches", Namespace: ns}, Data: data})).To(Succeed())
}

// expected reads the rewards the task's fixture must score (tasks/<dir>/fixtures/expected.json).
func expected(dir, fixture string) map[string]float64 {
	b, err := os.ReadFile(filepath.Join(root, "tasks", dir, "fixtures", "expected.json"))
	Expect(err).NotTo(HaveOccurred())
	all := map[string]map[string]float64{}
	Expect(json.Unmarshal(b, &all)).To(Succeed())
	return all[fixture]
}

func rewards(t evalv1.TaskTrial) map[string]float64 {
	out := map[string]float64{}
	for k, v := range t.Status.Rewards {
		f, err := strconv.ParseFloat(v, 64)
		Expect(err).NotTo(HaveOccurred())
		out[k] = f
	}
	return out
}

var _ = Describe("sample campaigns", func() {
	It("scores 1 with the oracle agent, with locked-down Pods and egress policies", func() {
		ns := catalogueNamespace("oracle")
		Expect(k8s.Create(context.Background(), newRun(ns, "oracle", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}))).To(Succeed())

		By("no trial Pod mounts a service-account token")
		Eventually(func() []corev1.Pod {
			pods := &corev1.PodList{}
			Expect(k8s.List(context.Background(), pods, client.InNamespace(ns), client.HasLabels{evalv1.LabelTrial})).To(Succeed())
			return pods.Items
		}, 2*time.Minute, 200*time.Millisecond).ShouldNot(BeEmpty())
		pods := &corev1.PodList{}
		Expect(k8s.List(context.Background(), pods, client.InNamespace(ns), client.HasLabels{evalv1.LabelTrial})).To(Succeed())
		for _, p := range pods.Items {
			Expect(p.Spec.AutomountServiceAccountToken).To(HaveValue(BeFalse()), p.Name)
			for _, v := range p.Spec.Volumes {
				Expect(v.Projected).To(BeNil(), "pod %s has a projected volume %s", p.Name, v.Name)
			}
			Expect(p.Spec.SecurityContext.SeccompProfile.Type).To(Equal(corev1.SeccompProfileTypeRuntimeDefault), p.Name)
			for _, c := range append(p.Spec.InitContainers, p.Spec.Containers...) {
				for _, m := range c.VolumeMounts {
					Expect(m.MountPath).NotTo(HavePrefix("/var/run/secrets/kubernetes.io"), "pod %s container %s", p.Name, c.Name)
				}
				Expect(c.SecurityContext.AllowPrivilegeEscalation).To(HaveValue(BeFalse()), "pod %s container %s", p.Name, c.Name)
				Expect(c.SecurityContext.Capabilities.Drop).To(ConsistOf(corev1.Capability("ALL")), "pod %s container %s", p.Name, c.Name)
			}
		}

		sr := waitFinished(ns, "oracle")
		trials := trialsOf(ns, "oracle")
		reportTrialTimes(trials)
		Expect(sr.Status.Score).To(Equal("1.0000"))
		Expect(sr.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(trials).To(HaveLen(len(sampleTasks)))

		By("no-network stages get their campaign's NetworkPolicy: one, owned by the SweepRun, selecting both stages' Pods")
		for _, t := range trials {
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
		}
		policies := &networkingv1.NetworkPolicyList{}
		Expect(k8s.List(context.Background(), policies, client.InNamespace(ns), client.HasLabels{evalv1.LabelEgress})).To(Succeed())
		Expect(policies.Items).To(HaveLen(1), "one policy for the campaign's no-network stages, not one a trial")
		np := policies.Items[0]
		Expect(metav1.GetControllerOf(&np).Name).To(Equal("oracle"))
		Expect(np.Spec.PolicyTypes).To(ConsistOf(networkingv1.PolicyTypeEgress))
		Expect(np.Spec.Egress).To(BeEmpty())
		noNetwork := podbuild.EgressClass(taskdef.Stage{NetworkMode: taskdef.NetworkNone})
		Expect(np.Spec.PodSelector.MatchLabels).To(Equal(map[string]string{evalv1.LabelSweepRun: "oracle", evalv1.LabelEgress: noNetwork}))
	})

	It("scores 0 with the nop agent", func() {
		ns := catalogueNamespace("nop")
		Expect(k8s.Create(context.Background(), newRun(ns, "nop", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}))).To(Succeed())
		sr := waitFinished(ns, "nop")
		reportTrialTimes(trialsOf(ns, "nop"))
		Expect(sr.Status.Score).To(Equal("0.0000"))
		Expect(sr.Status.GradedTrials).To(Equal(int32(len(sampleTasks))))
		for _, t := range trialsOf(ns, "nop") {
			Expect(t.Status.Rewards).To(HaveKeyWithValue("visible_ok", "1.0000"), t.Name)
		}
	})

	DescribeTable("grades a fixture patch to the rewards it must score",
		func(fixture string, wantScore string) {
			ns := catalogueNamespace(strings.TrimSuffix(fixture, ".patch"))
			patchSecret(ns, fixture)
			Expect(k8s.Create(context.Background(), newRun(ns, "fixture", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}}))).To(Succeed())
			sr := waitFinished(ns, "fixture")
			trials := trialsOf(ns, "fixture")
			reportTrialTimes(trials)
			Expect(trials).To(HaveLen(len(sampleTasks)))
			for _, t := range trials {
				Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
				want := expected(sampleTasks[t.Spec.Task], fixture)
				got := rewards(t)
				for k, v := range want {
					Expect(got).To(HaveKeyWithValue(k, BeNumerically("~", v, 1e-4)), "%s reward %s", t.Spec.Task, k)
				}
			}
			Expect(sr.Status.Score).To(Equal(wantScore))
		},
		Entry("a partial fix scores the fraction it fixes: (2+3+1)/12", "partial.patch", "0.5000"),
		Entry("a fix that breaks a visible test scores 0 with regressions", "regress.patch", "0.0000"),
	)
})

var _ = Describe("agents that misbehave", func() {
	// probe is an external agent run in the task container from the sweep-hook image's bundle.
	probe := func(script string) evalv1.AgentSpec {
		hook, err := os.ReadFile(filepath.Join(root, ".cache", "images", "sweep-hook.ref"))
		Expect(err).NotTo(HaveOccurred())
		return evalv1.AgentSpec{External: &evalv1.ExternalAgent{
			Image: strings.TrimSpace(string(hook)), BundlePath: "/sweep-hook", Command: []string{"sh", "-c", script},
		}}
	}

	It("cannot see the hidden tests or the solutions from the agent Pod", func() {
		ns := catalogueNamespace("probe")
		script := `: > found.txt
for p in /tests /sweep/solution /sweep/grader /sweep/input /solution; do [ -e "$p" ] && echo "$p" >> found.txt; done
find / -xdev \( -name fix.patch -o -name bundle.json -o -name base_tests.json -o -name solve.sh \) 2>/dev/null >> found.txt
true`
		Expect(k8s.Create(context.Background(), newRun(ns, "probe", probe(script)))).To(Succeed())
		waitFinished(ns, "probe")
		for _, t := range trialsOf(ns, "probe") {
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
			secret := &corev1.Secret{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: t.Status.Patch.SecretName}, secret)).To(Succeed())
			patch := string(secret.Data[podcontract.PatchKey])
			Expect(patch).To(ContainSubstring("found.txt"), "the probe's report is part of the agent's patch")
			Expect(patch).To(ContainSubstring("new file mode"))
			for _, line := range strings.Split(patch, "\n") {
				Expect(line).NotTo(HavePrefix("+/"), "the agent found %s", strings.TrimPrefix(line, "+"))
			}
		}
	})

	It("runs the agent with no new privileges, seccomp and only the default capabilities", func() {
		ns := catalogueNamespace("caps")
		sr := newRun(ns, "caps", probe(`grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status > security.txt`))
		sr.Spec.Tasks.Names = []string{"sweep-samples__textkit"}
		Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		waitFinished(ns, "caps")
		trials := trialsOf(ns, "caps")
		Expect(trials).To(HaveLen(1))
		secret := &corev1.Secret{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: trials[0].Status.Patch.SecretName}, secret)).To(Succeed())
		patch := string(secret.Data[podcontract.PatchKey])
		// 0xeb: CHOWN(0) DAC_OVERRIDE(1) FOWNER(3) KILL(5) SETGID(6) SETUID(7), podbuild.DefaultMainCapabilities;
		// Seccomp 2 is filter mode (RuntimeDefault).
		for _, line := range []string{"+Uid:\t0\t0\t0\t0", "+CapEff:\t00000000000000eb", "+CapBnd:\t00000000000000eb", "+NoNewPrivs:\t1", "+Seccomp:\t2"} {
			Expect(patch).To(ContainSubstring(line), "security.txt in the agent's patch:\n%s", patch)
		}
	})

	It("verifies an agent that runs past its timeout", func() {
		ns := catalogueNamespace("timeout")
		sr := newRun(ns, "slow", probe(`echo "work in progress" > progress.txt; sleep 3600`))
		sr.Spec.Tasks.Names = []string{"sweep-samples__textkit"}
		sr.Spec.Timeouts = &evalv1.TimeoutPolicy{AgentMultiplier: "0.05"}
		Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		waitFinished(ns, "slow")
		trials := trialsOf(ns, "slow")
		reportTrialTimes(trials)
		Expect(trials).To(HaveLen(1))
		t := trials[0]
		Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		Expect(t.Status.Reason).To(Equal(reasons.AgentTimeout))
		Expect(t.Status.Patch.Bytes).To(BeNumerically(">", 0), "the work so far is collected")
		Expect(t.Status.Score).To(Equal("0.0000"))
		Expect(t.Status.Rewards).To(HaveKeyWithValue("agent_patch_applied", "1.0000"))
	})

	It("ends a trial whose image is missing as an infrastructure failure, not a score", func() {
		ns := catalogueNamespace("noimage")
		copyTextkit(ns, "missing-image", "localhost/sweep/no-such-image:v0")
		sr := newRun(ns, "noimage", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}})
		sr.Spec.Tasks.Names = []string{"missing-image"}
		sr.Spec.RetryPolicy = evalv1.RetryPolicy{InfrastructureRetries: 1, BackoffSeconds: 1}
		Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		done := waitFinished(ns, "noimage")
		trials := trialsOf(ns, "noimage")
		Expect(trials).To(HaveLen(1))
		Expect(trials[0].Status.Phase).To(Equal(evalv1.TrialError))
		Expect(trials[0].Status.Reason).To(Equal("ImagePullFailed"))
		Expect(trials[0].Status.Message).To(ContainSubstring("no-such-image"))
		Expect(trials[0].Status.InfrastructureRetries).To(Equal(int32(1)))
		Expect(trials[0].Status.Score).To(BeEmpty())
		Expect(done.Status.EvaluationFailures).To(Equal(int32(1)))
		Expect(done.Status.Phase).To(Equal(evalv1.SweepRunFailedPh))
	})
})

var _ = Describe("a campaign's guard", func() {
	It("suspends a campaign whose image is missing after its guard's number of failures instead of running every trial", func() {
		ns := catalogueNamespace("guard")
		copyTextkit(ns, "missing-image", "localhost/sweep/no-such-image:v0")
		sr := newRun(ns, "guarded", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}})
		sr.Spec.Tasks.Names = []string{"missing-image"}
		sr.Spec.Attempts, sr.Spec.Parallelism = 6, 1
		sr.Spec.RetryPolicy = evalv1.RetryPolicy{InfrastructureRetries: 1, BackoffSeconds: 1}
		sr.Spec.Guard = &evalv1.GuardPolicy{InfrastructureFailures: ptr.To(int32(2))}
		Expect(k8s.Create(context.Background(), sr)).To(Succeed())
		Eventually(func(g Gomega) {
			run := &evalv1.SweepRun{}
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "guarded"}, run)).To(Succeed())
			g.Expect(run.Status.Guard.Holds()).To(BeTrue())
		}, 5*time.Minute, 2*time.Second).Should(Succeed(), "the guard did not suspend the campaign")
		run := &evalv1.SweepRun{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "guarded"}, run)).To(Succeed())
		Expect(run.Status.Phase).To(Equal(evalv1.SweepRunSuspend))
		Expect(run.Status.Guard.Reason).To(Equal(reasons.ImagePullFailed))
		Expect(meta.FindStatusCondition(run.Status.Conditions, evalv1.ConditionStalled).Reason).To(Equal(reasons.InfrastructureFailing))
		Consistently(func() int { return len(trialsOf(ns, "guarded")) }, 10*time.Second, time.Second).Should(Equal(2), "trials after the guard tripped")
		for _, t := range trialsOf(ns, "guarded") {
			Expect(t.Status.Phase).To(Equal(evalv1.TrialError), t.Name)
			Expect(t.Status.Reason).To(Equal(reasons.ImagePullFailed), t.Name)
		}

		By("sweep resume: the next attempt starts")
		stdout, stderr, err := sweepCLI("resume", "guarded", "-n", ns)
		Expect(err).NotTo(HaveOccurred(), "sweep resume: %s%s", stdout, stderr)
		Expect(stdout).To(ContainSubstring("sweeprun.eval.sweep.dev/guarded resume requested"))
		Eventually(func() int { return len(trialsOf(ns, "guarded")) }, 2*time.Minute, time.Second).Should(Equal(3))
	})
})
