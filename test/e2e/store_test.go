//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// through the blob URL mux
	_ "gocloud.dev/blob/s3blob"   // s3:// through the blob URL mux
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The stores the store specs use, checked on their own: a failure here is the suite's plumbing,
// not the operator.
var _ = Describe("the suite's artifact stores", func() {
	It("S3: objects put through gocloud's s3blob on the host read back in a Pod of the manager's namespace, and the other way", func() {
		ctx := context.Background()
		s3 := openS3Store()
		prefix := fmt.Sprintf("e2e-plumbing/%d-%d", os.Getpid(), time.Now().UnixNano())
		fromHost, fromPod := "written on the host", "written in a Pod"

		By("the host: " + s3.HostURL(prefix))
		bucket, err := blob.OpenBucket(ctx, s3.HostURL(prefix))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(bucket.Close)
		Expect(bucket.WriteAll(ctx, "host", []byte(fromHost), nil)).To(Succeed())

		By("a Pod in " + kustomizeNamespace + ", with the manager's credentials: " + s3.ManagerURL(prefix))
		bin := hostBinary("test/e2e/storecheck", "storecheck")
		logs := runProbePod(kustomizeNamespace, fmt.Sprintf("e2e-s3-probe-%d", os.Getpid()), bin,
			[]string{"/probe/storecheck", s3.ManagerURL(prefix), "get:host", "put:pod=" + fromPod}, nil, nil)
		Expect(logs).To(ContainSubstring("host=" + fromHost))

		By("the host reads what the Pod wrote")
		got, err := bucket.ReadAll(ctx, "pod")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal(fromPod))
		for _, key := range []string{"host", "pod"} {
			Expect(bucket.Delete(ctx, key)).To(Succeed())
		}
	})

	It("volume: the manager runs on its bound store claim, where its user writes and the host reads with file://", func() {
		ctx := context.Background()
		By("the manager's Pod is ready with the claim " + storeClaim + " mounted at its --artifact-store")
		pvc := &corev1.PersistentVolumeClaim{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: kustomizeNamespace, Name: storeClaim}, pvc)).To(Succeed())
		Expect(pvc.Status.Phase).To(Equal(corev1.ClaimBound))
		const dir = "/var/lib/sweep-operator/store"
		var ready []string
		for _, p := range managerPods(kustomizeNamespace, kustomizeManager) {
			c := p.Spec.Containers[0]
			Expect(c.Args).To(ContainElement("--artifact-store=file://" + dir))
			Expect(c.VolumeMounts).To(ContainElement(corev1.VolumeMount{Name: "store", MountPath: dir}))
			Expect(p.Spec.Volumes).To(ContainElement(corev1.Volume{Name: "store", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: storeClaim}}}))
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
					ready = append(ready, p.Name)
				}
			}
		}
		Expect(ready).NotTo(BeEmpty(), "no manager Pod is ready")

		By("a Pod as the manager's user writes into the same claim")
		key := fmt.Sprintf("e2e-plumbing/%d-%d", os.Getpid(), time.Now().UnixNano())
		bin := hostBinary("test/e2e/storecheck", "storecheck")
		runProbePod(kustomizeNamespace, fmt.Sprintf("e2e-volume-probe-%d", os.Getpid()), bin,
			[]string{"/probe/storecheck", "file://" + dir + "?metadata=skip&no_tmp_dir=true", "put:" + key + "=from the manager's user"},
			[]corev1.Volume{{Name: "store", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: storeClaim}}}},
			[]corev1.VolumeMount{{Name: "store", MountPath: dir}})

		By("the host reads it with file:// at the volume's directory")
		hostDir := volumeStoreDir()
		DeferCleanup(os.RemoveAll, filepath.Join(hostDir, "e2e-plumbing"))
		bucket, err := blob.OpenBucket(ctx, "file://"+hostDir+"?metadata=skip")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(bucket.Close)
		got, err := bucket.ReadAll(ctx, key)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("from the manager's user"))
	})
})
