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

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
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
