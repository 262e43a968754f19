//go:build e2e

// Package e2e runs campaigns on the real single-node cluster of hack/cluster.sh, with the
// operator installed from config/default and the sample tasks of tasks/ built into images
// (make e2e prepares all of it). Nothing here is faked: Pods run on a real kubelet.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

var (
	root    string
	k8s     client.Client
	kubectl string
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "End-to-end suite on the local cluster")
}

var _ = BeforeSuite(func() {
	// The CLI verbs the specs run in-process log through controller-runtime's logger.
	log.SetLogger(GinkgoLogr)
	var err error
	root, err = filepath.Abs(filepath.Join("..", ".."))
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := os.Getenv("KUBECONFIG")
	Expect(kubeconfig).NotTo(BeEmpty(), "KUBECONFIG is not set: run `make e2e`, which brings the cluster up")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	// client-go's default of 5 queries a second would take 23 minutes to apply a Full-size
	// import; the API server, not the client, should set the pace.
	cfg.QPS, cfg.Burst = 400, 800
	k8s, err = client.New(cfg, client.Options{Scheme: evalv1.NewScheme()})
	Expect(err).NotTo(HaveOccurred())
	kubectl = filepath.Join(root, "bin", "k8s", "kubectl")
	Expect(filepath.Join(root, ".cache", "demo", "catalogue", "kustomization.yaml")).To(BeAnExistingFile(),
		"no task catalogue: run `make e2e`, which writes it with hack/stack.sh")
})

func run(args ...string) string {
	var out bytes.Buffer
	cmd := exec.Command(kubectl, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	ExpectWithOffset(1, cmd.Run()).To(Succeed(), "kubectl %v: %s", args, out.String())
	return out.String()
}

// hackScript runs script of hack/ with args against the e2e cluster (hack/kueue.sh up, ...).
func hackScript(script string, args ...string) {
	out, err := exec.Command("bash", append([]string{filepath.Join(root, "hack", script)}, args...)...).CombinedOutput()
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "hack/%s %v: %s", script, args, out)
}

var nsCount int

// catalogueNamespace makes a namespace holding the sample task catalogue.
func catalogueNamespace(prefix string) string {
	nsCount++
	ns := fmt.Sprintf("e2e-%s-%d-%d", prefix, os.Getpid()%10000, nsCount)
	Expect(k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	run("-n", ns, "apply", "-k", filepath.Join(root, ".cache", "demo", "catalogue"))
	DeferCleanup(func() {
		_ = k8s.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	})
	return ns
}

// waitFinished waits for the campaign to end and returns it.
func waitFinished(ns, name string) *evalv1.SweepRun {
	sr := &evalv1.SweepRun{}
	EventuallyWithOffset(1, func() *metav1.Time {
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, sr)).To(Succeed())
		return sr.Status.CompletionTime
	}, 8*time.Minute, 2*time.Second).ShouldNot(BeNil(), "campaign %s/%s did not finish", ns, name)
	return sr
}

func trialsOf(ns, run string) []evalv1.TaskTrial {
	list := &evalv1.TaskTrialList{}
	ExpectWithOffset(1, k8s.List(context.Background(), list, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelSweepRun: run})).To(Succeed())
	return list.Items
}

// pointers is trials as internal/campaign takes them.
func pointers(trials []evalv1.TaskTrial) []*evalv1.TaskTrial {
	out := make([]*evalv1.TaskTrial, len(trials))
	for i := range trials {
		out[i] = &trials[i]
	}
	return out
}

// reportTrialTimes records each trial's wall time in the suite's report.
func reportTrialTimes(trials []evalv1.TaskTrial) {
	for _, t := range trials {
		if t.Status.StartTime != nil && t.Status.CompletionTime != nil {
			AddReportEntry("trial wall time", fmt.Sprintf("%s: %s", t.Name, t.Status.CompletionTime.Sub(t.Status.StartTime.Time)))
		}
	}
}
