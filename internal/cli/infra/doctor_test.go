package infra_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/infra"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

var serverDetails = regexp.MustCompile(`https://127\.0\.0\.1:[0-9]+|Kubernetes v[^ ]+`)

func TestMain(m *testing.M) { clitest.Main(m) }

// doctorOutput runs the doctor and hides the test server's address and version.
func doctorOutput(t *testing.T, kubeconfig, ns, format string) (string, error) {
	t.Helper()
	out, _, err := clitest.Execute(context.Background(), &infra.DoctorOptions{Cluster: clitest.Cluster(kubeconfig, ns), Format: format})
	out = serverDetails.ReplaceAllStringFunc(out, func(s string) string {
		if strings.HasPrefix(s, "https") {
			return "https://API"
		}
		return "Kubernetes vX"
	})
	return strings.ReplaceAll(out, ns, "NAMESPACE"), err
}

// The doctor's facts are cluster-wide (nodes, leases, kube-system), so its paths run in order
// in one test, each adding to the cluster what the next needs.
func TestDoctor(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, kubeconfig := srv.Client, srv.Kubeconfig
	ctx := context.Background()
	ns := srv.Namespace(t)

	t.Run("bare cluster", func(t *testing.T) {
		out, err := doctorOutput(t, kubeconfig, ns, clioptions.OutputTable)
		clitest.Golden(t, "doctor-bare.txt", out)
		sweeptest.ErrorContains(t, err, "1 of 7 checks failed: apply the fixes above")
	})

	clitest.InstallCatalogue(t, cl, ns)
	// Cluster-wide objects go at the end, so that the bare cluster is bare if the test runs again.
	var clusterWide []client.Object
	t.Cleanup(func() {
		for _, obj := range clusterWide {
			if err := cl.Delete(ctx, obj); err != nil {
				t.Errorf("deleting %s: %v", obj.GetName(), err)
			}
		}
	})
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: evalv1.LeaderLeaseName},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("manager-7f9c"), LeaseDurationSeconds: ptr.To[int32](15), RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	clitest.Must(t, cl.Create(ctx, lease))
	clusterWide = append(clusterWide, lease)
	labels := map[string]string{"k8s-app": "calico-node"}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "calico", Image: "calico/node"}}}}}}
	clitest.Must(t, cl.Create(ctx, ds))
	clusterWide = append(clusterWide, ds)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "small"}}
	clitest.Must(t, cl.Create(ctx, node))
	clusterWide = append(clusterWide, node)
	node.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi")}
	node.Status.Images = []corev1.ContainerImage{{Names: []string{"docker.io/library/python:3.12-slim"}}}
	clitest.Must(t, cl.Status().Update(ctx, node))

	t.Run("catalogue too big for the nodes", func(t *testing.T) {
		out, err := doctorOutput(t, kubeconfig, ns, clioptions.OutputTable)
		clitest.Golden(t, "doctor-small-node.txt", out)
		sweeptest.ErrorContains(t, err, "1 of 7 checks failed")
	})

	big := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "big"}}
	clitest.Must(t, cl.Create(ctx, big))
	clusterWide = append(clusterWide, big)
	big.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi")}
	list := &corev1.ConfigMapList{}
	clitest.Must(t, cl.List(ctx, list, client.InNamespace(ns)))
	for _, cm := range list.Items {
		for _, key := range []string{"eval.sweep.dev/agent-image", "eval.sweep.dev/verifier-image"} {
			if ref := cm.Annotations[key]; ref != "" {
				big.Status.Images = append(big.Status.Images, corev1.ContainerImage{Names: []string{ref}})
			}
		}
	}
	clitest.Must(t, cl.Status().Update(ctx, big))

	t.Run("ready", func(t *testing.T) {
		out, err := doctorOutput(t, kubeconfig, ns, clioptions.OutputJSON)
		if err != nil {
			t.Fatal(err)
		}
		clitest.Golden(t, "doctor-ready.json", out)
	})

	t.Run("a user without rights", func(t *testing.T) {
		nobody := srv.UserKubeconfig(t, "nobody")
		out, err := doctorOutput(t, nobody, ns, clioptions.OutputTable)
		clitest.Golden(t, "doctor-nobody.txt", out)
		sweeptest.ErrorContains(t, err, "checks failed")
	})

	t.Run("unreachable server", func(t *testing.T) {
		cluster := clioptions.NewCluster()
		server, insecure := "https://127.0.0.1:1", true
		cluster.Flags.APIServer, cluster.Flags.Insecure = &server, &insecure
		out, _, err := clitest.Execute(ctx, &infra.DoctorOptions{Cluster: cluster, Format: clioptions.OutputTable})
		if !strings.HasPrefix(out, "fail  api-server  https://127.0.0.1:1 does not answer") || !strings.Contains(out, "fix: check the cluster with `kubectl cluster-info`") {
			t.Errorf("output:\n%s", out)
		}
		sweeptest.ErrorContains(t, err, "1 of 1 checks failed")
	})
}
