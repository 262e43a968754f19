//go:build e2e

package e2e

// The suite's artifact stores, as specs reach them: the S3-compatible server (SeaweedFS) that
// hack/seaweedfs.sh runs in the cluster, and the manager's default store, a directory on the
// hostPath PersistentVolume of hack/deploy.sh. hack/README.md ("Artifact stores") tells why
// they are reached the way they are.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	// s3Namespace, s3Deployment and s3ConfigMap are hack/seaweedfs.sh's: the server, and the
	// store URL it serves to Pods (key url).
	s3Namespace  = "sweep-s3"
	s3Deployment = "seaweedfs"
	s3ConfigMap  = "seaweedfs-store"
	s3Port       = "8333"
	// storeSecret holds the manager's S3 credentials (its envFrom), in kustomizeNamespace.
	storeSecret = "sweep-operator-store"
	// storeClaim is the manager's default store's PersistentVolumeClaim, in kustomizeNamespace.
	storeClaim = "sweep-operator-store"
)

// s3Store is the suite's S3 server for one spec.
type s3Store struct {
	// managerURL reaches the server from Pods (the manager's SweepRuns name it): the node IP.
	managerURL *url.URL
	// hostURL reaches it from this process and the commands it runs, through a port-forward
	// of the API server that lasts as long as the spec.
	hostURL *url.URL
	// env is the manager's credentials, as AWS_* variables.
	env []string
}

// openS3Store reads the server's URL and the manager's credentials from the cluster, forwards a
// local port to the server until the spec ends, and puts the credentials into this process'
// environment for the spec (gocloud's s3blob, in-process CLI verbs).
func openS3Store() *s3Store {
	ctx := context.Background()
	cm := &corev1.ConfigMap{}
	ExpectWithOffset(1, k8s.Get(ctx, client.ObjectKey{Namespace: s3Namespace, Name: s3ConfigMap}, cm)).To(Succeed(),
		"no S3 server: make e2e runs hack/seaweedfs.sh deploy (hack/stack.sh)")
	managerURL, err := url.Parse(cm.Data["url"])
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	secret := &corev1.Secret{}
	ExpectWithOffset(1, k8s.Get(ctx, client.ObjectKey{Namespace: kustomizeNamespace, Name: storeSecret}, secret)).To(Succeed())
	s := &s3Store{managerURL: managerURL}
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"} {
		ExpectWithOffset(1, secret.Data).To(HaveKey(k), "secret %s/%s", kustomizeNamespace, storeSecret)
		s.env = append(s.env, k+"="+string(secret.Data[k]))
		GinkgoT().Setenv(k, string(secret.Data[k]))
	}
	local := forwardPort(s3Namespace, "deployment/"+s3Deployment, s3Port)
	host := *managerURL
	q := host.Query()
	q.Set("endpoint", "http://"+local)
	host.RawQuery = q.Encode()
	s.hostURL = &host
	return s
}

// at is u with the key prefix prefix (s3://BUCKET/PREFIX?...).
func at(u *url.URL, prefix string) string {
	c := *u
	c.Path = ""
	if p := strings.Trim(prefix, "/"); p != "" {
		c.Path = "/" + p
	}
	return c.String()
}

// ManagerURL is the store URL at prefix for Pods: a SweepRun's or the manager's.
func (s *s3Store) ManagerURL(prefix string) string { return at(s.managerURL, prefix) }

// HostURL is the store URL at prefix for this process and the commands it runs.
func (s *s3Store) HostURL(prefix string) string { return at(s.hostURL, prefix) }

// Env is the credentials for a Pod's or a command's environment, as KEY=VALUE.
func (s *s3Store) Env() []string { return s.env }

// Sweep runs bin/sweep on the host with the store's credentials; give it HostURL's URLs.
func (s *s3Store) Sweep(args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command(filepath.Join(root, "bin", "sweep"), args...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// forwardedAddress is kubectl port-forward's line naming the local end.
var forwardedAddress = regexp.MustCompile(`Forwarding from (127\.0\.0\.1:\d+) ->`)

// forwardPort forwards a free local port to port of target (kubectl's TYPE/NAME) until the spec
// ends, and returns the local address. The host reaches nothing in the cluster's network but
// the API server, which carries the forwarded connections.
func forwardPort(ns, target, port string) string {
	cmd := exec.Command(kubectl, "-n", ns, "port-forward", "--address", "127.0.0.1", target, ":"+port)
	stdout, err := cmd.StdoutPipe()
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	cmd.Stderr = GinkgoWriter
	ExpectWithOffset(1, cmd.Start()).To(Succeed())
	DeferCleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			if m := forwardedAddress.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case addr := <-found:
		return addr
	case <-time.After(30 * time.Second):
		Fail(fmt.Sprintf("kubectl port-forward -n %s %s :%s named no local port in 30s", ns, target, port), 1)
		return ""
	}
}

// volumeStoreDir is the host directory of the manager's default store: the hostPath of the
// PersistentVolume bound to its claim (hack/deploy.sh), which the host sees as the kubelet does.
// The records of --artifact-store=file:///var/lib/sweep-operator/store are there, to read with
// file:// after their SweepRun is gone.
func volumeStoreDir() string {
	ctx := context.Background()
	pvc := &corev1.PersistentVolumeClaim{}
	ExpectWithOffset(1, k8s.Get(ctx, client.ObjectKey{Namespace: kustomizeNamespace, Name: storeClaim}, pvc)).To(Succeed())
	ExpectWithOffset(1, pvc.Spec.VolumeName).NotTo(BeEmpty(), "claim %s/%s is not bound", kustomizeNamespace, storeClaim)
	pv := &corev1.PersistentVolume{}
	ExpectWithOffset(1, k8s.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv)).To(Succeed())
	ExpectWithOffset(1, pv.Spec.HostPath).NotTo(BeNil(), "volume %s is not a hostPath: not the local cluster's", pv.Name)
	return pv.Spec.HostPath.Path
}

// hostBinary builds a static binary of pkg (a path below the module) into a directory the
// kubelet can mount (hostPath), and returns that directory.
func hostBinary(pkg, name string) string {
	dir := filepath.Join(root, ".cache", "e2e", "bin")
	ExpectWithOffset(1, os.MkdirAll(dir, 0o755)).To(Succeed())
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), "./"+pkg)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "go build %s: %s", pkg, out)
	return dir
}

// runProbePod runs command in a Pod of ns on the manager's image (distroless: the command is a
// binary of hostBinary, mounted at /probe) as the manager's user, with the manager's store
// credentials (envFrom, when the Secret is in ns) and extra volumes, and returns its log once it
// succeeded.
func runProbePod(ns, name, binDir string, command []string, volumes []corev1.Volume, mounts []corev1.VolumeMount) string {
	ctx := context.Background()
	ref, err := os.ReadFile(filepath.Join(root, ".cache", "images", "manager.ref"))
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "no manager image: make e2e builds it")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy:                corev1.RestartPolicyNever,
			AutomountServiceAccountToken: ptr.To(false),
			SecurityContext:              &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532))},
			Containers: []corev1.Container{{
				Name: "probe", Image: strings.TrimSpace(string(ref)), ImagePullPolicy: corev1.PullIfNotPresent,
				Command: command,
				EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: storeSecret}, Optional: ptr.To(true)}}},
				VolumeMounts: append([]corev1.VolumeMount{{Name: "probe", MountPath: "/probe", ReadOnly: true}}, mounts...),
			}},
			Volumes: append([]corev1.Volume{{Name: "probe", VolumeSource: corev1.VolumeSource{
				HostPath: &corev1.HostPathVolumeSource{Path: binDir, Type: ptr.To(corev1.HostPathDirectory)}}}}, volumes...),
		},
	}
	ExpectWithOffset(1, k8s.Create(ctx, pod)).To(Succeed())
	DeferCleanup(func() { _ = k8s.Delete(context.Background(), pod) })
	EventuallyWithOffset(1, func(g Gomega) corev1.PodPhase {
		g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		return pod.Status.Phase
	}, 2*time.Minute, time.Second).Should(Or(Equal(corev1.PodSucceeded), Equal(corev1.PodFailed)), "Pod %s/%s did not finish", ns, name)
	logs := run("-n", ns, "logs", name)
	ExpectWithOffset(1, pod.Status.Phase).To(Equal(corev1.PodSucceeded), "Pod %s/%s failed: %s", ns, name, logs)
	return logs
}
