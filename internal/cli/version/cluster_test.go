package version_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/version"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// --client prints the client's version without a cluster.
func TestClientOnly(t *testing.T) {
	out, _, err := clitest.Execute(context.Background(), &version.Options{ClientOnly: true, Format: "table", Cluster: clitest.Cluster("/nonexistent/kubeconfig", "default")})
	if err != nil || !strings.HasPrefix(out, "Client Version: ") || strings.Count(out, "\n") != 1 {
		t.Errorf("sweep version --client: %q, %v", out, err)
	}
}

// The operator is found by its leader lease, wherever it was installed; until then the client's
// version is printed and the error says what is missing.
func TestOperatorVersion(t *testing.T) {
	srv := clitest.APIServer(t)
	ctx := context.Background()
	ns := srv.Namespace(t)
	run := func(format string) (string, error) {
		out, _, err := clitest.Execute(ctx, &version.Options{Format: format, Cluster: srv.Cluster("default")})
		return out, err
	}
	out, err := run("table")
	sweeptest.ErrorContains(t, err, "operator version: no lease "+evalv1.LeaderLeaseName+" in any namespace", "sweep version --client")
	if !strings.HasPrefix(out, "Client Version: ") {
		t.Errorf("without an operator the client's version is not printed: %q", out)
	}

	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: evalv1.LeaderLeaseName}}
	clitest.Must(t, srv.Client.Create(ctx, lease))
	_, err = run("table")
	sweeptest.ErrorContains(t, err, "lease "+evalv1.LeaderLeaseName+" in namespace "+ns+" has no holder")

	lease.Spec.HolderIdentity = ptr.To("sweep-operator-manager-7f9c_0b6a1c2e")
	clitest.Must(t, srv.Client.Update(ctx, lease))
	_, err = run("table")
	sweeptest.ErrorContains(t, err, "reading the leader Pod sweep-operator-manager-7f9c in namespace "+ns, "not found")

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sweep-operator-manager-7f9c"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "registry.example/sweep-operator:v0.3.0"}}}}
	clitest.Must(t, srv.Client.Create(ctx, pod))
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "manager", Image: pod.Spec.Containers[0].Image, ImageID: "registry.example/sweep-operator@sha256:abc"}}
	clitest.Must(t, srv.Client.Status().Update(ctx, pod))
	out, err = run("table")
	if err != nil {
		t.Fatal(err)
	}
	want := "Operator Image: registry.example/sweep-operator:v0.3.0 (registry.example/sweep-operator@sha256:abc), leader Pod sweep-operator-manager-7f9c in namespace " + ns + "\n"
	if !strings.HasPrefix(out, "Client Version: ") || !strings.HasSuffix(out, want) {
		t.Errorf("sweep version:\n%s\nwant it to end with %q", out, want)
	}
	out, err = run("json")
	if err != nil {
		t.Fatal(err)
	}
	var info version.Info
	clitest.Must(t, json.Unmarshal([]byte(out), &info))
	if diff := cmp.Diff([]version.Operator{{Namespace: ns, Pod: "sweep-operator-manager-7f9c", Image: "registry.example/sweep-operator:v0.3.0", ImageID: "registry.example/sweep-operator@sha256:abc"}}, info.Operators); diff != "" {
		t.Errorf("-o json operators (-want +got):\n%s", diff)
	}
	if info.Client.Version == "" || info.Client.GoVersion == "" {
		t.Errorf("-o json clientVersion = %+v", info.Client)
	}

	_, _, err = clitest.Execute(ctx, &version.Options{Format: "table", Cluster: clitest.Cluster(srv.UserKubeconfig(t, "nobody-version"), ns)})
	sweeptest.ErrorContains(t, err, "listing leases named "+evalv1.LeaderLeaseName, "forbidden", "list on leases in all namespaces")
	sweeptest.ErrorContains(t, (&version.Options{Format: "xml"}).Validate(), `got "xml"`)
}
