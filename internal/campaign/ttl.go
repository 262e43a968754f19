package campaign

import (
	"time"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// Expiry says what spec.ttlSecondsAfterFinished asks of run at now: delete its trials, or
// look again after wait. A campaign with no TTL, not finished, or whose trials are deleted
// already gives neither.
func Expiry(run *evalv1.SweepRun, now time.Time) (wait time.Duration, expired bool) {
	ttl := run.Spec.TTLSecondsAfterFinished
	if ttl == nil || run.Status.CompletionTime == nil || run.Status.TrialsDeletedTime != nil {
		return 0, false
	}
	expires := run.Status.CompletionTime.Add(time.Duration(*ttl) * time.Second)
	if now.Before(expires) {
		return expires.Sub(now), false
	}
	return 0, true
}
