package campaigns

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestCreateHint(t *testing.T) {
	noKind := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "eval.sweep.dev", Kind: "SweepRun"}, SearchedVersions: []string{"v1alpha1"}}
	sweeptest.ErrorContains(t, CreateHint(noKind), `no matches for kind "SweepRun"`, "install the CRDs (kubectl apply -f config/crd/bases)")
	plain := errors.New("boom")
	if got := CreateHint(plain); got != plain {
		t.Errorf("an error without a known cause: %v, want it unchanged", got)
	}
}

func TestCheckTrialsKept(t *testing.T) {
	deleted := metav1.NewTime(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	pruned := func(rec *evalv1.JobRecordStatus) *evalv1.SweepRun {
		run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team-a"}}
		run.Status.TrialsDeletedTime, run.Status.Record = &deleted, rec
		return run
	}
	for name, tc := range map[string]struct {
		run  *evalv1.SweepRun
		want string
	}{
		"trials kept": {run: &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "team-a"}}},
		"deleted, with a store": {
			run:  pruned(&evalv1.JobRecordStatus{Store: "s3://results/campaigns/", Folder: "team-a/nightly-0123abcd/"}),
			want: "sweeprun nightly in namespace team-a has no trials: spec.ttlSecondsAfterFinished deleted them at 2026-03-01T10:00:00Z; its records are in the artifact store: sweep info s3://results/campaigns/team-a/nightly-0123abcd/",
		},
		"deleted, no store": {
			run:  pruned(nil),
			want: "sweeprun nightly in namespace team-a has no trials: spec.ttlSecondsAfterFinished deleted them at 2026-03-01T10:00:00Z; it had no artifact store, so only its status is left (kubectl get sweeprun nightly -n team-a -o yaml)",
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := CheckTrialsKept(tc.run)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
