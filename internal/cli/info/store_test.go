package info

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// A campaign's job folder in a store scores exactly as the same folder on disk, named by its
// own URL (status.record) or by STORE/NAMESPACE/SWEEPRUN.
func TestInfoStore(t *testing.T) {
	store := "file://" + t.TempDir()
	folder := clitest.StoreJob(t, store, "testdata/harbor-job", "evals", "nightly", "0123abcd-0000")
	want, err := execute(&Options{PerTask: true, Format: clioptions.OutputTable}, "testdata/harbor-job")
	clitest.Must(t, err)
	for _, url := range []string{store + "/" + folder, store + "/" + strings.TrimSuffix(folder, "/"), store + "/evals/nightly"} {
		t.Run(url, func(t *testing.T) {
			got, err := execute(&Options{PerTask: true, Format: clioptions.OutputTable}, url)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("from the store:\n%s\nwant, as from the directory:\n%s", got, want)
			}
		})
	}
}

// What info says of a stored file names it by the store's URL, not by a temporary copy.
func TestInfoStoreWarnings(t *testing.T) {
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{
		"job/config.json":               `{"job_name": "nightly"}`,
		"job/a__1/verifier/reward.json": `{"reward": 1, "n_subtasks": 2, "n_resolved": 2, "visible_ok": 1}`,
		"job/b__1/verifier/reward.json": `{"reward": NaN, "n_subtasks": 2, "n_resolved": 2, "visible_ok": 1}`,
	})
	store := "file://" + filepath.Join(dir, "store")
	folder := clitest.StoreJob(t, store, filepath.Join(dir, "job"), "evals", "nightly", "0123abcd")
	_, stderr, err := clitest.Execute(context.Background(), &Options{Format: clioptions.OutputTable}, store+"/evals/nightly")
	clitest.Must(t, err)
	if want := "warning: skipped " + store + "/" + folder + "b__1/verifier/reward.json: not a JSON object"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, os.TempDir()+"/sweep-info-") {
		t.Errorf("stderr names the temporary copy:\n%s", stderr)
	}
}

// Each way a store URL can be wrong has its own message.
func TestInfoStoreErrors(t *testing.T) {
	dir := t.TempDir()
	store := "file://" + dir
	clitest.StoreJob(t, store, "testdata/harbor-job", "evals", "nightly", "0123abcd")
	clitest.StoreJob(t, store, "testdata/harbor-job", "evals", "nightly", "4567cdef")
	clitest.StoreJob(t, store, "testdata/harbor-job", "evals", "weekly", "89abcdef")
	sweeptest.WriteFiles(t, dir, map[string]string{"evals/empty-00000000/config.json": `{"job_name": "empty"}`})
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"scheme", "http://minio:9000/records", []string{`store URL "http://minio:9000/records": unknown scheme "http"`, "file://, s3://, gs:// or azblob://"}},
		{"no bucket", "s3:///evals/nightly", []string{"needs a bucket, e.g. s3://BUCKET/PREFIX"}},
		{"no directory", "file://" + dir + "/nowhere/evals/nightly", []string{"no job folder at file://" + dir + "/nowhere/evals/nightly", "store file://" + dir + "/nowhere/evals:", "no such file or directory", "as the machine you run sweep on sees it"}},
		{"no such campaign", store + "/evals/monthly", []string{"no job folder at " + store + "/evals/monthly", "no job folder monthly-<uid>/", "job folders there: empty-00000000, nightly-0123abcd, nightly-4567cdef, weekly-89abcdef"}},
		{"several", store + "/evals/nightly", []string{"2 campaigns named nightly have job folders in " + store + "/evals", "give one of " + store + "/evals/nightly-0123abcd/, " + store + "/evals/nightly-4567cdef/"}},
		{"store root", store, []string{"no job folder at " + store + ": it has no config.json", "STORE/NAMESPACE/SWEEPRUN-UID", "or STORE/NAMESPACE/SWEEPRUN"}},
		{"nothing recorded", store + "/evals/empty-00000000", []string{"no SWE-sweep reward.json found in the job folder " + store + "/evals/empty-00000000", "not recorded yet"}},
		{"empty bucket", "mem://records", []string{"mem://records holds no job folder (no config.json): give the job folder"}},
		{"bucket root", "s3://records?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true", []string{"check that s3://records", "is reachable from here"}},
		{"unreachable", "s3://records/evals/nightly?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true", []string{"check that s3://records/evals/nightly", "is reachable from here", "AWS_ACCESS_KEY_ID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execute(&Options{Format: clioptions.OutputTable}, tc.url)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("reading a missing file:// store created its directory")
	}
}
