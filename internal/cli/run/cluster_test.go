package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/run"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

const manifest = `apiVersion: eval.sweep.dev/v1alpha1
kind: SweepRun
metadata:
  name: nightly
spec:
  tasks:
    names: [demo]
  agent:
    nop: {}
  attempts: 2
`

func writeManifest(t *testing.T, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestRunCreatesWithServerDefaults(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	apply := func(kubeconfig, file string) (string, error) {
		out, _, err := clitest.Execute(context.Background(), &run.Options{Cluster: clitest.Cluster(kubeconfig, ns), File: file})
		return out, err
	}
	out, err := apply(srv.Kubeconfig, writeManifest(t, manifest))
	if err != nil {
		t.Fatal(err)
	}
	if want := "sweeprun.eval.sweep.dev/nightly created in namespace " + ns + "\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	run := &evalv1.SweepRun{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly"}, run); err != nil {
		t.Fatal(err)
	}
	if run.Spec.Attempts != 2 || run.Spec.Parallelism != 10 || run.Spec.RetryPolicy.InfrastructureRetries != 3 {
		t.Errorf("spec = %+v: want attempts 2 from the file and the CRD's defaults for the rest", run.Spec)
	}
	out, err = apply(srv.Kubeconfig, writeManifest(t, manifest))
	if want := "sweeprun.eval.sweep.dev/nightly unchanged in namespace " + ns + "\n"; err != nil || out != want {
		t.Errorf("applying the same file again: %q, %v; want %q", out, err, want)
	}
	out, err = apply(srv.Kubeconfig, writeManifest(t, strings.Replace(manifest, "attempts: 2", "attempts: 2\n  parallelism: 4", 1)))
	if want := "sweeprun.eval.sweep.dev/nightly configured in namespace " + ns + "\n"; err != nil || out != want {
		t.Errorf("changing parallelism: %q, %v; want %q", out, err, want)
	}
	_, err = apply(srv.Kubeconfig, writeManifest(t, strings.Replace(manifest, "attempts: 2", "attempts: 3", 1)))
	sweeptest.ErrorContains(t, err, "applying sweeprun nightly in namespace "+ns, "spec.attempts is immutable: create a new SweepRun to change the attempts")
	_, err = apply(srv.Kubeconfig, writeManifest(t, strings.Replace(manifest, "nop: {}", "nop: {}\n    oracle: {}", 1)))
	sweeptest.ErrorContains(t, err, "set exactly one agent kind")
	_, err = apply(srv.Kubeconfig, writeManifest(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"))
	sweeptest.ErrorContains(t, err, `apiVersion "v1" kind "ConfigMap": want apiVersion "eval.sweep.dev/v1alpha1" kind "SweepRun"`)
	_, err = apply(srv.Kubeconfig, writeManifest(t, strings.Replace(manifest, "name: nightly", "labels: {}", 1)))
	sweeptest.ErrorContains(t, err, "metadata.name is empty")
	out, err = apply(srv.Kubeconfig, writeManifest(t, strings.Replace(manifest, "name: nightly", "generateName: nightly-", 1)))
	if err != nil || !strings.HasPrefix(out, "sweeprun.eval.sweep.dev/nightly-") || !strings.Contains(out, " created in namespace ") {
		t.Errorf("a manifest with generateName: %q, %v", out, err)
	}
	_, err = apply(srv.Kubeconfig, "")
	sweeptest.ErrorContains(t, err, "flag -f/--filename is required")
	bad := writeManifest(t, "spec: [unclosed")
	_, err = apply(srv.Kubeconfig, bad)
	sweeptest.ErrorContains(t, err, bad+": not YAML or JSON")
	_, err = apply(srv.UserKubeconfig(t, "nobody-run"), writeManifest(t, manifest))
	sweeptest.ErrorContains(t, err, "forbidden", "ask for create on sweepruns in this namespace; `sweep infra doctor` checks it")
}

func TestRunWatchFollowsUntilDone(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	stdout, _, done := clitest.Start(context.Background(), &run.Options{Cluster: srv.Cluster(ns), File: writeManifest(t, manifest), Watch: true})
	sweepRun := &evalv1.SweepRun{}
	clitest.WaitFor(t, "the SweepRun", func() bool {
		return cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "nightly"}, sweepRun) == nil
	})
	// Play the controllers: one trial graded, and once the watch showed it, one that failed
	// on its image.
	clitest.MakeTrial(sweepRun, "demo", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 1, true)).Create(t, cl)
	clitest.WaitFor(t, "the watch to show the first trial", func() bool { return strings.Contains(stdout.String(), "1/2 done") })
	clitest.MakeTrial(sweepRun, "demo", 2).Phase(evalv1.TrialError).Reason("ImagePullFailed", "reg/demo-env:1: not found").Create(t, cl)
	if err := clitest.Wait(t, "run --watch after every trial finished", done); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{
		"sweeprun.eval.sweep.dev/nightly created",
		"[##########..........] 1/2 done, 0 running, 0 failed, score 0.5000 (1.00/2 bugs)",
		"failed: nightly-demo-2 (task demo): ImagePullFailed: reg/demo-env:1: not found\n[####################] 2/2 done, 0 running, 1 failed, score 0.5000 (1.00/2 bugs)\n",
		"score:                                   0.5000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A bug subset the controller would refuse is refused before anything is applied; one it
// would take is applied as it is.
func TestRunRefusesBugSubset(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	apply := func(content string) (string, error) {
		out, _, err := clitest.Execute(context.Background(), &run.Options{Cluster: srv.Cluster(ns), File: writeManifest(t, content)})
		return out, err
	}
	subset := func(task, ids string) string {
		return strings.Replace(manifest, "names: [demo]", "names: [demo, hello]\n    bugs:\n      "+task+": "+ids, 1)
	}
	for bugs, want := range map[string][]string{
		subset("hello", "[b1]"):    {"sweeprun nightly in namespace " + ns, "not applied: BugSubsetUnsupported: " + `spec.tasks.bugs["hello"]: task hello is graded by its own tests/test.sh`},
		subset("demo", "[b1, b7]"): {"not applied: UnknownBugs: " + `spec.tasks.bugs["demo"] names bug ids that task demo does not have: b7; its bugs are b1,b2`},
		subset("demo", "[]"):       {"not applied: EmptyBugSubset: " + `spec.tasks.bugs["demo"] is empty`},
	} {
		_, err := apply(bugs)
		sweeptest.ErrorContains(t, err, want...)
	}
	list := &evalv1.SweepRunList{}
	clitest.Must(t, cl.List(context.Background(), list, client.InNamespace(ns)))
	if len(list.Items) != 0 {
		t.Fatalf("refused subsets applied %d SweepRuns", len(list.Items))
	}
	if out, err := apply(subset("demo", "[b2]")); err != nil || !strings.Contains(out, "nightly created") {
		t.Errorf("a subset of known ids: %q, %v", out, err)
	}
}

// -o prints the SweepRun the API server returned, in kubectl's formats.
func TestRunOutputFormats(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	file := writeManifest(t, manifest)
	for format, want := range map[string]string{
		"name":                               "sweeprun.eval.sweep.dev/nightly\n",
		"jsonpath={.spec.parallelism}":       "10",
		"custom-columns=NAME:.metadata.name": "NAME\nnightly\n",
	} {
		printer := clioptions.NewObjectPrintFlags("created")
		*printer.Print.OutputFormat = format
		out, _, err := clitest.Execute(context.Background(), &run.Options{Cluster: srv.Cluster(ns), File: file, Print: printer})
		if err != nil || out != want {
			t.Errorf("-o %s: %q, %v; want %q", format, out, err, want)
		}
	}
	printer := clioptions.NewObjectPrintFlags("created")
	*printer.Print.OutputFormat = "xml"
	_, _, err := clitest.Execute(context.Background(), &run.Options{Cluster: srv.Cluster(ns), File: file, Print: printer})
	sweeptest.ErrorContains(t, err, `flag -o/--output: want one of`, `got "xml"`)
	*printer.Print.OutputFormat = "name"
	_, _, err = clitest.Execute(context.Background(), &run.Options{Cluster: srv.Cluster(ns), File: file, Print: printer, Watch: true})
	sweeptest.ErrorContains(t, err, "flags -o/--output and --watch")
}

// A field a GitOps tool applied is its own: sweep run refuses to change it unless told to
// take it, and leaves the tool's other fields alone.
func TestRunKeepsAnotherManagersFields(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	ctx := context.Background()
	gitops := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(strings.Replace(manifest, "attempts: 2", "attempts: 2\n  parallelism: 4", 1)), &gitops.Object); err != nil {
		t.Fatal(err)
	}
	gitops.SetNamespace(ns)
	if err := cl.Apply(ctx, client.ApplyConfigurationFromUnstructured(gitops), client.FieldOwner("kustomize-controller")); err != nil {
		t.Fatal(err)
	}
	apply := func(o *run.Options) (string, error) {
		o.Cluster = clitest.Cluster(srv.Kubeconfig, ns)
		out, _, err := clitest.Execute(ctx, o)
		return out, err
	}
	changed := writeManifest(t, strings.Replace(manifest, "attempts: 2", "attempts: 2\n  parallelism: 6", 1))
	_, err := apply(&run.Options{File: changed})
	sweeptest.ErrorContains(t, err, "applying sweeprun nightly in namespace "+ns, `conflict with "kustomize-controller"`, ".spec.parallelism",
		"another field manager (a GitOps tool, or kubectl) owns those fields", "pass --force-conflicts to take them")
	got := &evalv1.SweepRun{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nightly"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Parallelism != 4 {
		t.Errorf("a refused apply changed parallelism to %d", got.Spec.Parallelism)
	}
	out, err := apply(&run.Options{File: changed, ForceConflicts: true})
	if want := "sweeprun.eval.sweep.dev/nightly configured in namespace " + ns + "\n"; err != nil || out != want {
		t.Errorf("with --force-conflicts: %q, %v; want %q", out, err, want)
	}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nightly"}, got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Parallelism != 6 {
		t.Errorf("parallelism = %d after --force-conflicts, want 6", got.Spec.Parallelism)
	}
}
