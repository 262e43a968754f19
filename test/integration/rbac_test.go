package integration

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

// managerRole is the manager's ClusterRole as config/rbac deploys it, under a name of its own.
func managerRole(name string) *rbacv1.ClusterRole { return configClusterRole("role.yaml", name) }

// configClusterRole creates the ClusterRole of config/rbac/file under a name of its own.
func configClusterRole(file, name string) *rbacv1.ClusterRole {
	b, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", file))
	Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.ClusterRole{}
	Expect(yaml.Unmarshal(b, role)).To(Succeed())
	Expect(role.Rules).NotTo(BeEmpty())
	role.ObjectMeta = metav1.ObjectMeta{Name: name}
	Expect(k8s.Create(context.Background(), role)).To(Succeed())
	return role
}

// managerUser is a user of its own for the manager, with the kubeconfig it signs in with.
func managerUser(name string) (*rest.Config, client.Client) {
	user, err := testEnv.AddUser(envtest.User{Name: name}, cfg)
	Expect(err).NotTo(HaveOccurred())
	c, err := client.New(user.Config(), client.Options{Scheme: evalv1.NewScheme()})
	Expect(err).NotTo(HaveOccurred())
	return user.Config(), c
}

// runsOneTrial drives one trial of a new campaign to its score under the running manager.
func runsOneTrial(k kubelet, run string) {
	makeTask(k.ns, "calc", 4).create()
	makeRun(k.ns, run).create()
	name := campaign.TrialName(run, "calc", 1)
	k.runStage(name, agentStage, 1, agentSummary(samplePatch, ""))
	k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(4, 2, 1)))
	Eventually(getRun(k.ns, run), timeout, poll).Should(Satisfy(completed))
	Expect(k.trial(name).Status.Score).To(Equal("0.5000"))
	for _, secret := range []string{podbuild.ArtifactSecretName(name), podbuild.ResultsSecretName(name)} {
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: k.ns, Name: secret}, &corev1.Secret{})).To(Succeed(), "the manager created %s", secret)
	}
}

// cannotReadSecrets checks that the manager's identity reads no Secret: not the users' (a patch
// agent's patches, model credentials), not even the ones it created.
func cannotReadSecrets(as client.Client, ns string) {
	user := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "patches", Namespace: ns}, StringData: map[string]string{"calc": samplePatch}}
	Expect(k8s.Create(context.Background(), user)).To(Succeed())
	err := as.Get(context.Background(), client.ObjectKeyFromObject(user), &corev1.Secret{})
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "get a user's Secret: %v", err)
	err = as.List(context.Background(), &corev1.SecretList{}, client.InNamespace(ns))
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "list Secrets: %v", err)
	err = as.List(context.Background(), &corev1.SecretList{})
	Expect(apierrors.IsForbidden(err)).To(BeTrue(), "list every Secret: %v", err)
}

// managerOnClusterRole starts the manager as a user of its own bound to its generated
// ClusterRole, for a scenario in namespace ns.
func managerOnClusterRole(ns string) (stop func(), as client.Client) {
	role := managerRole("sweep-operator-manager-" + ns)
	userCfg, as := managerUser("sweep-manager-" + ns)
	Expect(k8s.Create(context.Background(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "sweep-manager-" + ns}},
	})).To(Succeed())
	return startManagerAs(userCfg, nil), as
}

var _ = Describe("the manager on its own RBAC", func() {
	It("runs a campaign on its ClusterRole, which creates Secrets and reads none", func() {
		ns := newNamespace()
		stop, as := managerOnClusterRole(ns)
		defer stop()
		runsOneTrial(kubelet{ns: ns}, "rbac")
		cannotReadSecrets(as, ns)
	})

	It("applies an exclusion list on its ClusterRole: it reads the list and creates the campaign's snapshot of it", func() {
		ns := newNamespace()
		stop, _ := managerOnClusterRole(ns)
		defer stop()
		makeTask(ns, "calc", 4).bugIDs("b1", "b2", "b3", "b4").create()
		Expect(k8s.Create(context.Background(), exclusionList(ns, "excl", exclusions.Entry{Task: "calc", Bug: "b4", Reason: exclusions.Flaky}))).To(Succeed())
		makeRun(ns, "rbac-excl").exclusions("excl").create()
		name := campaign.TrialName("rbac-excl", "calc", 1)
		Eventually(trialsIn(ns), timeout, poll).Should(HaveLen(1))
		Expect(kubelet{ns: ns}.trial(name).Spec.BugsTotal).To(Equal(int32(3)))
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: campaign.ExclusionsSnapshotName("rbac-excl")}, &corev1.ConfigMap{})).To(Succeed())
	})

	It("serves only the namespaces it watches, on RoleBindings there", func() {
		ns, other := newNamespace(), newNamespace()
		role := managerRole("sweep-operator-manager-" + ns)
		userCfg, as := managerUser("sweep-manager-" + ns)
		Expect(k8s.Create(context.Background(), &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "sweep-operator-manager", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "sweep-manager-" + ns}},
		})).To(Succeed())
		stop := startManagerAs(userCfg, []string{ns})
		defer stop()
		runsOneTrial(kubelet{ns: ns}, "served")
		cannotReadSecrets(as, ns)

		By("a namespace it does not watch is neither served nor readable")
		makeTask(other, "calc", 4).create()
		makeRun(other, "unserved").create()
		Consistently(func() int {
			trials := &evalv1.TaskTrialList{}
			Expect(k8s.List(context.Background(), trials, client.InNamespace(other))).To(Succeed())
			return len(trials.Items)
		}, 2*time.Second, poll).Should(BeZero())
		err := as.List(context.Background(), &corev1.ConfigMapList{}, client.InNamespace(other))
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "list task ConfigMaps elsewhere: %v", err)
	})
})
