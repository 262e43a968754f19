// Package config holds the operator's kustomize manifests; this test renders them the way
// `kubectl apply -k` does and checks the properties the deployment promises.
package config

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func render(t *testing.T, dir string) resmap.ResMap {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return m
}

func decode(t *testing.T, m resmap.ResMap, kind, name string, into any) {
	t.Helper()
	for _, r := range m.Resources() {
		if r.GetKind() == kind && r.GetName() == name {
			b, err := r.AsYAML()
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(b, into); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no %s %s in the rendered manifests", kind, name)
}

func TestDefaultDeploysALockedDownManager(t *testing.T) {
	m := render(t, "default")
	var dep appsv1.Deployment
	decode(t, m, "Deployment", "sweep-operator-manager", &dep)
	pod := dep.Spec.Template.Spec
	c := pod.Containers[0]
	switch {
	case pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot:
		t.Error("manager Pod may run as root")
	case c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem:
		t.Error("manager container has a writable root filesystem")
	case c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero():
		t.Error("manager container has no resource requests")
	}
	if len(m.Resources()) < 6 {
		t.Errorf("want CRDs, RBAC and the Deployment, got %d objects", len(m.Resources()))
	}
}

func TestRBACIsLeastPrivilege(t *testing.T) {
	var role rbacv1.ClusterRole
	decode(t, render(t, "default"), "ClusterRole", "sweep-operator-manager", &role)
	granted := map[string]map[string]bool{}
	for _, r := range role.Rules {
		for _, res := range r.Resources {
			if granted[res] == nil {
				granted[res] = map[string]bool{}
			}
			for _, v := range r.Verbs {
				granted[res][v] = true
			}
		}
	}
	if !granted["pods/log"]["get"] {
		t.Error("harvesting needs get on pods/log")
	}
	// The manager creates its trials' Secrets and never reads one (controllers.CacheOptions).
	// The only ConfigMaps it creates are campaigns' immutable copies of their exclusion lists;
	// it changes none.
	forbidden := map[string][]string{
		"pods":       {"create", "update", "delete", "patch"},
		"secrets":    {"get", "list", "watch", "update", "delete", "patch"},
		"configmaps": {"update", "delete", "patch"},
		"nodes":      {"get", "list"},
	}
	for res, verbs := range forbidden {
		for _, v := range verbs {
			if granted[res][v] {
				t.Errorf("the manager may %s %s: more than the controllers use", v, res)
			}
		}
	}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v == "*" {
				t.Errorf("wildcard verb in %v", r)
			}
		}
	}
}

// The metrics endpoint is HTTPS behind the authn/authz filter, whose rights are TokenReview
// and SubjectAccessReview creation and nothing else; readers get GET /metrics only.
func TestMetricsAreServedSecurely(t *testing.T) {
	m := render(t, "default")
	var dep appsv1.Deployment
	decode(t, m, "Deployment", "sweep-operator-manager", &dep)
	c := dep.Spec.Template.Spec.Containers[0]
	if slices.Contains(c.Args, "--metrics-secure=false") || !slices.Contains(c.Args, "--metrics-bind-address=:8443") {
		t.Errorf("manager args %v: want the secure default on :8443", c.Args)
	}
	var svc corev1.Service
	decode(t, m, "Service", "sweep-operator-manager-metrics", &svc)
	if p := svc.Spec.Ports; len(p) != 1 || p[0].Name != "https" || p[0].TargetPort.StrVal != "https" || c.Ports[0].Name != "https" {
		t.Errorf("metrics Service ports %v, container ports %v: want one named https", p, c.Ports)
	}
	var auth, reader rbacv1.ClusterRole
	decode(t, m, "ClusterRole", "sweep-operator-metrics-auth", &auth)
	decode(t, m, "ClusterRole", "sweep-operator-metrics-reader", &reader)
	wantAuth := []rbacv1.PolicyRule{
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
	}
	if diff := cmp.Diff(wantAuth, auth.Rules); diff != "" {
		t.Errorf("metrics-auth rules (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}, reader.Rules); diff != "" {
		t.Errorf("metrics-reader rules (-want +got):\n%s", diff)
	}
	var binding rbacv1.ClusterRoleBinding
	decode(t, m, "ClusterRoleBinding", "sweep-operator-metrics-auth", &binding)
	if diff := cmp.Diff([]rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "sweep-operator-manager", Namespace: "sweep-system"}}, binding.Subjects); diff != "" {
		t.Errorf("metrics-auth subjects (-want +got):\n%s", diff)
	}
}

// The default artifact store is a directory on the claim sweep-operator-store, mounted where
// --artifact-store points, writable by the non-root manager; S3 credentials come from an
// optional Secret, so the manager starts without one.
func TestDefaultStoreIsTheManagersVolume(t *testing.T) {
	m := render(t, "default")
	var dep appsv1.Deployment
	decode(t, m, "Deployment", "sweep-operator-manager", &dep)
	pod := dep.Spec.Template.Spec
	c := pod.Containers[0]
	const dir = "/var/lib/sweep-operator/store"
	if !slices.Contains(c.Args, "--artifact-store=file://"+dir) {
		t.Errorf("manager args %v: want --artifact-store=file://%s", c.Args, dir)
	}
	want := []any{
		[]corev1.VolumeMount{{Name: "store", MountPath: dir}},
		[]corev1.Volume{{Name: "store", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "sweep-operator-store"}}}},
		[]corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "sweep-operator-store"}, Optional: ptr.To(true)}}},
		ptr.To(int64(65532)),
		appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxSurge: ptr.To(intstr.FromInt32(0)), MaxUnavailable: ptr.To(intstr.FromInt32(1))}},
	}
	got := []any{c.VolumeMounts, pod.Volumes, c.EnvFrom, pod.SecurityContext.FSGroup, dep.Spec.Strategy}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mounts, volumes, envFrom, fsGroup, strategy (-want +got):\n%s", diff)
	}
	var pvc corev1.PersistentVolumeClaim
	decode(t, m, "PersistentVolumeClaim", "sweep-operator-store", &pvc)
	if pvc.Namespace != "sweep-system" || !slices.Equal(pvc.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}) || pvc.Spec.Resources.Requests.Storage().IsZero() {
		t.Errorf("claim %s/%s %+v: want ReadWriteOnce with a size, in sweep-system", pvc.Namespace, pvc.Name, pvc.Spec)
	}
}

func TestSamplesRender(t *testing.T) {
	if n := len(render(t, "samples").Resources()); n != 2 {
		t.Errorf("samples: want 2 SweepRuns, got %d", n)
	}
}
