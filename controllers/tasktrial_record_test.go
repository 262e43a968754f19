package controllers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/podcontract/podcontracttest"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

func TestStoreRetryAfter(t *testing.T) {
	cases := []struct{ waited, want time.Duration }{
		{0, time.Second},
		{500 * time.Millisecond, time.Second},
		{3 * time.Second, 3 * time.Second},
		{time.Minute, time.Minute},
		{time.Hour, 2 * time.Minute},
	}
	for _, c := range cases {
		if got := storeRetryAfter(c.waited); got != c.want {
			t.Errorf("storeRetryAfter(%s) = %s, want %s", c.waited, got, c.want)
		}
	}
}

func openTestStore(t testing.TB) (*recordstore.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := recordstore.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

func TestJobRecord(t *testing.T) {
	def, dir := openTestStore(t)
	run := func(store *evalv1.ArtifactStore) *evalv1.SweepRun {
		return &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: types.UID("0123456789abcdef")}, Spec: evalv1.SweepRunSpec{ArtifactStore: store}}
	}
	recorded := []*evalv1.TaskTrial{{Status: evalv1.TaskTrialStatus{Record: &evalv1.TrialRecordStatus{}}}, {}, {Status: evalv1.TaskTrialStatus{Record: &evalv1.TrialRecordStatus{}}}}
	cases := map[string]struct {
		stores *Stores
		run    *evalv1.SweepRun
		want   *evalv1.JobRecordStatus
	}{
		"no store":         {stores: nil, run: run(nil)},
		"no default store": {stores: &Stores{}, run: run(nil)},
		"the default store": {stores: &Stores{Default: def}, run: run(nil),
			want: &evalv1.JobRecordStatus{Store: "file://" + dir, Folder: "ns/r-01234567/", Trials: 2}},
		"the run's own store, credentials left out": {stores: &Stores{Default: def}, run: run(&evalv1.ArtifactStore{URL: "s3://user:pw@bucket/p?region=r"}),
			want: &evalv1.JobRecordStatus{Store: "s3://bucket/p?region=r", Folder: "ns/r-01234567/", Trials: 2}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, jobRecord(c.stores, c.run, recorded)); diff != "" {
				t.Errorf("jobRecord (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStoresFor(t *testing.T) {
	def, _ := openTestStore(t)
	own := func(url string) *evalv1.SweepRun {
		return &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}, Spec: evalv1.SweepRunSpec{ArtifactStore: &evalv1.ArtifactStore{URL: url}}}
	}
	stores := &Stores{Default: def}
	if got, err := stores.For(context.Background(), &evalv1.SweepRun{}); err != nil || got != def {
		t.Errorf("For(no store of its own) = %v, %v; want the default store", got, err)
	}
	if got, err := (*Stores)(nil).For(context.Background(), &evalv1.SweepRun{}); err != nil || got != nil {
		t.Errorf("For(no stores) = %v, %v; want none", got, err)
	}
	run := own("s3://bucket/p?region=us-east-1&endpoint=http://127.0.0.1:1")
	first, err := stores.For(context.Background(), run)
	if err != nil || first == nil || first == def {
		t.Fatalf("For(own store) = %v, %v; want the run's store", first, err)
	}
	if again, err := stores.For(context.Background(), run); err != nil || again != first {
		t.Errorf("For again = %p, %v; want the store opened before, %p", again, err, first)
	}
	_, err = stores.For(context.Background(), own("s3://bucket?use_path_style=maybe"))
	var wait *storeUnavailable
	if err == nil || !strings.HasPrefix(err.Error(), "sweeprun r: spec.artifactStore.url: ") || !errors.As(err, &wait) {
		t.Errorf("For(a URL that does not open) = %v; want the URL's error, as a wait for the store", err)
	}
}

// recordScope is a reconcile of trial i of a SweepRun whose records go to store, at the point
// its agent was harvested.
func recordScope(tb testing.TB, cl client.Client, store *recordstore.Store, run *evalv1.SweepRun, i int) *trialScope {
	tb.Helper()
	trial := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-calc-%d", run.Name, i), Namespace: run.Namespace,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: evalv1.GroupVersion.String(), Kind: "SweepRun", Name: run.Name, UID: run.UID, Controller: new(true)}}},
		Spec: evalv1.TaskTrialSpec{Task: "calc", Attempt: int32(i), BugsTotal: 3}}
	return &trialScope{r: &TaskTrialReconciler{Client: cl, Stores: &Stores{Default: store}}, trial: trial, now: now,
		task: &taskdef.Task{Artifacts: []taskdef.Artifact{{Source: "/logs/artifacts/model.patch"}}}}
}

// recordTrial harvests trial i's agent and verifier into the store and writes its record.
func recordTrial(tb testing.TB, cl client.Client, store *recordstore.Store, run *evalv1.SweepRun, i int, agent, verifier map[string][]byte) *trialScope {
	ctx := context.Background()
	s := recordScope(tb, cl, store, run, i)
	if err := s.recordAgent(ctx, agent); err != nil {
		tb.Fatal(err)
	}
	s.keepVerifierRecords(verifier)
	scoreStatus(&s.trial.Status, reward.Result{reward.KeyReward: 1, reward.KeySubtasks: 3, reward.KeyResolved: 3, reward.KeyVisibleOK: 1})
	s.finish(evalv1.TrialSucceeded, reasons.Graded, "score 1")
	if err := s.writeRecord(ctx); err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestWriteRecord(t *testing.T) {
	store, dir := openTestStore(t)
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: "0123456789"},
		Status: evalv1.SweepRunStatus{Images: []evalv1.PinnedImage{{Image: "agent:1", Digest: "sha256:aa"}}}}
	cl := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithObjects(run).Build()
	agent := map[string][]byte{podcontract.PatchKey: []byte("diff --git a/x b/x\n"), podcontract.RecordAgentLog: []byte("log\n")}
	verifier := podcontracttest.VerifierRecords(t, map[string][]byte{"reward.json": []byte(`{"reward": 1}`), "runs/out.txt": []byte("ok\n")})
	s := recordTrial(t, cl, store, run, 1, agent, verifier)

	rec := s.trial.Status.Record
	folder := "ns/r-01234567/" + harborjob.FolderName(harborjob.Trial{Name: "r-calc-1", Task: "calc"}) + "/"
	if rec == nil || rec.Folder != folder || rec.Store != "file://"+dir || rec.Files != 6 {
		t.Fatalf("status.record = %+v, want 6 files at %s", rec, folder)
	}
	for rel, want := range map[string]string{
		"agent/agent.log": "log\n", "artifacts/model.patch": "diff --git a/x b/x\n",
		"verifier/reward.json": `{"reward": 1}`, "verifier/runs/out.txt": "ok\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, folder, rel))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	job, err := os.ReadFile(filepath.Join(dir, "ns/r-01234567", harborjob.ConfigFile))
	if err != nil || !strings.Contains(string(job), `"agent:1": "sha256:aa"`) || !strings.Contains(string(job), `"exported_by": "sweep-operator"`) {
		t.Errorf("job config.json = %s, %v; want the pinned images and the operator as its writer", job, err)
	}

	// A second write of the same record, as after a restart, writes nothing.
	again := recordScope(t, cl, store, run, 1)
	again.trial.Status = *s.trial.Status.DeepCopy()
	again.keepVerifierRecords(verifier)
	p, err := again.recordPlace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	files, err := store.List(context.Background(), p.trial)
	if err != nil || len(files) != 6 {
		t.Fatalf("the store holds %v, %v; want 6 files", files, err)
	}
	before, _ := os.Stat(filepath.Join(dir, folder, harborjob.ResultFile))
	if err := again.writeRecord(context.Background()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(filepath.Join(dir, folder, harborjob.ResultFile))
	if !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("result.json written again: %s, then %s", before.ModTime(), after.ModTime())
	}
}

func TestWaitForStore(t *testing.T) {
	s := scopeFor(validSpec())
	s.trial.Status.Phase = evalv1.TrialVerifying
	before := s.trial.Status.DeepCopy()
	s.finish(evalv1.TrialSucceeded, reasons.Graded, "score 1")
	result, err := s.waitForStore(before, ctrl.Result{}, unavailable("writing %s: refused", "s3://b/k"))
	if err != nil || result.RequeueAfter != storeRetryMin {
		t.Fatalf("waitForStore = %+v, %v; want a requeue after %s", result, err, storeRetryMin)
	}
	st := s.trial.Status
	if st.Phase != evalv1.TrialVerifying || st.CompletionTime != nil || st.Reason != reasons.StoreUnavailable ||
		!strings.HasPrefix(st.Message, "waiting for the artifact store: writing s3://b/k: refused; retrying in 1s") {
		t.Errorf("status = %+v; want the trial back in Verifying, waiting for the store", st)
	}
	want := []metav1.Condition{{Type: evalv1.TrialRecorded, Status: metav1.ConditionFalse, Reason: reasons.StoreUnavailable, Message: st.Message, ObservedGeneration: 2}}
	if diff := cmp.Diff(want, withoutTimes(st.Conditions)); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}

	// Any other error is the reconcile's, as before.
	other := fmt.Errorf("api server gone")
	if _, err := s.waitForStore(before, ctrl.Result{}, other); err != other {
		t.Errorf("waitForStore(other error) = %v, want it returned", err)
	}
}

// BenchmarkRecordHarvest writes whole records (a 100 KiB patch, a 64 KiB agent log, a 256 KiB
// eval.json and three small verifier files) into a file:// store, as the trial controller
// does at its harvests.
func BenchmarkRecordHarvest(b *testing.B) {
	store, _ := openTestStore(b)
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "ns", UID: "0123456789"}}
	cl := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithObjects(run).Build()
	filled := func(n int) []byte {
		out := make([]byte, n)
		for i := range out {
			out[i] = byte('a' + i%26)
		}
		return out
	}
	agent := map[string][]byte{podcontract.PatchKey: filled(100 << 10), podcontract.RecordAgentLog: filled(64 << 10)}
	verifier := podcontracttest.VerifierRecords(b, map[string][]byte{"reward.json": []byte(`{"reward": 1}`), "eval.json": filled(256 << 10),
		"test-stdout.txt": filled(8 << 10), "report.json": filled(2 << 10)})
	var size int64
	b.ResetTimer()
	i := 0
	for b.Loop() {
		i++
		s := recordTrial(b, cl, store, run, i, agent, verifier)
		size += s.trial.Status.Record.Bytes
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(size)/(1<<20)/b.Elapsed().Seconds(), "MB/s")
}

func TestWriteRecordRefused(t *testing.T) {
	store, _ := openTestStore(t)
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns", UID: "0123456789"}}
	cl := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithObjects(run).Build()
	records := podcontracttest.VerifierRecords(t, map[string][]byte{"out.txt": []byte("ok\n")})
	records[podcontract.VerifierFileRecord("out.txt")] = []byte("changed\n")
	s := recordScope(t, cl, store, run, 1)
	s.keepVerifierRecords(records)
	s.finish(evalv1.TrialSucceeded, reasons.Graded, "score 1")
	if err := s.writeRecord(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := s.trial.Status
	if st.Record != nil || st.Phase != evalv1.TrialSucceeded {
		t.Errorf("status = %+v; want the trial finished without a record", st)
	}
	c := meta.FindStatusCondition(st.Conditions, evalv1.TrialRecorded)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != reasons.InvalidTask ||
		!strings.Contains(c.Message, "no record written to file://") || !strings.Contains(c.Message, "does not match the manifest's size and sha256") {
		t.Errorf("Recorded condition = %+v; want why no record was written", c)
	}
}
