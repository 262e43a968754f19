package campaign

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func TestExpiry(t *testing.T) {
	done := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	ttl := func(s int32) *int32 { return &s }
	cases := map[string]struct {
		ttl         *int32
		completed   bool
		deleted     bool
		now         time.Time
		wantWait    time.Duration
		wantExpired bool
	}{
		"no ttl":               {completed: true, now: done.Add(time.Hour)},
		"not finished":         {ttl: ttl(60), now: done.Add(time.Hour)},
		"waits for the rest":   {ttl: ttl(60), completed: true, now: done.Add(20 * time.Second), wantWait: 40 * time.Second},
		"expires on the dot":   {ttl: ttl(60), completed: true, now: done.Add(time.Minute), wantExpired: true},
		"zero deletes at once": {ttl: ttl(0), completed: true, now: done, wantExpired: true},
		"trials deleted once":  {ttl: ttl(60), completed: true, deleted: true, now: done.Add(time.Hour)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			run := &evalv1.SweepRun{Spec: evalv1.SweepRunSpec{TTLSecondsAfterFinished: tc.ttl}}
			if tc.completed {
				run.Status.CompletionTime = &metav1.Time{Time: done}
			}
			if tc.deleted {
				run.Status.TrialsDeletedTime = &metav1.Time{Time: done.Add(time.Minute)}
			}
			wait, expired := Expiry(run, tc.now)
			if wait != tc.wantWait || expired != tc.wantExpired {
				t.Errorf("Expiry = (%s, %v), want (%s, %v)", wait, expired, tc.wantWait, tc.wantExpired)
			}
		})
	}
}
