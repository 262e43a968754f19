package swebenchcli

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// importSwebench runs import on the test dataset into a new folder and returns it and stdout.
func importSwebench(t *testing.T, change func(*ImportOptions)) (string, string) {
	t.Helper()
	o := importOptions(t)
	if change != nil {
		change(o)
	}
	stdout, stderr, err := clitest.Execute(context.Background(), o)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	return o.OutDir, strings.ReplaceAll(stdout, o.OutDir, "OUT")
}

// reportOptions are the flags' defaults.
func reportOptions(cluster *clioptions.Cluster) *ReportOptions {
	return &ReportOptions{Cluster: cluster, Attempt: 1}
}

func TestSwebenchImport(t *testing.T) {
	out, stdout := importSwebench(t, func(o *ImportOptions) {
		o.Grading, o.ImageTemplate = string(swebench.V41), "mirror.example/sweb.eval.x86_64.{id}:v1"
	})
	clitest.Golden(t, "import.txt", stdout)
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "import.yaml", string(rendered))

	// Each task definition is one the operator reads as intended.
	data, err := os.ReadFile(filepath.Join(out, "tasks", "calc--calc-1", "task.toml"))
	if err != nil {
		t.Fatal(err)
	}
	task, err := taskdef.Parse("task.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{task.Name, task.Environment.Workdir, task.Artifacts[0].Source, task.Bugs, task.Verifier.TimeoutSec, task.Metadata[MetadataInstanceID], len(task.Collect),
		task.Agent.NetworkMode, task.Verifier.NetworkMode}
	want := []any{"calc__calc-1", "/testbed", "/logs/artifacts/model.patch", 1, float64(swebench.DefaultTimeoutSec + VerifierMarginSec), "calc__calc-1", 1,
		taskdef.NetworkNone, taskdef.NetworkNone}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task.toml read back (-want +got):\n%s", diff)
	}
	// The grader directory is one the grader accepts.
	in, err := swebench.ReadGraderDir(filepath.Join(out, "graders", "calc--calc-2"))
	if err != nil {
		t.Fatal(err)
	}
	if in.Version != swebench.V41 || in.Instance.Patch != "" || in.Timeout().Seconds() != swebench.DefaultTimeoutSec {
		t.Errorf("grader dir: version %s, gold patch %q, timeout %s", in.Version, in.Instance.Patch, in.Timeout())
	}

	// The API server takes every object, the SweepRun included.
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.ApplyRendered(t, cl, ns, rendered)
	cms := &corev1.ConfigMapList{}
	if err := cl.List(context.Background(), cms, client.InNamespace(ns), client.MatchingLabels{ImportLabel: "swebench"}, client.HasLabels{evalv1.LabelTask}); err != nil || len(cms.Items) != 2 {
		t.Errorf("the SweepRun's selector finds %d task ConfigMaps (%v), want 2", len(cms.Items), err)
	}
	run, err := campaigns.GetSweepRun(context.Background(), cl, ns, "swebench")
	if err != nil {
		t.Fatal(err)
	}
	if p := run.Spec.RetryPolicy; p.InfrastructureRetries != 3 || p.BackoffSeconds != 10 {
		t.Errorf("the SweepRun does not get the CRD's retry defaults: %+v", p)
	}
}

// Two imports of one dataset, named apart, apply to one namespace side by side: every object is
// named after its import, and each SweepRun selects its own tasks, whose trials read their own
// patch Secrets.
func TestSwebenchImportsShareANamespace(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	ctx := context.Background()
	for _, name := range []string{"model-a", "model-b"} {
		out, _ := importSwebench(t, func(o *ImportOptions) { o.Name = name })
		rendered, err := catalogue.Render(out)
		if err != nil {
			t.Fatal(err)
		}
		clitest.ApplyRendered(t, cl, ns, rendered)
	}
	for _, name := range []string{"model-a", "model-b"} {
		run, err := campaigns.GetSweepRun(ctx, cl, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		cms := &corev1.ConfigMapList{}
		if err := cl.List(ctx, cms, client.InNamespace(ns), client.MatchingLabels(run.Spec.Tasks.Selector.MatchLabels), client.HasLabels{evalv1.LabelTask}); err != nil {
			t.Fatal(err)
		}
		var secrets []string
		for i := range cms.Items {
			spec := campaign.TrialSpec(run, campaign.Task{Name: cms.Items[i].Labels[evalv1.LabelTask], ConfigMap: &cms.Items[i]}, 1)
			patch := &corev1.Secret{}
			if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: spec.Agent.Patch.SecretName}, patch); err != nil {
				t.Fatalf("import %s, task %s: %v", name, spec.Task, err)
			}
			if _, ok := patch.Data[spec.Task]; !ok || patch.Labels[ImportLabel] != name {
				t.Errorf("import %s: Secret %s holds keys %v, labels %v", name, patch.Name, slices.Sorted(maps.Keys(patch.Data)), patch.Labels)
			}
			secrets = append(secrets, patch.Name)
		}
		slices.Sort(secrets)
		want := []string{PatchSecretName(name, "calc__calc-1"), PatchSecretName(name, "calc__calc-2")}
		if diff := cmp.Diff(want, secrets); diff != "" {
			t.Errorf("import %s: the trials' patch Secrets (-want +got):\n%s", name, diff)
		}
	}
}

func TestSwebenchImportNamespace(t *testing.T) {
	out, _ := importSwebench(t, func(o *ImportOptions) { o.NamespaceLess, o.Cluster = false, clitest.Cluster("", "evals") })
	data, err := os.ReadFile(filepath.Join(out, catalogue.KustomizationFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "namespace: evals\n") {
		t.Errorf("kustomization.yaml lacks the namespace of -n:\n%s", data)
	}
}

// swebenchTrial creates the trial the campaign controller would for task attempt 1, in phase,
// with a results Secret holding results (none when nil).
func swebenchTrial(t *testing.T, cl client.Client, run *evalv1.SweepRun, task string, phase evalv1.TrialPhase, results map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	cms := &corev1.ConfigMapList{}
	if err := cl.List(ctx, cms, client.InNamespace(run.Namespace), client.MatchingLabels{evalv1.LabelTask: task}); err != nil || len(cms.Items) != 1 {
		t.Fatalf("task %s: %d ConfigMaps, %v", task, len(cms.Items), err)
	}
	tr := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: campaign.TrialName(run.Name, task, 1),
			Labels: map[string]string{evalv1.LabelSweepRun: run.Name, evalv1.LabelTask: task}},
		Spec: campaign.TrialSpec(run, campaign.Task{Name: task, ConfigMap: &cms.Items[0]}, 1),
	}
	if err := cl.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.Phase = phase
	if err := cl.Status().Update(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if results != nil {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: podbuild.ResultsSecretName(tr.Name)}, Data: results}
		if err := cl.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSwebenchReport(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	report := func(name string) (string, string, error) {
		return clitest.Execute(context.Background(), reportOptions(srv.Cluster(ns)), name)
	}
	out, _ := importSwebench(t, nil)
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	clitest.ApplyRendered(t, cl, ns, rendered)
	run, err := campaigns.GetSweepRun(context.Background(), cl, ns, "swebench")
	if err != nil {
		t.Fatal(err)
	}

	// Before any trial, every submitted instance is pending.
	_, stderr, err := report("swebench")
	if want := "sweeprun swebench: 2 submitted instances have no finished trial yet and count as errors"; err != nil || !strings.Contains(stderr, want) {
		t.Errorf("%v; stderr %q lacks %q", err, stderr, want)
	}

	resolved := `{"calc__calc-1": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true, "infra_failure": false}}`
	swebenchTrial(t, cl, run, "calc__calc-1", evalv1.TrialSucceeded, map[string][]byte{
		podcontract.RecordSWEBenchReport: []byte(resolved),
		podcontract.RecordEval: []byte(`{"schema": "sweep-swebench-eval/1", "instance_id": "calc__calc-1", "grading_version": "5", "resolved": true,
			"scored_verdict": "hardened", "verdict_difference": "hardened verdict resolved, official verdict unresolved (invalid run: the test command exited 1 but no test failed or errored)"}`),
	})
	swebenchTrial(t, cl, run, "calc__calc-2", evalv1.TrialAgentRunning, nil)
	stdout, stderr, err := report("swebench")
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "report-running.json", stdout)
	if want := "sweeprun swebench: 1 submitted instances have no finished trial yet"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}

	// The second instance ends as an error instance: its verifier wrote no report.json.
	tr := &evalv1.TaskTrial{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: campaign.TrialName("swebench", "calc__calc-2", 1)}, tr); err != nil {
		t.Fatal(err)
	}
	tr.Status.Phase = evalv1.TrialSucceeded
	if err := cl.Status().Update(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = report("swebench")
	if err != nil || stderr != "" {
		t.Fatalf("%v %s", err, stderr)
	}
	clitest.Golden(t, "report-done.json", stdout)

	// A broken report.json names its Secret.
	broken := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podbuild.ResultsSecretName(tr.Name)},
		Data: map[string][]byte{podcontract.RecordSWEBenchReport: []byte("[]")}}
	if err := cl.Create(context.Background(), broken); err != nil {
		t.Fatal(err)
	}
	_, _, err = report("swebench")
	sweeptest.ErrorContains(t, err, "secret "+ns+"/"+broken.Name, "key report.json of trial "+tr.Name, "not a SWE-bench report.json")
}

func TestSwebenchReportErrors(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	ctx := context.Background()
	report := func(name string, attempt int32) (string, error) {
		o := reportOptions(srv.Cluster(ns))
		o.Attempt = attempt
		out, _, err := clitest.Execute(ctx, o, name)
		return out, err
	}
	_, err := report("nope", 1)
	sweeptest.ErrorContains(t, err, `sweeprun "nope" not found in namespace "`+ns+`"`)

	run := clitest.MakeRun(ns, "sweep-tasks").Tasks("calc").Create(t, cl)
	clitest.MakeTrial(run, "calc", 1).Phase(evalv1.TrialSucceeded).Create(t, cl)
	_, err = report("sweep-tasks", 1)
	sweeptest.ErrorContains(t, err, "trial sweep-tasks-calc-1 (task calc) is not graded by the SWE-bench grader", "sweep info sweep-tasks")

	// A SweepRun of its own over SWE-bench tasks: the instance comes from each trial's task.toml.
	trialOf := func(run *evalv1.SweepRun, task, definition string) {
		t.Helper()
		tr := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: campaign.TrialName(run.Name, task, 1), Labels: map[string]string{evalv1.LabelSweepRun: run.Name}},
			Spec: evalv1.TaskTrialSpec{SweepRun: run.Name, Task: task, Attempt: 1, Grader: "swebench", Definition: definition, Agent: run.Spec.Agent,
				Images: evalv1.TrialImages{Agent: "img", Verifier: "img"}}}
		if err := cl.Create(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	bare := clitest.MakeRun(ns, "bare").Tasks("x").Create(t, cl)
	trialOf(bare, "x", "name = \"x\"\n")
	_, err = report("bare", 1)
	sweeptest.ErrorContains(t, err, "trial bare-x-1: task x's task.toml has no [metadata] swebench_instance_id", "sweep swebench import")

	own := clitest.MakeRun(ns, "own").Tasks("y").Create(t, cl)
	trialOf(own, "y", "name = \"y\"\n[metadata]\nswebench_instance_id = \"y__y-1\"\n")
	stdout, err := report("own", 1)
	if err != nil || !strings.Contains(stdout, `"error_ids": [
    "y__y-1"
  ]`) {
		t.Errorf("report of a SweepRun not written by import: %v\n%s", err, stdout)
	}
	_, err = report("own", 2)
	sweeptest.ErrorContains(t, err, "sweeprun own has no trials of attempt 2 yet")

	// A SweepRun labelled by an import whose record is missing, then broken.
	own.Labels = map[string]string{ImportLabel: "lost"}
	if err := cl.Update(ctx, own); err != nil {
		t.Fatal(err)
	}
	_, err = report("own", 1)
	sweeptest.ErrorContains(t, err, "sweeprun own is labelled eval.sweep.dev/swebench-import=lost but configmap "+ns+"/lost-import cannot be read", "kubectl apply -k")
	record := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "lost-import"}, Data: map[string]string{ImportRecordKey: "{"}}
	if err := cl.Create(ctx, record); err != nil {
		t.Fatal(err)
	}
	_, err = report("own", 1)
	sweeptest.ErrorContains(t, err, "configmap "+ns+"/lost-import key import.json", "sweep swebench import")
}

// An instance the campaign's exclusion list leaves out is removed from the dataset, as
// SWE-bench removes one: it is not in total_instances, and not an error instance.
func TestSwebenchReportExclusions(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	ctx := context.Background()
	out, _ := importSwebench(t, nil)
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	clitest.ApplyRendered(t, cl, ns, rendered)
	run, err := campaigns.GetSweepRun(ctx, cl, ns, "swebench")
	if err != nil {
		t.Fatal(err)
	}
	list, err := exclusions.List{Entries: []exclusions.Entry{{Task: taskName("calc__calc-2"), Reason: exclusions.Listed, Detail: "on the maintainers' list"}}}.Encode()
	clitest.Must(t, err)
	snapshot := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: campaign.ExclusionsSnapshotName("swebench")},
		Data: map[string]string{exclusions.ConfigMapKey: string(list)}}
	clitest.Must(t, cl.Create(ctx, snapshot))
	run.Status.Exclusions = &evalv1.ExclusionsStatus{ConfigMapName: "excl", Snapshot: snapshot.Name, TasksExcluded: 1, BugsExcluded: 1,
		ByReason: []evalv1.ExclusionCount{{Reason: "listed", Tasks: 1, Bugs: 1}}}
	clitest.Must(t, cl.Status().Update(ctx, run))
	swebenchTrial(t, cl, run, "calc__calc-1", evalv1.TrialSucceeded, map[string][]byte{
		podcontract.RecordSWEBenchReport: []byte(`{"calc__calc-1": {"patch_is_None": false, "patch_exists": true, "patch_successfully_applied": true, "resolved": true}}`),
	})

	stdout, stderr, err := clitest.Execute(ctx, reportOptions(srv.Cluster(ns)), "swebench")
	if err != nil || stderr != "" {
		t.Fatalf("%v %s", err, stderr)
	}
	var rep swebench.CampaignReport
	clitest.Must(t, json.Unmarshal([]byte(stdout), &rep))
	// Of the dataset's 4 instances: calc-1 resolved, calc-3 an empty patch, calc-4 without a
	// prediction, calc-2 excluded.
	if rep.TotalInstances != 3 || rep.ResolvedInstances != 1 || rep.ErrorInstances != 0 || strings.Contains(stdout, "calc__calc-2") {
		t.Errorf("report %s: want 3 instances, calc__calc-2 left out", stdout)
	}

	clitest.Must(t, cl.Delete(ctx, snapshot))
	_, _, err = clitest.Execute(ctx, reportOptions(srv.Cluster(ns)), "swebench")
	sweeptest.ErrorContains(t, err, "sweeprun swebench applies the exclusion list of configmap "+snapshot.Name+", which cannot be read")
}
