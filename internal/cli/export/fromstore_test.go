package export_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// readTree is every file below dir by its slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	clitest.Must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	}))
	return files
}

// A campaign whose cluster objects are gone exports from the store: the job folder as the
// manager recorded it, byte for byte, which scores as it did. No cluster is reached.
func TestExportFromStore(t *testing.T) {
	ctx := context.Background()
	const job = "../info/testdata/harbor-job"
	store := "file://" + t.TempDir()
	folder := clitest.StoreJob(t, store, job, "evals", "nightly", "0123abcd-0000")
	noCluster := clitest.Cluster("/nonexistent/kubeconfig", "evals")
	for _, url := range []string{store + "/" + folder, store + "/evals/nightly"} {
		t.Run(url, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "nightly")
			out, _, err := clitest.Execute(ctx, &export.Options{Cluster: noCluster, Dir: dir}, url)
			if err != nil {
				t.Fatal(err)
			}
			want := readTree(t, job)
			if diff := cmp.Diff(want, readTree(t, dir), cmp.Comparer(bytes.Equal)); diff != "" {
				t.Errorf("the copy differs from the recorded job (-recorded +copy):\n%s", diff)
			}
			if want := "copied 28 files of the job folder " + store + "/" + folder + " to " + dir + "\n"; out != want {
				t.Errorf("stdout %q, want %q", out, want)
			}
			fromJob, _, err := clitest.Execute(ctx, &info.Options{PerTask: true, Format: clioptions.OutputJSON}, job)
			clitest.Must(t, err)
			fromCopy, _, err := clitest.Execute(ctx, &info.Options{PerTask: true, Format: clioptions.OutputJSON}, dir)
			clitest.Must(t, err)
			if diff := cmp.Diff(fromJob, fromCopy); diff != "" {
				t.Errorf("info of the copy differs (-job +copy):\n%s", diff)
			}
		})
	}
	_, _, err := clitest.Execute(ctx, &export.Options{Cluster: noCluster, Dir: t.TempDir()}, store+"/evals/weekly")
	sweeptest.ErrorContains(t, err, "no job folder at "+store+"/evals/weekly", "job folders there: nightly-0123abcd")
	_, _, err = clitest.Execute(ctx, &export.Options{Cluster: noCluster}, store+"/evals/nightly")
	sweeptest.ErrorContains(t, err, "flag -o/--output-dir is required")
}
