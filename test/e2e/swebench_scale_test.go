//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/swebenchcli"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/test/swebenchgen"
)

// realInstances is how many instances of the Full-size import run: made on the sample
// repositories, whose images this spec builds; the others exist only as objects.
const realInstances = 50

// swebenchImage builds an evaluation image of a sample task's repository as SWE-bench's images
// hold one (at /testbed, its base commit tagged baseline), imports it into the cluster and
// returns its reference.
func swebenchImage(dir string) string {
	name := "swebench-" + dir
	emptyTests := GinkgoT().TempDir()
	images := filepath.Join(root, "hack", "images.sh")
	for _, args := range [][]string{
		{"task-images-from", name, filepath.Join(root, "tasks", dir, "environment", "repo"), emptyTests, swebench.DefaultWorkdir},
		{"import", filepath.Join(root, ".cache", "images", "tasks", name, "agent.tar")},
	} {
		cmd := exec.Command(images, args...)
		cmd.Stdout, cmd.Stderr = GinkgoWriter, GinkgoWriter
		ExpectWithOffset(1, cmd.Run()).To(Succeed(), "hack/images.sh %v", args)
	}
	ref, err := os.ReadFile(filepath.Join(root, ".cache", "images", "tasks", name, "agent.ref"))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return strings.TrimSpace(string(ref))
}

var plainTest = regexp.MustCompile(`(?m)^\+def (test_\w+)\(`)

// failToPass are the tests a bug's test patch adds that are not parametrized (their ids are
// the plain file::name the pytest log parser reads), and true; every added test and false when
// all are (those ids are not in the log: the instance is scored unresolved, whatever its fix).
func failToPass(testPatch string) ([]string, bool) {
	var file string
	var all, plain []string
	lines := strings.Split(testPatch, "\n")
	for i, l := range lines {
		if rest, ok := strings.CutPrefix(l, "+++ b/"); ok {
			file = rest
		}
		m := plainTest.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		all = append(all, file+"::"+m[1])
		prev := ""
		if i > 0 {
			prev = strings.TrimPrefix(lines[i-1], "+")
		}
		// A decorator above the test (parametrize's closing parenthesis, or a one-line one)
		// gives its ids parameters.
		if !strings.HasPrefix(prev, ")") && !strings.HasPrefix(prev, "@") {
			plain = append(plain, file+"::"+m[1])
		}
	}
	if len(plain) == 0 {
		return all, false
	}
	return plain, true
}

// sampleBug is a bug of a sample task: its test and fix patches, and its repository's image.
type sampleBug struct{ dir, name, test, fix, image string }

// nextBugOfRepo is the bug after bugs[k] of the same repository.
func nextBugOfRepo(bugs []sampleBug, k int) sampleBug {
	for j := 1; j < len(bugs); j++ {
		if b := bugs[(k+j)%len(bugs)]; b.dir == bugs[k].dir {
			return b
		}
	}
	return bugs[k]
}

// sampleSWEBenchInstances are n SWE-bench instances made of the bugs of the sample tasks (each
// bug's tests/bugs/<bug>/test.patch the test patch, at the repository's baseline), with their
// predictions: the bug's own fix for three in four, another bug's fix for the rest; and the
// instances that must resolve: those with their own fix whose tests the log names.
func sampleSWEBenchInstances(n int) ([]swebench.Instance, []string, map[string]bool) {
	var bugs []sampleBug
	for _, dir := range []string{"calc-engine", "textkit", "semverlite"} {
		image := swebenchImage(dir)
		names, err := os.ReadDir(filepath.Join(root, "tasks", dir, "tests", "bugs"))
		Expect(err).NotTo(HaveOccurred())
		for _, e := range names {
			read := func(f string) string {
				b, err := os.ReadFile(filepath.Join(root, "tasks", dir, "tests", "bugs", e.Name(), f))
				Expect(err).NotTo(HaveOccurred())
				return string(b)
			}
			bugs = append(bugs, sampleBug{dir: dir, name: e.Name(), test: read("test.patch"), fix: read("fix.patch"), image: image})
		}
	}
	var insts []swebench.Instance
	var patches []string
	resolves := map[string]bool{}
	for i := range n {
		b := bugs[i%len(bugs)]
		prediction := b.fix
		if i%4 == 3 {
			prediction = nextBugOfRepo(bugs, i%len(bugs)).fix
		}
		id := fmt.Sprintf("sweep-samples__%s-%d", b.dir, 1000+i)
		tests, named := failToPass(b.test)
		resolves[id] = named && i%4 != 3
		insts = append(insts, swebench.Instance{
			InstanceID: id, Repo: "sweep-samples/" + b.dir,
			BaseCommit: "baseline", EnvironmentSetupCommit: "baseline", Version: "1.0",
			TestPatch: b.test, FailToPass: tests, PassToPass: []string{},
			ProblemStatement: "Fix the " + b.name + " bug of " + b.dir + ".\n",
			Image:            b.image, LogParser: "parse_log_pytest",
		})
		patches = append(patches, prediction)
	}
	return insts, patches, resolves
}

// noConda gives the grader directories of the real instances the grading rules of images
// without SWE-bench's conda environment: no activation, pytest as the sample tasks run it.
func noConda(out string, insts []swebench.Instance) {
	for _, inst := range insts {
		path := filepath.Join(out, "graders", catalogue.ResourceName(inst.InstanceID), swebench.GradingFile)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		cfg := map[string]any{}
		Expect(json.Unmarshal(b, &cfg)).To(Succeed())
		cfg["setup"], cfg["test_command"] = []string{}, "python3 -B -m pytest -rA -p no:cacheprovider"
		b, err = json.Marshal(cfg)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
	}
}

var _ = Describe("SWE-bench at Full's size", func() {
	It("applies a 2,294-instance import, and 50 of its instances, made on the sample repositories, run to a score", func() {
		ctx := context.Background()
		ns := fmt.Sprintf("e2e-swebench-full-%d", os.Getpid()%10000)
		Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		DeferCleanup(func() {
			_ = k8s.Delete(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		})

		By("a dataset of Full's size: 50 instances on the sample repositories, 2,244 made up, 20 KiB predictions")
		real, patches, resolves := sampleSWEBenchInstances(realInstances)
		files, err := swebenchgen.Write(GinkgoT().TempDir(), swebenchgen.Options{Instances: swebenchgen.FullInstances,
			Real: real, Patches: patches, PatchBytes: swebenchgen.FixedSize(20 << 10)})
		Expect(err).NotTo(HaveOccurred())
		o := &swebenchcli.ImportOptions{Instances: files.Instances, Predictions: files.Predictions, OutDir: filepath.Join(GinkgoT().TempDir(), "out"),
			Grading: string(swebench.V5), TimeoutSec: 300, Name: "full", NamespaceLess: true}
		start := time.Now()
		_, stderr, err := clitest.Execute(ctx, o)
		Expect(err).NotTo(HaveOccurred(), stderr)
		AddReportEntry("sweep swebench import of 2,294 instances", time.Since(start).String())
		noConda(o.OutDir, real)

		By("every object but the import's own SweepRun (it would run all 2,294) applies server-side")
		rendered, err := catalogue.Render(o.OutDir)
		Expect(err).NotTo(HaveOccurred())
		var objs []*unstructured.Unstructured
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
		for {
			obj := &unstructured.Unstructured{}
			err := dec.Decode(&obj.Object)
			if errors.Is(err, io.EOF) {
				break
			}
			Expect(err).NotTo(HaveOccurred())
			if obj.GetKind() == "SweepRun" {
				continue
			}
			obj.SetNamespace(ns)
			objs = append(objs, obj)
		}
		// Eight appliers at once, as kubectl's own apply does not: one at a time spends most of
		// the minute on round trips.
		start = time.Now()
		work := make(chan *unstructured.Unstructured)
		failures := make(chan error, len(objs))
		var appliers sync.WaitGroup
		for range 8 {
			appliers.Go(func() {
				for obj := range work {
					if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("e2e"), client.ForceOwnership); err != nil {
						failures <- fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
					}
				}
			})
		}
		for _, obj := range objs {
			work <- obj
		}
		close(work)
		appliers.Wait()
		close(failures)
		for err := range failures {
			Expect(err).NotTo(HaveOccurred())
		}
		objects := len(objs)
		Expect(objects).To(Equal(3*swebenchgen.FullInstances + 1))
		AddReportEntry("server-side apply of the import", fmt.Sprintf("%d objects in %s", objects, time.Since(start)))

		By("a campaign of the patch agent over the 50 real instances: each reads its own patch Secret")
		names := make([]string, len(real))
		for i, inst := range real {
			names[i] = inst.InstanceID
		}
		run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "full-50", Namespace: ns}, Spec: evalv1.SweepRunSpec{
			Tasks: evalv1.TaskSelection{Names: names}, Agent: evalv1.AgentSpec{Patch: &evalv1.PatchAgent{}},
			Attempts: 1, Parallelism: 10,
			Resources: &evalv1.ResourcePolicy{Mode: evalv1.ResourcesOverride, Override: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			}},
		}}
		Expect(k8s.Create(ctx, run)).To(Succeed())
		sr := waitFinished(ns, "full-50")
		trials := trialsOf(ns, "full-50")
		reportTrialTimes(trials)
		Expect(trials).To(HaveLen(realInstances))
		resolved := 0
		for _, t := range trials {
			Expect(t.Status.Phase).To(Equal(evalv1.TrialSucceeded), "%s: %s %s", t.Name, t.Status.Reason, t.Status.Message)
			Expect(t.Status.Score).NotTo(BeEmpty(), t.Name)
			Expect(t.Spec.Agent.Patch.SecretName).To(Equal(swebenchcli.PatchSecretName("full", t.Spec.Task)))
			want := "0.0000"
			if resolves[t.Spec.Task] {
				want = "1.0000"
				resolved++
			}
			Expect(t.Status.Score).To(Equal(want), "%s: resolved exactly when its prediction is its own fix and its tests are named in the log", t.Name)
		}
		Expect(sr.Status.GradedTrials).To(Equal(int32(realInstances)))
		AddReportEntry("resolved", fmt.Sprintf("%d of %d (its own fix, tests named in the log)", resolved, realInstances))
	})
})
