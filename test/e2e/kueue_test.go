//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// The names hack/kueue.sh gives its queue objects.
const (
	kueueLocalQueue    = "sweep"
	kueueAgentClass    = "sweep-agent"
	kueueVerifierClass = "sweep-verifier"
	kueueUrgentClass   = "sweep-urgent"
)

// queuedRun is a campaign of the sample tasks in the LocalQueue of hack/kueue.sh, whose
// ClusterQueue admits one Pod at a time, with verifiers above agents.
func queuedRun(ns, name string, agent evalv1.AgentSpec) *evalv1.SweepRun {
	run := newRun(ns, name, agent)
	run.Spec.Parallelism = int32(len(sampleTasks))
	run.Spec.QueueName = kueueLocalQueue
	run.Spec.WorkloadPriorityClasses = &evalv1.WorkloadPriorityClasses{Agent: kueueAgentClass, Verifier: kueueVerifierClass}
	return run
}

// queueFigures is what polling a queued campaign saw.
type queueFigures struct {
	maxQueued int32
	// waitMessage is a trial's Admitted message while it waited.
	waitMessage string
}

// followQueued polls a campaign to its end, keeping the most trials its status counted as
// queued and a waiting trial's message.
func followQueued(ns, name string) (*evalv1.SweepRun, queueFigures) {
	var fig queueFigures
	sr := &evalv1.SweepRun{}
	EventuallyWithOffset(1, func() *metav1.Time {
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sr)).To(Succeed())
		fig.maxQueued = max(fig.maxQueued, sr.Status.Trials.Queued)
		for _, t := range trialsOf(ns, name) {
			if c := meta.FindStatusCondition(t.Status.Conditions, evalv1.TrialAdmitted); c != nil && c.Status == metav1.ConditionFalse && fig.waitMessage == "" {
				fig.waitMessage = c.Message
			}
		}
		return sr.Status.CompletionTime
	}, 10*time.Minute, time.Second).ShouldNot(BeNil(), "campaign %s/%s did not finish", ns, name)
	return sr, fig
}

// expectScoredWithoutRetries: every trial was graded on its first Jobs, nothing failed.
func expectScoredWithoutRetries(sr *evalv1.SweepRun, trials []evalv1.TaskTrial) (evictions int32) {
	ExpectWithOffset(1, sr.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
	ExpectWithOffset(1, sr.Status.GradedTrials).To(Equal(int32(len(trials))))
	ExpectWithOffset(1, sr.Status.EvaluationFailures).To(BeZero())
	ExpectWithOffset(1, sr.Status.Trials.Error).To(BeZero())
	ExpectWithOffset(1, sr.Status.Trials.Queued).To(BeZero())
	for _, t := range trials {
		ExpectWithOffset(1, t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
		ExpectWithOffset(1, t.Status.InfrastructureRetries).To(BeZero(), "%s: a queue wait or eviction used an infrastructure retry", t.Name)
		for _, ss := range []*evalv1.StageStatus{t.Status.Agent, t.Status.Verifier} {
			ExpectWithOffset(1, ss.Run).To(Equal(int32(1)), "%s: job %s was recreated", t.Name, ss.JobName)
			evictions += ss.Evictions
		}
	}
	return evictions
}

// Serial: Kueue's webhooks intercept every Job while it is installed and removed, so no other
// spec's Jobs are created meanwhile.
var _ = Describe("Kueue", Ordered, Serial, func() {
	BeforeAll(func() {
		start := time.Now()
		hackScript("kueue.sh", "up")
		AddReportEntry("kueue install", time.Since(start).Round(time.Second).String())
		DeferCleanup(func() { hackScript("kueue.sh", "down") })
	})

	It("runs a campaign under a quota of one Pod with parallelism 3: every trial scored, queue waits shown and never failures", func() {
		ns := catalogueNamespace("kueue")
		hackScript("kueue.sh", "queue", ns)
		start := time.Now()
		Expect(k8s.Create(context.Background(), queuedRun(ns, "queued", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}))).To(Succeed())

		By("the Jobs carry the queue and each stage's priority class")
		Eventually(func() []batchv1.Job {
			jobs := &batchv1.JobList{}
			Expect(k8s.List(context.Background(), jobs, client.InNamespace(ns), client.HasLabels{evalv1.LabelTrial})).To(Succeed())
			return jobs.Items
		}, 2*time.Minute, time.Second).Should(ContainElement(HaveField("ObjectMeta.Labels", And(
			HaveKeyWithValue(podbuild.QueueLabel, kueueLocalQueue), HaveKeyWithValue(podbuild.PriorityClassLabel, kueueAgentClass)))))

		watched := make(chan string, 1)
		go func() {
			defer GinkgoRecover()
			out, stderr, err := sweepCLI("--kubeconfig", os.Getenv("KUBECONFIG"), "-n", ns, "watch", "queued")
			Expect(err).NotTo(HaveOccurred(), "sweep watch: %s", stderr)
			watched <- out
		}()
		sr, fig := followQueued(ns, "queued")
		took := time.Since(start)
		trials := trialsOf(ns, "queued")
		reportTrialTimes(trials)
		Expect(sr.Status.Score).To(Equal("1.0000"))
		evictions := expectScoredWithoutRetries(sr, trials)

		By("the status and sweep watch showed trials waiting for admission")
		Expect(fig.maxQueued).To(BeNumerically(">=", 1), "status.trials.queued never counted a waiting trial")
		Expect(fig.waitMessage).To(ContainSubstring("LocalQueue " + kueueLocalQueue))
		var out string
		Eventually(watched, time.Minute).Should(Receive(&out))
		Expect(out).To(MatchRegexp(`running \(\d+ queued\)`))
		AddReportEntry("kueue campaign", fmt.Sprintf("%d trials, quota 1 Pod, parallelism %d: %s; most queued at once %d; evictions (verifiers preempting agents) %d",
			len(trials), sr.Spec.Parallelism, took.Round(time.Second), fig.maxQueued, evictions))
	})

	It("lets a higher-priority workload preempt a running agent; Kueue admits the same Job again and the trial is scored", func() {
		ns := catalogueNamespace("kueue-preempt")
		hackScript("kueue.sh", "queue", ns)
		hook, err := os.ReadFile(filepath.Join(root, ".cache", "images", "sweep-hook.ref"))
		Expect(err).NotTo(HaveOccurred())
		// An agent that works for a while and changes nothing: scored (0), long enough to be
		// preempted while it runs.
		agent := evalv1.AgentSpec{External: &evalv1.ExternalAgent{Image: strings.TrimSpace(string(hook)), BundlePath: "/sweep-hook",
			Command: []string{"sh", "-c", "echo kueue-e2e: working; sleep 15"}}}
		run := queuedRun(ns, "preempted", agent)
		run.Spec.Tasks.Names = []string{"sweep-samples__textkit"}
		start := time.Now()
		Expect(k8s.Create(context.Background(), run)).To(Succeed())

		By("the agent runs, admitted")
		var trial string
		Eventually(func() bool {
			ts := trialsOf(ns, "preempted")
			if len(ts) != 1 {
				return false
			}
			trial = ts[0].Name
			return stageRunning(ns, trial, podcontract.StageAgent)
		}, 3*time.Minute, 500*time.Millisecond).Should(BeTrue())
		agentJob := &batchv1.Job{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: podbuild.JobName(trial, podcontract.StageAgent, 1)}, agentJob)).To(Succeed())

		By("an urgent Job in the same queue preempts it: the trial waits again, nothing failed")
		python, err := os.ReadFile(filepath.Join(root, ".cache", "images", "python-base.ref"))
		Expect(err).NotTo(HaveOccurred())
		urgent := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "urgent", Namespace: ns, Labels: map[string]string{
				podbuild.QueueLabel: kueueLocalQueue, podbuild.PriorityClassLabel: kueueUrgentClass}},
			Spec: batchv1.JobSpec{Suspend: ptr.To(true), BackoffLimit: ptr.To[int32](0), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy:                corev1.RestartPolicyNever,
				AutomountServiceAccountToken: ptr.To(false),
				Containers: []corev1.Container{{Name: "urgent", Image: strings.TrimSpace(string(python)), ImagePullPolicy: corev1.PullIfNotPresent,
					Command: []string{"python3", "-c", "import time; time.sleep(5)"},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("32Mi")}}}},
			}}},
		}
		Expect(k8s.Create(context.Background(), urgent)).To(Succeed())
		Eventually(func() *metav1.Condition {
			t := &evalv1.TaskTrial{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: trial}, t)).To(Succeed())
			return meta.FindStatusCondition(t.Status.Conditions, evalv1.TrialAdmitted)
		}, 2*time.Minute, 250*time.Millisecond).Should(And(Not(BeNil()), HaveField("Reason", reasons.QueueEvicted)))
		preempted := time.Since(start)

		By("the urgent Job runs and ends; Kueue admits the same agent Job again")
		Eventually(func() bool {
			j := &batchv1.Job{}
			Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(urgent), j)).To(Succeed())
			return j.Status.Succeeded == 1
		}, 2*time.Minute, time.Second).Should(BeTrue())
		Eventually(func() types.UID {
			j := &batchv1.Job{}
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(agentJob), j); err != nil || j.Spec.Suspend == nil || *j.Spec.Suspend {
				return ""
			}
			return j.UID
		}, 2*time.Minute, 500*time.Millisecond).Should(Equal(agentJob.UID))

		sr, _ := followQueued(ns, "preempted")
		trials := trialsOf(ns, "preempted")
		reportTrialTimes(trials)
		evictions := expectScoredWithoutRetries(sr, trials)
		Expect(trials[0].Status.Agent.Evictions).To(BeNumerically(">=", 1))
		Expect(sr.Status.Score).To(Equal("0.0000"), "the agent changed nothing")
		AddReportEntry("kueue preemption", fmt.Sprintf("agent preempted after %s, trial scored after %s, evictions %d",
			preempted.Round(time.Second), time.Since(start).Round(time.Second), evictions))
	})
})
