//go:build e2e

package e2e

// A campaign kept in Git and applied by Flux (docs/gitops.md): hack/flux.sh installs Flux's
// source-controller and kustomize-controller, and the spec serves a Git repository of its own
// (test/e2e/gitserver) in the cluster's network namespace, commits to it and follows what Flux
// and the operator do with each commit.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

const (
	// fluxNamespace is where hack/flux.sh installs the controllers.
	fluxNamespace = "flux-system"
	// clusterNetns and nodeIP are hack/cluster.sh's: the network namespace every address of
	// the local cluster lives in, and the node's address there, which Pods reach.
	clusterNetns = "sweep-k8s"
	nodeIP       = "10.244.0.1"
	// fluxTimeout is the Kustomization's spec.timeout: how long one health check waits;
	// kustomize-controller's floor (a shorter one counts as 30 s).
	fluxTimeout = 30 * time.Second
	// fluxRetryInterval is the Kustomization's spec.retryInterval: how soon a failed health
	// check is run again, so how long after its campaign ends it can take Flux to say Ready.
	fluxRetryInterval = 5 * time.Second
	// fluxRequestedAt is the annotation `flux reconcile` sets to fetch and apply at once.
	fluxRequestedAt = "reconcile.fluxcd.io/requestedAt"
)

var (
	gitRepositoryGVK = schema.GroupVersionKind{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"}
	kustomizationGVK = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}
)

// gitRepo is a bare repository served read-only by test/e2e/gitserver on the node IP, inside
// the cluster's network namespace, and a working clone of it on the host that the spec
// commits to and pushes from (through the file system).
type gitRepo struct {
	// url is the repository's URL for Pods.
	url  string
	work string
}

// serveGitRepo starts the server for one empty repository until the spec ends.
func serveGitRepo(name string) *gitRepo {
	bin := filepath.Join(hostBinary("test/e2e/gitserver", "gitserver"), "gitserver")
	dir := GinkgoT().TempDir()
	served := filepath.Join(dir, "served")
	bare := filepath.Join(served, name+".git")
	gitIn(dir, "init", "--quiet", "--bare", "--initial-branch=main", bare)
	work := filepath.Join(dir, "work")
	gitIn(dir, "clone", "--quiet", bare, work)

	cmd := exec.Command("ip", "netns", "exec", clusterNetns, bin, "-listen", nodeIP+":0", "-root", served)
	stdout, err := cmd.StdoutPipe()
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	cmd.Stderr = GinkgoWriter
	ExpectWithOffset(1, cmd.Start()).To(Succeed())
	DeferCleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "gitserver said nothing")
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	ExpectWithOffset(1, ok).To(BeTrue(), "gitserver: %q", line)
	return &gitRepo{url: "http://" + addr + "/" + name + ".git", work: work}
}

func gitIn(dir string, args ...string) string {
	cmd := exec.Command("git", append([]string{"-c", "user.name=sweep e2e", "-c", "user.email=e2e@sweep.invalid"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// commit writes files (paths in the repository; an empty content deletes the file), commits
// everything and pushes it, and returns the revision as Flux names it.
func (g *gitRepo) commit(message string, files map[string]string) string {
	for path, content := range files {
		full := filepath.Join(g.work, path)
		if content == "" {
			ExpectWithOffset(1, os.Remove(full)).To(Succeed())
			continue
		}
		ExpectWithOffset(1, os.MkdirAll(filepath.Dir(full), 0o755)).To(Succeed())
		ExpectWithOffset(1, os.WriteFile(full, []byte(content), 0o644)).To(Succeed())
	}
	gitIn(g.work, "add", "--all")
	gitIn(g.work, "commit", "--quiet", "--message", message)
	gitIn(g.work, "push", "--quiet", "origin", "HEAD:main")
	return "main@sha1:" + gitIn(g.work, "rev-parse", "HEAD")
}

// addDir copies a directory of the host into the working clone at path.
func (g *gitRepo) addDir(path, from string) {
	ExpectWithOffset(1, os.CopyFS(filepath.Join(g.work, path), os.DirFS(from))).To(Succeed())
}

// fluxRun is the campaign committed to Git: a sample task solved by the oracle.
func fluxRun(name string, attempts int) string {
	return fmt.Sprintf(`apiVersion: eval.sweep.dev/v1alpha1
kind: SweepRun
metadata:
  name: %s
spec:
  tasks:
    names: [sweep-samples__textkit]
  agent:
    oracle: {}
  attempts: %d
  parallelism: 1
  resources:
    mode: Override
    override:
      requests: {cpu: 100m, memory: 128Mi}
`, name, attempts)
}

// fluxObjects are the GitRepository and the Kustomization that apply the repository's root
// to ns, with pruning and health checks on (docs/gitops.md, "Flux").
func fluxObjects(ns, name, url string) []*unstructured.Unstructured {
	repo := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"url": url, "ref": map[string]any{"branch": "main"},
			// the spec asks for each commit (fluxRequestedAt) rather than waiting for a poll
			"interval": "10m",
		},
	}}
	repo.SetGroupVersionKind(gitRepositoryGVK)
	ks := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"sourceRef":       map[string]any{"kind": gitRepositoryGVK.Kind, "name": name},
			"path":            "./",
			"targetNamespace": ns,
			"prune":           true,
			"wait":            true,
			"interval":        "10m",
			"retryInterval":   fluxRetryInterval.String(),
			"timeout":         fluxTimeout.String(),
		},
	}}
	ks.SetGroupVersionKind(kustomizationGVK)
	return []*unstructured.Unstructured{repo, ks}
}

// fluxGet reads a Flux object.
func fluxGet(gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	ExpectWithOffset(1, k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
	return u
}

// fluxReady is a Flux object's Ready condition, nil while it has none.
func fluxReady(u *unstructured.Unstructured) *metav1.Condition {
	raw, _, err := unstructured.NestedSlice(u.Object, "status", "conditions")
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	var conds []metav1.Condition
	for _, r := range raw {
		var c metav1.Condition
		ExpectWithOffset(1, runtime.DefaultUnstructuredConverter.FromUnstructured(r.(map[string]any), &c)).To(Succeed())
		conds = append(conds, c)
	}
	return meta.FindStatusCondition(conds, "Ready")
}

// fluxReconcile asks the GitRepository to fetch now, as `flux reconcile source git` does; the
// Kustomization follows the new revision at once.
func fluxReconcile(ns, name string) {
	repo := fluxGet(gitRepositoryGVK, ns, name)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, fluxRequestedAt, time.Now().Format(time.RFC3339Nano))
	ExpectWithOffset(1, k8s.Patch(context.Background(), repo, client.RawPatch(types.MergePatchType, []byte(patch)))).To(Succeed())
}

// appliedRevision is the Kustomization's last applied revision while it is Ready, else "".
func appliedRevision(ks *unstructured.Unstructured) string {
	if c := fluxReady(ks); c == nil || c.Status != metav1.ConditionTrue {
		return ""
	}
	rev, _, _ := unstructured.NestedString(ks.Object, "status", "lastAppliedRevision")
	return rev
}

// waitApplied waits until the Kustomization is Ready at rev.
func waitApplied(ns, name, rev string) {
	EventuallyWithOffset(1, func() string {
		return appliedRevision(fluxGet(kustomizationGVK, ns, name))
	}, 3*time.Minute, time.Second).Should(Equal(rev))
}

// crdValidationMessage is the message of the SweepRun CRD's validation rule on spec whose
// rule names field, as the API server has it.
func crdValidationMessage(field string) string {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	ExpectWithOffset(1, k8s.Get(context.Background(), client.ObjectKey{Name: "sweepruns." + evalv1.GroupVersion.Group}, crd)).To(Succeed())
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		rules, _, _ := unstructured.NestedSlice(v.(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "x-kubernetes-validations")
		for _, r := range rules {
			rule := r.(map[string]any)
			if strings.Contains(rule["rule"].(string), "self."+field+" ") {
				return rule["message"].(string)
			}
		}
	}
	Fail("the SweepRun CRD has no validation rule on spec." + field)
	return ""
}

// onlyNode is the local cluster's one node.
func onlyNode() string {
	nodes := &corev1.NodeList{}
	ExpectWithOffset(1, k8s.List(context.Background(), nodes)).To(Succeed())
	ExpectWithOffset(1, nodes.Items).To(HaveLen(1), "not the local cluster of hack/cluster.sh")
	return nodes.Items[0].Name
}

// jobUIDs is every Job of ns by name, with its UID.
func jobUIDs(ns string) map[string]types.UID {
	jobs := &batchv1.JobList{}
	ExpectWithOffset(1, k8s.List(context.Background(), jobs, client.InNamespace(ns))).To(Succeed())
	out := map[string]types.UID{}
	for _, j := range jobs.Items {
		out[j.Name] = j.UID
	}
	return out
}

// trialUIDs is every trial of a campaign by name, with its UID.
func trialUIDs(ns, run string) map[string]types.UID {
	out := map[string]types.UID{}
	for _, t := range trialsOf(ns, run) {
		out[t.Name] = t.UID
	}
	return out
}

// Serial: the spec cordons the one node, which would hold every other spec's Pods.
var _ = Describe("Flux", Ordered, Serial, func() {
	BeforeAll(func() {
		start := time.Now()
		hackScript("flux.sh", "up")
		AddReportEntry("flux install", time.Since(start).Round(time.Second).String())
		DeferCleanup(func() { hackScript("flux.sh", "down") })
	})

	It("applies a campaign committed to Git, is Ready only once it is complete, reruns nothing on a commit that changes nothing, reports an immutable change with the CRD's message, and prunes it keeping its records", func() {
		ctx := context.Background()
		const name, runName = "campaigns", "from-git"
		ns := fmt.Sprintf("e2e-flux-%d", os.Getpid()%10000)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() {
			_ = k8s.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		})
		repo := serveGitRepo(name)
		objs := fluxObjects(ns, name, repo.url)
		for _, o := range objs {
			Expect(k8s.Create(ctx, o)).To(Succeed())
		}
		// The Kustomization first, while kustomize-controller runs: its finalizer prunes what it
		// applied (the catalogue) before the namespace goes.
		DeferCleanup(func() {
			for i := len(objs) - 1; i >= 0; i-- {
				_ = k8s.Delete(ctx, objs[i])
			}
		})
		// On failure, what Flux said, before its objects go.
		DeferCleanup(func() {
			if !CurrentSpecReport().Failed() {
				return
			}
			for _, args := range [][]string{
				{"-n", fluxNamespace, "logs", "deployment/source-controller", "--tail=60"},
				{"-n", fluxNamespace, "logs", "deployment/kustomize-controller", "--tail=60"},
				{"-n", ns, "get", "gitrepositories,kustomizations", "-o", "yaml"},
			} {
				out, _ := exec.Command(kubectl, args...).CombinedOutput()
				GinkgoWriter.Printf("kubectl %s:\n%s\n", strings.Join(args, " "), out)
			}
		})

		By("commit 1: the task catalogue and a SweepRun, while the node takes no new Pod")
		// The node is cordoned until the Kustomization's first health check has timed out: the
		// campaign's trials wait for it, as on a full cluster, so that the campaign outlasts the
		// timeout whatever this machine's speed.
		node := onlyNode()
		run("cordon", node)
		cordoned := true
		DeferCleanup(func() {
			if cordoned {
				run("uncordon", node)
			}
		})
		repo.addDir("catalogue", filepath.Join(root, ".cache", "demo", "catalogue"))
		rev1 := repo.commit("a campaign: the catalogue and a SweepRun", map[string]string{
			"kustomization.yaml": "resources:\n- catalogue\n- sweeprun.yaml\n",
			"sweeprun.yaml":      fluxRun(runName, 1),
		})
		fluxReconcile(ns, name)
		start := time.Now()
		var healthCheckFailures []string
		// timedOut is the first health check failure that was a timeout (not a Stalled campaign).
		var timedOut string
		var held time.Duration
		sr := &evalv1.SweepRun{}
		Eventually(func(g Gomega) string {
			ks := fluxGet(kustomizationGVK, ns, name)
			err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: runName}, sr)
			if apierrors.IsNotFound(err) {
				return ""
			}
			g.Expect(err).NotTo(HaveOccurred())
			ready := fluxReady(ks)
			if ready != nil && ready.Reason == "HealthCheckFailed" && sr.Status.CompletionTime == nil &&
				(len(healthCheckFailures) == 0 || healthCheckFailures[len(healthCheckFailures)-1] != ready.Message) {
				healthCheckFailures = append(healthCheckFailures, ready.Message)
				if timedOut == "" && strings.Contains(ready.Message, "timeout waiting for") {
					timedOut = ready.Message
				}
			}
			if cordoned && timedOut != "" {
				g.Expect(trialsOf(ns, runName)).To(HaveLen(1), "the campaign had not started its trial")
				run("uncordon", node)
				cordoned = false
				held = time.Since(start)
			}
			rev := appliedRevision(ks)
			// Checked at every poll: Ready at this revision must mean complete.
			if rev == rev1 && sr.Status.CompletionTime == nil {
				StopTrying(fmt.Sprintf("the Kustomization is Ready at %s while its campaign runs (phase %s)", rev1, sr.Status.Phase)).Now()
			}
			return rev
		}, 8*time.Minute, time.Second).Should(Equal(rev1))
		readyAfter := time.Since(start)
		ready := fluxReady(fluxGet(kustomizationGVK, ns, name))
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: runName}, sr)).To(Succeed())
		Expect(sr.Status.Phase).To(Equal(evalv1.SweepRunSucceeded))
		Expect(sr.Status.Score).To(Equal("1.0000"))
		Expect(ready.LastTransitionTime.Before(sr.Status.CompletionTime)).To(BeFalse(),
			"Ready at %s, before the campaign completed at %s", ready.LastTransitionTime, sr.Status.CompletionTime)
		ran := sr.Status.CompletionTime.Sub(sr.CreationTimestamp.Time)
		Expect(ran).To(BeNumerically(">", fluxTimeout), "the campaign must outlast the Kustomization's timeout")
		Expect(timedOut).To(ContainSubstring("SweepRun/%s/%s", ns, runName), "the health check timed out on the campaign")
		AddReportEntry("flux campaign", fmt.Sprintf("campaign ran %s (timeout %s; node cordoned for the first %s); Kustomization Ready %s after the commit was fetched, %s after completion; health checks failed meanwhile: %d (the first timeout: %s)",
			ran.Round(time.Second), fluxTimeout, held.Round(time.Second), readyAfter.Round(time.Second), ready.LastTransitionTime.Sub(sr.Status.CompletionTime.Time),
			len(healthCheckFailures), timedOut))
		trials, jobs := trialUIDs(ns, runName), jobUIDs(ns)
		Expect(trials).To(HaveLen(1))
		uid, generation, completed := sr.UID, sr.Generation, sr.Status.CompletionTime
		Expect(sr.Status.Record).NotTo(BeNil(), "the campaign has no status.record")
		folder := sr.Status.Record.Folder

		By("commit 2: nothing the Kustomization applies changes; nothing reruns")
		rev2 := repo.commit("a commit that changes nothing Flux applies", map[string]string{"README.md": "Campaigns applied by Flux.\n"})
		fluxReconcile(ns, name)
		waitApplied(ns, name, rev2)
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: runName}, sr)).To(Succeed())
		Expect(sr.UID).To(Equal(uid), "the SweepRun was created again")
		Expect(sr.Generation).To(Equal(generation), "the SweepRun's spec changed")
		Expect(sr.Status.CompletionTime).To(Equal(completed))
		Expect(trialUIDs(ns, runName)).To(Equal(trials))
		Expect(jobUIDs(ns)).To(Equal(jobs), "a Job was created or deleted")

		By("commit 3: an immutable field changed in Git is refused with the CRD's message, and Flux says so")
		want := crdValidationMessage("attempts")
		rev3 := repo.commit("more attempts: refused, spec.attempts is immutable", map[string]string{"sweeprun.yaml": fluxRun(runName, 2)})
		fluxReconcile(ns, name)
		Eventually(func(g Gomega) {
			ks := fluxGet(kustomizationGVK, ns, name)
			attempted, _, _ := unstructured.NestedString(ks.Object, "status", "lastAttemptedRevision")
			g.Expect(attempted).To(Equal(rev3))
			g.Expect(fluxReady(ks)).To(And(Not(BeNil()), HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", "ReconciliationFailed"), HaveField("Message", ContainSubstring(want))))
		}, 3*time.Minute, time.Second).Should(Succeed())
		AddReportEntry("flux immutable change", fluxReady(fluxGet(kustomizationGVK, ns, name)).Message)
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: runName}, sr)).To(Succeed())
		Expect(sr.UID).To(Equal(uid), "the SweepRun was created again")
		Expect(sr.Spec.Attempts).To(Equal(int32(1)))
		Expect(trialUIDs(ns, runName)).To(Equal(trials))

		By("commit 4: the SweepRun removed from Git is pruned; its records stay in the store")
		rev4 := repo.commit("the campaign is over", map[string]string{
			"kustomization.yaml": "resources:\n- catalogue\n",
			"sweeprun.yaml":      "",
		})
		fluxReconcile(ns, name)
		waitApplied(ns, name, rev4)
		Eventually(func() bool {
			return apierrors.IsNotFound(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: runName}, &evalv1.SweepRun{}))
		}, 2*time.Minute, time.Second).Should(BeTrue(), "the SweepRun was not pruned")
		Eventually(func() int { return len(trialsOf(ns, runName)) }, 2*time.Minute, time.Second).Should(BeZero())
		jobDir := filepath.Join(volumeStoreDir(), filepath.FromSlash(folder))
		DeferCleanup(os.RemoveAll, jobDir)
		sweep := (&s3Store{}).Sweep
		Expect(infoScore(sweep, "file://"+jobDir)).To(BeNumerically("~", 1.0, 1e-9), "sweep info over the pruned campaign's job folder")
	})
})
