package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
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
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/podcontract/podcontracttest"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestExport(t *testing.T) {
	srv := clitest.APIServer(t)
	cl := srv.Client
	ns := srv.Namespace(t)
	trials := clitest.CreateFinishedRun(t, cl, ns, "run1")
	ctx := context.Background()
	// What the trial controller stores: the patch after the agent, reward.json and eval.json
	// after the verifier.
	for _, tr := range trials[:5] {
		for name, data := range map[string]map[string][]byte{
			podbuild.ArtifactSecretName(tr.Name): {"model.patch": []byte("diff --git a/" + tr.Name + " b/" + tr.Name + "\n")},
			podbuild.ResultsSecretName(tr.Name):  {"reward.json": clitest.RewardJSON(t, tr.Status.Rewards), "eval.json": []byte(`{"schema": "sweep-eval/1"}`)},
		} {
			if err := cl.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "job")
	out, stderr, err := clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: dir}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	if want := "exported 6 trials of sweeprun run1 to " + dir + "\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	if !strings.Contains(stderr, "1 trials not finished yet were left out") {
		t.Errorf("stderr = %q, want a note on the unfinished trial", stderr)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, relErr := filepath.Rel(dir, p)
			files = append(files, rel)
			return relErr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	clitest.Golden(t, "export-files.txt", strings.Join(files, "\n")+"\n")
	for _, f := range []string{"result.json", "config.json"} {
		data, err := os.ReadFile(filepath.Join(dir, harborjob.FolderName(harborjob.Trial{Name: trials[5].Name, Task: "astropy"}), f))
		if err != nil {
			t.Fatal(err)
		}
		clitest.Golden(t, "export-error-trial-"+f, string(data))
	}
	patch, err := os.ReadFile(filepath.Join(dir, harborjob.FolderName(harborjob.Trial{Name: trials[0].Name, Task: "arrow"}), "artifacts", "model.patch"))
	if err != nil || string(patch) != "diff --git a/run1-arrow-1 b/run1-arrow-1\n" {
		t.Errorf("arrow attempt 1 model.patch = %q, %v", patch, err)
	}

	// The export reads back to the same report as the campaign in the cluster.
	fromCluster, _, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), PerTask: true, Format: clioptions.OutputJSON}, "run1")
	if err != nil {
		t.Fatal(err)
	}
	fromDir, _, err := clitest.Execute(ctx, &info.Options{PerTask: true, Format: clioptions.OutputJSON}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromCluster, fromDir); diff != "" {
		t.Errorf("info of the export differs from info of the campaign (-cluster +export):\n%s", diff)
	}

	_, _, err = clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns)}, "run1")
	sweeptest.ErrorContains(t, err, "flag -o/--output-dir is required", "-o jobs/run1")
	_, _, err = clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: dir}, "nope")
	sweeptest.ErrorContains(t, err, `sweeprun "nope" not found`)
}

// TestExportScoresAsTheCluster: a grader failure that wrote all four scoring keys is an
// evaluation failure of its task both in the cluster and in its export (SWE-sweep's rule), a
// bare one is skipped by both, and a Succeeded trial out of bounds for its declared bugs
// scores in neither (the export has no reward.json for it).
func TestExportScoresAsTheCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	cl := srv.Client
	ns := srv.Namespace(t)
	ctx := context.Background()
	run := clitest.MakeRun(ns, "run2").Tasks("a", "b", "c").Create(t, cl)
	nineKeyFailure := clitest.SweepRewards(3, 0, false)
	nineKeyFailure[reward.KeyGraderFailed] = "1"
	forged := clitest.SweepRewards(2, 2, true)
	forged[reward.KeySubtasks], forged[reward.KeyResolved] = "1000", "1000"
	for _, w := range []*clitest.TrialWrapper{
		clitest.MakeTrial(run, "a", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(3, 2, true)),
		clitest.MakeTrial(run, "a", 2).Phase(evalv1.TrialFailed).Reason(reasons.GraderFailed, "grader_failed").Rewards(nineKeyFailure),
		clitest.MakeTrial(run, "b", 1).Phase(evalv1.TrialFailed).Reason(reasons.GraderFailed, "grader_failed").
			Rewards(map[string]string{reward.KeyReward: "0", reward.KeyGraderFailed: "1"}),
		clitest.MakeTrial(run, "c", 1).Phase(evalv1.TrialSucceeded).Rewards(forged),
	} {
		w.Spec.BugsTotal = 3
		if w.Spec.Task == "c" {
			w.Spec.BugsTotal = 2
		}
		w.FinishWithEval(t, cl, `{}`)
	}
	dir := filepath.Join(t.TempDir(), "job")
	_, stderr, err := clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: dir}, "run2")
	if err != nil {
		t.Fatal(err)
	}
	if want := "trial run2-c-1: verifier/reward.json not exported: the trial was not measured (Succeeded), and SWE-sweep's scoring would count it\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	fromCluster, _, err := clitest.Execute(ctx, &info.Options{Cluster: srv.Cluster(ns), Format: clioptions.OutputJSON}, "run2")
	if err != nil {
		t.Fatal(err)
	}
	fromDir, _, err := clitest.Execute(ctx, &info.Options{Format: clioptions.OutputJSON}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromCluster, fromDir); diff != "" {
		t.Errorf("info of the export differs from info of the campaign (-cluster +export):\n%s", diff)
	}
	var got struct {
		Summary struct {
			GradedBugs         int      `json:"graded_bugs"`
			EvaluationFailures []string `json:"evaluation_failures"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(fromCluster), &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary.GradedBugs != 3 || !slices.Equal(got.Summary.EvaluationFailures, []string{"a"}) {
		t.Errorf("graded bugs %d, evaluation failures %q; want 3 and [a]:\n%s", got.Summary.GradedBugs, got.Summary.EvaluationFailures, fromCluster)
	}
}

// storeVerifierFiles stores a trial's results as the trial controller does: every file the
// collector sent, with its manifest, spread over the results Secrets.
func storeVerifierFiles(t *testing.T, cl client.Client, tr *evalv1.TaskTrial, files map[string][]byte, notKept []podcontract.VerifierFile) {
	t.Helper()
	records := podcontracttest.VerifierRecords(t, files, notKept...)
	for i, data := range podbuild.SplitResults(records, []string{podcontract.RecordReward, podcontract.RecordEval}, podbuild.MaxSecretPayload) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tr.Namespace, Name: podbuild.ResultsSecretNameAt(tr.Name, i)}, Data: data}
		if err := cl.Create(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
}

// Every file the verifier left is exported at its Harbor path byte for byte, a SWE-sweep
// grader failure's nine-key reward.json as written and an eval.json of several MiB among them;
// what was not kept, and a reward.json below verifier/, are named on stderr instead.
func TestExportWritesEveryVerifierFile(t *testing.T) {
	srv := clitest.APIServer(t)
	cl := srv.Client
	ns := srv.Namespace(t)
	ctx := context.Background()
	run := clitest.MakeRun(ns, "run3").Tasks("a").Create(t, cl)
	nineKeyFailure := clitest.SweepRewards(3, 0, false)
	nineKeyFailure[reward.KeyGraderFailed] = "1"
	tr := clitest.MakeTrial(run, "a", 1).Phase(evalv1.TrialFailed).Reason(reasons.GraderFailed, "the grader reported grader_failed").
		Rewards(nineKeyFailure).Create(t, cl)
	tr.Status.GraderFailed = true
	if err := cl.Status().Update(ctx, tr); err != nil {
		t.Fatal(err)
	}
	eval := make([]byte, 3<<20)
	for i := range eval {
		eval[i] = byte(i % 251)
	}
	written := map[string][]byte{
		// As SWE-sweep's grader writes it: its own layout, which no re-encoding keeps.
		"reward.json":             []byte(`{"reward": 0.0, "n_subtasks": 3, "n_resolved": 0, "n_partial": 0, "visible_ok": 0, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 0, "grader_failed": 1}` + "\n"),
		"eval.json":               eval,
		"eval_output.json":        []byte(`{"tests": []}`),
		"grader_error.txt":        []byte("Traceback (most recent call last):\n"),
		"test-stdout.txt":         []byte("ran\n"),
		"runs/bug 1/core.bin":     {0, 0xff, 0xfe, '\n', 0x80},
		"runs/bug 1/reward.json":  []byte(`{"reward": 1}`),
		"new\nline name.txt":      []byte("a name is data too"),
		"..dots-are-fine/file.md": []byte("#"),
	}
	notKept := []podcontract.VerifierFile{
		{Path: "huge.log", Output: podcontract.Output{Name: "huge.log", OriginalSize: 1 << 30, TooLarge: true}},
		{Path: "link", Output: podcontract.Output{Name: "link", Missing: true, Refused: "link is a symbolic link: refused: not a regular file"}},
	}
	storeVerifierFiles(t, cl, tr, written, notKept)
	dir := filepath.Join(t.TempDir(), "job")
	_, stderr, err := clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: dir}, "run3")
	if err != nil {
		t.Fatal(err)
	}
	verifier := filepath.Join(dir, harborjob.FolderName(harborjob.Trial{Name: tr.Name, Task: "a"}), harborjob.VerifierDir)
	for path, data := range written {
		got, err := os.ReadFile(filepath.Join(verifier, filepath.FromSlash(path)))
		if path == "runs/bug 1/reward.json" {
			if err == nil {
				t.Errorf("verifier/%s exported: SWE-sweep's scoring would read it as a second result", path)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("verifier/%s: %d bytes (%v), want the %d the verifier wrote", path, len(got), err, len(data))
		}
	}
	wantStderr := []string{
		"trial run3-a-1: verifier file \"runs/bug 1/reward.json\" not written: SWE-sweep's scoring reads every reward.json below a job, and would count it as another result of the trial",
		"trial run3-a-1: verifier file huge.log not exported: the collector did not keep it: 1073741824 bytes, more than the collector could send",
		"trial run3-a-1: verifier file link not exported: the collector did not keep it: link is a symbolic link: refused: not a regular file",
	}
	if diff := cmp.Diff(wantStderr, strings.Split(strings.TrimSpace(stderr), "\n")); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}
