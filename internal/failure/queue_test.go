package failure

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func TestAdmit(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	for _, tc := range []struct {
		name       string
		obs        Stage
		prev, want Admission
		reason     string
	}{
		{name: "created suspended, never admitted",
			obs:  Stage{Suspended: true, Now: at(5)},
			want: Admission{}, reason: reasons.WaitingForAdmission},
		{name: "admitted: its start is remembered",
			obs:  Stage{JobStarted: at(7), Now: at(8)},
			want: Admission{Admitted: at(7)}, reason: reasons.Admitted},
		{name: "unsuspended before the Job controller set a start",
			obs:  Stage{Now: at(8)},
			want: Admission{}, reason: reasons.Admitted},
		{name: "running on, nothing changes",
			obs:  Stage{JobStarted: at(7), Now: at(60)},
			prev: Admission{Admitted: at(7)}, want: Admission{Admitted: at(7)}, reason: reasons.Admitted},
		{name: "suspended again after its admission: one eviction",
			obs:  Stage{Suspended: true, Now: at(70)},
			prev: Admission{Admitted: at(7)}, want: Admission{Evicted: at(70), Evictions: 1}, reason: reasons.QueueEvicted},
		{name: "still waiting after the eviction: counted once",
			obs:  Stage{Suspended: true, Now: at(90)},
			prev: Admission{Evicted: at(70), Evictions: 1}, want: Admission{Evicted: at(70), Evictions: 1}, reason: reasons.QueueEvicted},
		{name: "admitted again after the eviction: the same Job, a new start",
			obs:  Stage{JobStarted: at(100), Now: at(101)},
			prev: Admission{Evicted: at(70), Evictions: 1}, want: Admission{Admitted: at(100), Evicted: at(70), Evictions: 1}, reason: reasons.Admitted},
		{name: "suspended and admitted again between two looks: counted from the new start",
			obs:  Stage{JobStarted: at(100), Now: at(101)},
			prev: Admission{Admitted: at(7)}, want: Admission{Admitted: at(100), Evicted: at(100), Evictions: 1}, reason: reasons.Admitted},
		{name: "a second eviction",
			obs:  Stage{Suspended: true, Now: at(200)},
			prev: Admission{Admitted: at(100), Evicted: at(70), Evictions: 1}, want: Admission{Evicted: at(200), Evictions: 2}, reason: reasons.QueueEvicted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.obs.Stage = podcontract.StageAgent
			got, state := Admit(tc.obs, tc.prev, "team-a")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("admission (-want +got):\n%s", diff)
			}
			if state.Reason != tc.reason {
				t.Errorf("reason %q, want %q (%s)", state.Reason, tc.reason, state.Message)
			}
			if state.Waiting() != (tc.reason != reasons.Admitted) {
				t.Errorf("Waiting() = %v for reason %s", state.Waiting(), state.Reason)
			}
		})
	}
}

// TestEvictedStageIsNotClassified: a Job Kueue suspended again, whose Pod the Job controller
// deleted (terminated, its main container killed), is neither finished, timed nor failed.
func TestEvictedStageIsNotClassified(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	obs := Stage{Stage: podcontract.StageAgent, Suspended: true, JobCreated: t0, Now: t0.Add(time.Hour), StartTimeout: time.Minute,
		Pod: &Pod{Terminal: true, Started: true, StartedAt: t0.Add(time.Second)}}
	if v := Classify(obs); v.Done {
		t.Errorf("an evicted stage was classified: %+v", v)
	}
	if d := obs.RecheckAfter(); d != 0 {
		t.Errorf("RecheckAfter = %s for a Job waiting in its queue, want 0 (Job events wake the trial)", d)
	}
}
