//go:build e2e

package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/metrics"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

const (
	// lateTask is a copy of textkit whose agent image is not on the node when the campaign
	// starts: its trial fails on infrastructure, and is rerun once the image is there.
	lateTask  = "late-image"
	lateImage = "localhost/sweep/e2e-late-image:v1"
)

// nodeImages runs the node's ctr against its containerd, in the namespace the kubelet uses.
func nodeImages(args ...string) (string, error) {
	sock := filepath.Join(root, ".cache", "cluster", "node", "run", "containerd", "containerd.sock")
	out, err := exec.Command(filepath.Join(root, "bin", "k8s", "ctr"), append([]string{"--address", sock, "-n", "k8s.io", "images"}, args...)...).CombinedOutput()
	return string(out), err
}

// addLateTask adds lateTask to the catalogue in ns, and textkit's fixture patch under its name
// in the patches Secret.
func addLateTask(ns, fixture string) (textkitImage string) {
	textkitImage = copyTextkit(ns, lateTask, lateImage)
	patchSecret(ns, fixture)
	b, err := os.ReadFile(filepath.Join(root, "tasks", "textkit", "fixtures", fixture))
	Expect(err).NotTo(HaveOccurred())
	secret := &corev1.Secret{}
	Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "patches"}, secret)).To(Succeed())
	secret.Data[lateTask] = b
	Expect(k8s.Update(context.Background(), secret)).To(Succeed())
	return textkitImage
}

// waitReady is `kubectl wait --for=condition=Ready`, as a user or a GitOps tool waits.
func waitReady(ns, name string) *evalv1.SweepRun {
	run("-n", ns, "wait", "--for=condition=Ready", "sweeprun/"+name, "--timeout=8m")
	sr := &evalv1.SweepRun{}
	ExpectWithOffset(1, k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sr)).To(Succeed())
	return sr
}

// metricsToken is a token of a new ServiceAccount in ns, bound to role when role is set.
func metricsToken(ns, account, role string) string {
	ctx := context.Background()
	Expect(k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: account}})).To(Succeed())
	if role != "" {
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + account},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: account}},
		}
		Expect(k8s.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func() { _ = k8s.Delete(context.Background(), binding) })
	}
	return strings.TrimSpace(run("-n", ns, "create", "token", account))
}

// httpsGet GETs url with token as the bearer (none when empty); the release's manager serves
// a self-signed certificate.
func httpsGet(url, token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the manager's self-signed certificate
	}}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// scrapeMetrics GETs the release's /metrics over HTTPS through a port-forward to its Service
// (the host reaches the cluster only through the API server), with token as the bearer.
func scrapeMetrics(address, token string) (int, string) {
	var code int
	var body string
	EventuallyWithOffset(1, func() error {
		var err error
		code, body, err = httpsGet("https://"+address+"/metrics", token)
		return err
	}, time.Minute, time.Second).Should(Succeed())
	return code, body
}

var _ = Describe("operating a campaign with the Helm-installed operator", Serial, func() {
	It("installs, upgrades across a CRD change mid-campaign, serves its metrics, reruns its infrastructure failure in place, regrades it and uninstalls keeping the CRDs and results", func() {
		ctx := context.Background()
		chart := filepath.Join(root, "charts", "sweep-operator")
		_, _ = nodeImages("rm", lateImage)
		DeferCleanup(func() {
			By("restoring the kustomize-installed operator for the other specs")
			helmCmd(nil, "uninstall", helmRelease, "-n", helmNamespace, "--ignore-not-found", "--wait")
			// Waited for, so a rerun on a kept cluster can create it again.
			_ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: helmNamespace}})
			Eventually(func() bool {
				return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Name: helmNamespace}, &corev1.Namespace{}))
			}, 2*time.Minute, time.Second).Should(BeTrue(), "namespace %s is still there", helmNamespace)
			release := client.MatchingLabels{"app.kubernetes.io/instance": helmRelease}
			Expect(client.IgnoreNotFound(k8s.DeleteAllOf(ctx, &rbacv1.ClusterRoleBinding{}, release))).To(Succeed())
			Expect(client.IgnoreNotFound(k8s.DeleteAllOf(ctx, &rbacv1.ClusterRole{}, release))).To(Succeed())
			run("apply", "--server-side", "--force-conflicts", "-f", filepath.Join(chart, "crds"))
			run("-n", kustomizeNamespace, "scale", "deployment/"+kustomizeManager, "--replicas=1")
			run("-n", kustomizeNamespace, "rollout", "status", "deployment/"+kustomizeManager, "--timeout=3m")
			_, _ = nodeImages("rm", lateImage)
		})

		By("stopping the kustomize-installed manager, so only the release's reconciles")
		run("-n", kustomizeNamespace, "scale", "deployment/"+kustomizeManager, "--replicas=0")
		Eventually(func() []corev1.Pod { return managerPods(kustomizeNamespace, kustomizeManager) },
			2*time.Minute, time.Second).Should(BeEmpty())

		By("putting the previous chart's CRDs (no Ready column) into the cluster")
		// The cluster has CRDs already (config/default's), which `helm install` leaves as they
		// are: applying the previous chart's puts the cluster where a user of that chart is.
		previous := filepath.Join(GinkgoT().TempDir(), "sweep-operator")
		Expect(copyTree(chart, previous)).To(Succeed())
		crdFile := filepath.Join(previous, "crds", "eval.sweep.dev_sweepruns.yaml")
		b, err := os.ReadFile(crdFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring(readyColumn), "the SweepRun CRD changed: update readyColumn")
		Expect(os.WriteFile(crdFile, []byte(strings.Replace(string(b), readyColumn, "", 1)), 0o644)).To(Succeed())
		run("apply", "--server-side", "--force-conflicts", "-f", filepath.Join(previous, "crds"))
		Expect(printerColumns(sweepRunCRD)).NotTo(ContainSubstring("Ready"))

		By("helm install of the previous chart")
		// The local cluster has no storage provisioner, and its one store volume is the
		// kustomize-installed manager's (hack/deploy.sh): the release's store is an emptyDir.
		helmCmd(nil, append([]string{"install", helmRelease, previous, "-n", helmNamespace, "--create-namespace",
			"--wait", "--timeout", "3m", "--set", "store.persistence.enabled=false"}, imageValues()...)...)
		first := waitLeader(helmNamespace, helmManager, "")

		By("starting a campaign: a partial patch on every sample task and on one whose image is not on the node, one trial at a time")
		ns := catalogueNamespace("operate")
		textkitImage := addLateTask(ns, "partial.patch")
		sr := newRun(ns, "operate", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}})
		sr.Spec.Tasks.Names = append(taskNames(), lateTask)
		sr.Spec.Parallelism = 1
		sr.Spec.RetryPolicy = evalv1.RetryPolicy{InfrastructureRetries: 1, BackoffSeconds: 1}
		Expect(k8s.Create(ctx, sr)).To(Succeed())
		Eventually(func(g Gomega) {
			trials := trialsOf(ns, "operate")
			g.Expect(trials).NotTo(BeEmpty())
			g.Expect(trials[0].Status.StartTime).NotTo(BeNil())
		}, 2*time.Minute, time.Second).Should(Succeed(), "the campaign's first trial did not start")

		By("upgrading while it runs: the chart's CRDs first, as the docs say, then the release")
		kubectlIn(helmCmd(nil, "show", "crds", chart), "apply", "--server-side", "-f", "-")
		Expect(printerColumns(sweepRunCRD)).To(ContainSubstring("Ready"))
		// A resources change rolls the manager's Pod.
		helmCmd(nil, "upgrade", helmRelease, chart, "-n", helmNamespace, "--reuse-values",
			"--set", "resources.requests.cpu=150m", "--wait", "--timeout", "3m")
		oldPod := strings.SplitN(*first.Spec.HolderIdentity, "_", 2)[0]
		upgraded := waitLeader(helmNamespace, helmManager, oldPod)
		d := &appsv1.Deployment{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: helmNamespace, Name: helmManager}, d)).To(Succeed())
		Expect(d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String()).To(Equal("150m"))
		Expect(run("-n", ns, "get", "sweepruns")).To(ContainSubstring("READY"))

		By("kubectl wait --for=condition=Ready: every trial ran once, the missing image's as an infrastructure failure")
		done := waitReady(ns, "operate")
		trials := trialsOf(ns, "operate")
		reportTrialTimes(trials)
		Expect(done.Status.CompletionTime.After(upgraded.Spec.AcquireTime.Time)).To(BeTrue(),
			"the campaign finished before the upgraded manager led: nothing ran across the upgrade")
		// Graded trials make the campaign Succeeded; its Complete condition counts the failure.
		Expect(done.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(done.Status.EvaluationFailures).To(Equal(int32(1)))
		Expect(meta.FindStatusCondition(done.Status.Conditions, evalv1.SweepRunComplete).Message).To(HaveSuffix("(1 evaluation failures)"))
		Expect(trials).To(HaveLen(len(sampleTasks) + 1))
		byTask := map[string]evalv1.TaskTrial{}
		for _, t := range trials {
			Expect(t.Spec.Attempt).To(Equal(int32(1)), t.Name)
			byTask[t.Spec.Task] = t
			if t.Spec.Task == lateTask {
				Expect(t.Status.Phase).To(Equal(evalv1.TrialError), t.Name)
				Expect(t.Status.Reason).To(Equal(reasons.ImagePullFailed), t.Name)
				Expect(t.Status.Score).To(BeEmpty(), "an infrastructure failure is not a score")
				continue
			}
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
			Expect(t.Status.InfrastructureRetries).To(BeZero(), t.Name)
		}

		By("scraping /metrics over HTTPS: refused without a token and without the metrics-reader role, served with it")
		address := forwardPort(helmNamespace, "svc/"+helmManager+"-metrics", "8443")
		code, _ := scrapeMetrics(address, "")
		Expect(code).To(Equal(401))
		code, _ = scrapeMetrics(address, metricsToken(helmNamespace, "no-metrics-role", ""))
		Expect(code).To(Equal(403))
		code, body := scrapeMetrics(address, metricsToken(helmNamespace, "metrics-probe", helmRelease+"-metrics-reader"))
		Expect(code).To(Equal(200), body)
		byPhaseReason := map[string]int{}
		for _, t := range trials {
			byPhaseReason[fmt.Sprintf(`sweep_trials{namespace=%q,phase=%q,reason=%q}`, ns, t.Status.Phase, metrics.ReasonLabel(t.Status.Reason))]++
		}
		Expect(byPhaseReason).To(HaveKeyWithValue(fmt.Sprintf(`sweep_trials{namespace=%q,phase="Error",reason="ImagePullFailed"}`, ns), 1))
		for series, n := range byPhaseReason {
			Expect(body).To(ContainSubstring(fmt.Sprintf("%s %d\n", series, n)))
		}
		score, err := strconv.ParseFloat(done.Status.Score, 64)
		Expect(err).NotTo(HaveOccurred(), "status.score %q", done.Status.Score)
		Expect(body).To(ContainSubstring(fmt.Sprintf(`sweep_sweeprun_score{name="operate",namespace=%q} %s`+"\n", ns, strconv.FormatFloat(score, 'g', -1, 64))))
		Expect(body).To(ContainSubstring("sweep_trial_duration_seconds_count"))

		By("the image reaches the node; sweep retry --watch reruns the failed attempt in place")
		out, err := nodeImages("tag", textkitImage, lateImage)
		Expect(err).NotTo(HaveOccurred(), "ctr images tag: %s", out)
		stdout, stderr, err := sweepCLI("retry", "operate", "-n", ns, "--watch")
		Expect(err).NotTo(HaveOccurred(), "sweep retry: %s%s", stdout, stderr)
		failed := byTask[lateTask]
		Expect(stdout).To(ContainSubstring(fmt.Sprintf("%s (task %s, attempt 1): Error ImagePullFailed", failed.Name, lateTask)))
		retried := waitReady(ns, "operate")
		Expect(retried.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(retried.Status.EvaluationFailures).To(BeZero())
		all := trialsOf(ns, "operate")
		Expect(all).To(HaveLen(len(sampleTasks)+2), "one rerun, the earlier record kept")
		final := campaign.FinalTrials(pointers(all))
		Expect(final).To(HaveLen(len(sampleTasks) + 1))
		for _, t := range final {
			Expect(t.Spec.Attempt).To(Equal(int32(1)), t.Name)
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
			if t.Spec.Task == lateTask {
				Expect(t.Name).To(Equal(campaign.NextRunName(&failed)))
				Expect(rewards(*t)).To(Equal(rewards(byTask["sweep-samples__textkit"])), "textkit's patch on textkit's image and tests")
			} else {
				Expect(t.Name).To(Equal(byTask[t.Spec.Task].Name), "a trial that did not fail is not rerun")
			}
		}
		kept := &evalv1.TaskTrial{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: failed.Name}, kept)).To(Succeed())
		Expect(kept.Labels).To(HaveKeyWithValue(evalv1.LabelSupersededBy, campaign.NextRunName(&failed)))
		Expect(kept.Status.Reason).To(Equal(reasons.ImagePullFailed))

		By("sweep regrade --watch grades every stored patch again in place, with no agent run, to the same score")
		originals := map[string]evalv1.TaskTrial{}
		for _, t := range final {
			Expect(t.Status.Patch).NotTo(BeNil(), "%s stored no artifacts", t.Name)
			originals[t.Name] = *t
		}
		stdout, stderr, err = sweepCLI("regrade", "operate", "-n", ns, "--watch")
		Expect(err).NotTo(HaveOccurred(), "sweep regrade: %s%s", stdout, stderr)
		Expect(stdout).To(ContainSubstring(fmt.Sprintf("sweeprun.eval.sweep.dev/operate regrade requested: %d trials' stored artifacts will be graded again", len(final))))
		regraded := waitReady(ns, "operate")
		Expect(regraded.Status.Regrade).NotTo(BeNil())
		Expect(regraded.Status.Regrade.Trials).To(Equal(int32(len(final))))
		Expect(regraded.Status.Score).To(Equal(retried.Status.Score), "the same patches under the same verifier images")
		Expect(regraded.Status.Progress).To(Equal(retried.Status.Progress), "each attempt counts once")
		for _, t := range campaign.FinalTrials(pointers(trialsOf(ns, "operate"))) {
			original, ok := originals[t.Spec.RegradeOf]
			Expect(ok).To(BeTrue(), "final trial %s regrades %q, not a final trial of before", t.Name, t.Spec.RegradeOf)
			Expect(t.Name).To(Equal(campaign.NextRunName(&original)))
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), t.Name)
			Expect(rewards(*t)).To(Equal(rewards(original)), t.Name)
			Expect(t.Status.Patch).To(Equal(original.Status.Patch), t.Name)
			Expect(meta.FindStatusCondition(t.Status.Conditions, evalv1.TrialAgentCompleted).Reason).To(Equal(reasons.Regraded), t.Name)
			Expect(t.Status.Provenance.RegradeOf).To(Equal(original.Name), t.Name)
			Expect(t.Status.Provenance.VerifierImageID).To(Equal(original.Status.Provenance.VerifierImageID), t.Name)
			Expect(t.Status.Provenance.AgentImageID).To(BeEmpty(), "%s ran no agent", t.Name)
			pods := &corev1.PodList{}
			Expect(k8s.List(ctx, pods, client.InNamespace(ns),
				client.MatchingLabels{evalv1.LabelTrial: t.Name, evalv1.LabelStage: string(podcontract.StageAgent)})).To(Succeed())
			Expect(pods.Items).To(BeEmpty(), "%s ran an agent Pod", t.Name)
		}
		for name, t := range originals {
			current := &evalv1.TaskTrial{}
			Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, current)).To(Succeed())
			Expect(current.Labels).To(HaveKeyWithValue(evalv1.LabelRegradedBy, campaign.NextRunName(&t)), "%s is kept, superseded", name)
		}

		By("helm uninstall keeps the CRDs, the campaign and every trial")
		helmCmd(nil, "uninstall", helmRelease, "-n", helmNamespace, "--wait")
		err = k8s.Get(ctx, client.ObjectKey{Namespace: helmNamespace, Name: helmManager}, &appsv1.Deployment{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the release's Deployment after uninstall: %v", err)
		roles := &rbacv1.ClusterRoleList{}
		Expect(k8s.List(ctx, roles, client.MatchingLabels{"app.kubernetes.io/instance": helmRelease})).To(Succeed())
		Expect(roles.Items).To(BeEmpty(), "the release's ClusterRoles outlived it")
		run("get", "crd", sweepRunCRD, taskTrialCRD)
		after := &evalv1.SweepRun{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "operate"}, after)).To(Succeed())
		Expect(after.Status.Score).To(Equal(regraded.Status.Score))
		Expect(meta.IsStatusConditionTrue(after.Status.Conditions, evalv1.ConditionReady)).To(BeTrue())
		Expect(trialsOf(ns, "operate")).To(HaveLen(len(sampleTasks) + 2 + len(final)))
	})
})
