package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

func TestExport(t *testing.T) {
	cl, kubeconfig := apiServer(t)
	ns := testNamespace(t, cl)
	trials := createFinishedRun(t, cl, ns, "run1")
	ctx := context.Background()
	// What the trial controller stores: the patch after the agent, reward.json and eval.json
	// after the verifier.
	for _, tr := range trials[:5] {
		for name, data := range map[string]map[string][]byte{
			podbuild.ArtifactSecretName(tr.Name): {"model.patch": []byte("diff --git a/" + tr.Name + " b/" + tr.Name + "\n")},
			podbuild.ResultsSecretName(tr.Name):  {"reward.json": rewardJSON(t, tr.Status.Rewards), "eval.json": []byte(`{"schema": "sweep-eval/1"}`)},
		} {
			if err := cl.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "job")
	out, stderr, err := runIn(t, kubeconfig, ns, "export", "run1", "-o", dir)
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
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "export-files.txt", strings.Join(files, "\n")+"\n")
	for _, f := range []string{"result.json", "config.json"} {
		data, err := os.ReadFile(filepath.Join(dir, harborjob.FolderName(harborjob.Trial{Name: trials[5].Name, Task: "astropy"}), f))
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "export-error-trial-"+f, string(data))
	}
	patch, err := os.ReadFile(filepath.Join(dir, harborjob.FolderName(harborjob.Trial{Name: trials[0].Name, Task: "arrow"}), "artifacts", "model.patch"))
	if err != nil || string(patch) != "diff --git a/run1-arrow-1 b/run1-arrow-1\n" {
		t.Errorf("arrow attempt 1 model.patch = %q, %v", patch, err)
	}

	// The export reads back to the same report as the campaign in the cluster.
	fromCluster, _, err := runIn(t, kubeconfig, ns, "info", "run1", "--per-task", "--json")
	if err != nil {
		t.Fatal(err)
	}
	fromDir, _, err := runSweepSplit(t, "info", dir, "--per-task", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromCluster, fromDir); diff != "" {
		t.Errorf("info of the export differs from info of the campaign (-cluster +export):\n%s", diff)
	}

	_, _, err = runIn(t, kubeconfig, ns, "export", "run1")
	errorContains(t, err, "flag -o/--output-dir is required", "-o jobs/run1")
	_, _, err = runIn(t, kubeconfig, ns, "export", "nope", "-o", dir)
	errorContains(t, err, `sweeprun "nope" not found`)
}

// rewardJSON is the reward.json a verifier wrote for the numbers a trial status holds.
func rewardJSON(t *testing.T, rewards map[string]string) []byte {
	t.Helper()
	numbers := map[string]float64{}
	for k, v := range rewards {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		numbers[k] = f
	}
	data, err := json.Marshal(numbers)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
