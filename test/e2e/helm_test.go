//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

const (
	// kustomizeNamespace and kustomizeManager are the operator hack/deploy.sh installs from
	// config/default, which every other spec runs on.
	kustomizeNamespace = "sweep-system"
	kustomizeManager   = "sweep-operator-manager"
	// The release's name contains the chart's, so its objects are named <release>-manager.
	helmRelease   = "sweep-operator-helm"
	helmNamespace = "sweep-helm"
	helmManager   = helmRelease + "-manager"
	sweepRunCRD   = "sweepruns.eval.sweep.dev"
	taskTrialCRD  = "tasktrials.eval.sweep.dev"
	// readyColumn is the SweepRun printer column the chart's previous CRDs lack: the CRD
	// change the upgrade carries.
	readyColumn = "    - jsonPath: .status.conditions[?(@.type==\"Ready\")].status\n      name: Ready\n      type: string\n"
)

// helmCmd runs the helm of hack/helm.sh against the e2e cluster, with a home of its own so no
// user's repositories or plugins take part, and returns its output.
func helmCmd(stdin []byte, args ...string) string {
	out, err := exec.Command("bash", filepath.Join(root, "hack", "helm.sh"), "--path").Output()
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "hack/helm.sh --path")
	bin := strings.TrimSpace(string(out))
	ExpectWithOffset(1, bin).To(BeAnExistingFile(), "helm is not built: run hack/helm.sh (make e2e does)")
	// Not GinkgoT().TempDir(): the cleanup uninstalls with it, where DeferCleanup is refused.
	home, err := os.MkdirTemp("", "helm-home")
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	defer func() { ExpectWithOffset(1, os.RemoveAll(home)).To(Succeed()) }()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), &stdout, &stderr
	ExpectWithOffset(1, cmd.Run()).To(Succeed(), "helm %v: %s%s", args, stdout.String(), stderr.String())
	return stdout.String()
}

// kubectlIn runs kubectl with stdin.
func kubectlIn(stdin string, args ...string) string {
	var out bytes.Buffer
	cmd := exec.Command(kubectl, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &out
	ExpectWithOffset(1, cmd.Run()).To(Succeed(), "kubectl %v: %s", args, out.String())
	return out.String()
}

// imageValues are the --set values for the manager and sweep-hook images hack/images.sh built.
func imageValues() []string {
	var sets []string
	for value, ref := range map[string]string{"image": "manager.ref", "hookImage": "sweep-hook.ref"} {
		b, err := os.ReadFile(filepath.Join(root, ".cache", "images", ref))
		ExpectWithOffset(1, err).NotTo(HaveOccurred(), "no image reference: run make e2e, which builds the images")
		image := strings.TrimSpace(string(b))
		i := strings.LastIndex(image, ":")
		sets = append(sets, "--set", value+".repository="+image[:i], "--set", value+".tag="+image[i+1:])
	}
	return sets
}

// managerPods are the Pods of a manager Deployment.
func managerPods(ns, name string) []corev1.Pod {
	d := &appsv1.Deployment{}
	ExpectWithOffset(1, k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, d)).To(Succeed())
	pods := &corev1.PodList{}
	ExpectWithOffset(1, k8s.List(context.Background(), pods, client.InNamespace(ns), client.MatchingLabels(d.Spec.Selector.MatchLabels))).To(Succeed())
	return pods.Items
}

// waitLeader waits until a running Pod of the manager Deployment other than notPod holds the
// leader lease of its namespace (controller-runtime's identity is <pod>_<uuid>) and returns the
// lease.
func waitLeader(ns, name, notPod string) *coordinationv1.Lease {
	lease := &coordinationv1.Lease{}
	EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: evalv1.LeaderLeaseName}, lease)).To(Succeed())
		g.Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
		holder := *lease.Spec.HolderIdentity
		g.Expect(holder).NotTo(HavePrefix(notPod + "_"))
		var running []string
		for _, p := range managerPods(ns, name) {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running = append(running, p.Name)
			}
		}
		g.Expect(running).To(ContainElement(strings.SplitN(holder, "_", 2)[0]), "lease holder %s", holder)
	}, 2*time.Minute, time.Second).Should(Succeed(), "no Pod of %s/%s holds the leader lease", ns, name)
	return lease
}

func printerColumns(crd string) string {
	return run("get", "crd", crd, "-o", "jsonpath={.spec.versions[0].additionalPrinterColumns[*].name}")
}

var _ = Describe("the Helm chart", Serial, func() {
	It("installs, upgrades across a CRD change with a campaign running, and uninstalls keeping the CRDs and results", func() {
		ctx := context.Background()
		chart := filepath.Join(root, "charts", "sweep-operator")
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

		By("starting a campaign: the oracle on every sample task, one trial at a time")
		ns := catalogueNamespace("helm")
		sr := newRun(ns, "helm", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}})
		sr.Spec.Parallelism = 1
		Expect(k8s.Create(ctx, sr)).To(Succeed())
		Eventually(func(g Gomega) {
			trials := trialsOf(ns, "helm")
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

		By("the campaign ends with every trial run once and the oracle's score")
		done := waitFinished(ns, "helm")
		trials := trialsOf(ns, "helm")
		reportTrialTimes(trials)
		Expect(done.Status.CompletionTime.After(upgraded.Spec.AcquireTime.Time)).To(BeTrue(),
			"the campaign finished before the upgraded manager led: nothing ran across the upgrade")
		Expect(done.Status.Score).To(Equal("1.0000"))
		Expect(done.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(trials).To(HaveLen(len(sampleTasks)))
		for _, t := range trials {
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
			Expect(t.Spec.Attempt).To(Equal(int32(1)), t.Name)
			Expect(t.Status.InfrastructureRetries).To(BeZero(), t.Name)
			Expect(t.Status.VerifierRetries).To(BeZero(), t.Name)
		}

		By("helm uninstall keeps the CRDs, the campaign and its trials")
		helmCmd(nil, "uninstall", helmRelease, "-n", helmNamespace, "--wait")
		err = k8s.Get(ctx, client.ObjectKey{Namespace: helmNamespace, Name: helmManager}, &appsv1.Deployment{})
		Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the release's Deployment after uninstall: %v", err)
		roles := &rbacv1.ClusterRoleList{}
		Expect(k8s.List(ctx, roles, client.MatchingLabels{"app.kubernetes.io/instance": helmRelease})).To(Succeed())
		Expect(roles.Items).To(BeEmpty(), "the release's ClusterRoles outlived it")
		run("get", "crd", sweepRunCRD, taskTrialCRD)
		kept := &evalv1.SweepRun{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "helm"}, kept)).To(Succeed())
		Expect(kept.Status.Score).To(Equal("1.0000"))
		Expect(trialsOf(ns, "helm")).To(HaveLen(len(sampleTasks)))
	})
})
