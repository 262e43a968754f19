// Package statusevents decides the Events a status change produces on a SweepRun or a
// TaskTrial: one for each phase change, each retry (with its reason) and each failure reason.
// The reconcilers emit them only after the status write that made the change succeeded, so
// that an Event never reports a change the API server did not keep.
package statusevents

import (
	"fmt"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// Event is one Event, in the fields of events.k8s.io/v1: its reason is one of
// api/v1alpha1/reasons.
type Event struct {
	Type   string
	Reason string
	Action string
	Note   string
}

// Actions of the Events.
const (
	// ActionChangePhase: the object's phase changed; the note says from what to what.
	ActionChangePhase = "ChangePhase"
	// ActionRetry: a trial's stage runs again in a new Job after a failure; on a SweepRun, a
	// retry request (`sweep retry`) was handled.
	ActionRetry = "Retry"
	// ActionRegrade: on a SweepRun, a regrade request (`sweep regrade`) was handled.
	ActionRegrade = "Regrade"
	// ActionRecordReason: a trial recorded a failure reason and goes on (an agent that timed
	// out is still verified).
	ActionRecordReason = "RecordReason"
	// ActionStall: a campaign became Stalled without changing phase.
	ActionStall = "Stall"
)

// MaxNoteBytes is the longest note events.k8s.io/v1 accepts.
const MaxNoteBytes = 1024

// ForTrial is the Events of a trial whose status went from old to new: a Warning for each
// retry, with the retry's reason; one for each phase change, a Warning when the trial ends
// with a failure reason (Failed, Error, or scored after an agent failure); and a Warning for a
// failure reason recorded while the trial goes on.
func ForTrial(old, new *evalv1.TaskTrialStatus) []Event {
	var out []Event
	retried := new.InfrastructureRetries > old.InfrastructureRetries || new.VerifierRetries > old.VerifierRetries
	if retried && new.Reason != "" {
		out = append(out, Event{Type: corev1.EventTypeWarning, Reason: new.Reason, Action: ActionRetry, Note: clip(new.Message)})
	}
	reported := retried
	if new.Phase != old.Phase {
		if new.Phase.Finished() {
			out = append(out, event(new.Phase, new.Reason, ActionChangePhase, phaseNote(string(old.Phase), string(new.Phase), new.Message)))
			reported = true
		} else {
			out = append(out, Event{Type: corev1.EventTypeNormal, Reason: reasons.TrialRunning, Action: ActionChangePhase,
				Note: phaseNote(string(old.Phase), string(new.Phase), "")})
		}
	}
	if !reported && new.Reason != old.Reason && failure(new.Reason) {
		out = append(out, event(new.Phase, new.Reason, ActionRecordReason, new.Message))
	}
	return dropUnnamed(out)
}

// ForSweepRun is the Events of a campaign whose status went from old to new: one for each
// phase change, with the reason of its Ready condition (Resumed when it leaves Suspended), a
// Warning when it fails or stalls; and a Warning when it becomes Stalled in the same phase
// (its trials failing on infrastructure); before those, one for each retry or regrade request
// it handled (reason Retrying, the note saying what it reruns).
func ForSweepRun(old, new *evalv1.SweepRunStatus) []Event {
	ready := meta.FindStatusCondition(new.Conditions, evalv1.ConditionReady)
	if ready == nil {
		return nil
	}
	stalled := meta.IsStatusConditionTrue(new.Conditions, evalv1.ConditionStalled)
	typ := corev1.EventTypeNormal
	if stalled || new.Phase == evalv1.SweepRunFailedPh {
		typ = corev1.EventTypeWarning
	}
	var out []Event
	if r := new.Retry; r != nil && (old.Retry == nil || old.Retry.Token != r.Token) {
		out = append(out, Event{Type: corev1.EventTypeNormal, Reason: reasons.Retrying, Action: ActionRetry, Note: clip(r.Message)})
	}
	if r := new.Regrade; r != nil && (old.Regrade == nil || old.Regrade.Token != r.Token) {
		out = append(out, Event{Type: corev1.EventTypeNormal, Reason: reasons.Retrying, Action: ActionRegrade, Note: clip(r.Message)})
	}
	was := meta.FindStatusCondition(old.Conditions, evalv1.ConditionStalled)
	switch {
	case new.Phase != old.Phase:
		reason := ready.Reason
		if old.Phase == evalv1.SweepRunSuspend && new.Phase == evalv1.SweepRunRunning {
			reason = reasons.Resumed
		}
		out = append(out, Event{Type: typ, Reason: reason, Action: ActionChangePhase,
			Note: phaseNote(string(old.Phase), string(new.Phase), ready.Message)})
	case stalled && (was == nil || was.Status != metav1.ConditionTrue || was.Reason != ready.Reason):
		out = append(out, Event{Type: typ, Reason: ready.Reason, Action: ActionStall, Note: clip(ready.Message)})
	}
	return dropUnnamed(out)
}

// event is an Event of a trial in phase with reason: a Warning when the reason is a failure.
func event(phase evalv1.TrialPhase, reason, action, note string) Event {
	typ := corev1.EventTypeNormal
	if failure(reason) || phase == evalv1.TrialFailed || phase == evalv1.TrialError {
		typ = corev1.EventTypeWarning
	}
	return Event{Type: typ, Reason: reason, Action: action, Note: clip(note)}
}

// failure reports whether a trial's reason says something went wrong: every reason but the
// two of a stage or a trial that ended normally.
func failure(reason string) bool {
	return reason != "" && reason != reasons.Graded && reason != reasons.Completed
}

func phaseNote(from, to, message string) string {
	note := "phase " + to
	if from != "" {
		note = fmt.Sprintf("phase %s → %s", from, to)
	}
	if message != "" {
		note += ": " + message
	}
	return clip(note)
}

// clip cuts a note to MaxNoteBytes on a rune boundary.
func clip(s string) string {
	if len(s) <= MaxNoteBytes {
		return s
	}
	const ellipsis = "…"
	cut := MaxNoteBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// dropUnnamed leaves out Events without a reason, which events.k8s.io/v1 refuses.
func dropUnnamed(events []Event) []Event {
	out := events[:0]
	for _, e := range events {
		if e.Reason != "" {
			out = append(out, e)
		}
	}
	return out
}
