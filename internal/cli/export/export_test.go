package export_test

import (
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

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
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
	if _, _, err := clitest.Execute(ctx, &export.Options{Cluster: srv.Cluster(ns), Dir: dir}, "run2"); err != nil {
		t.Fatal(err)
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
