// Package progress summarises a running campaign for `sweep watch`: trials done, running and
// failed, the live score, an estimate of the time left, and the latest failures.
package progress

import (
	"fmt"
	"sort"
	"strings"
	"time"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// Snapshot is a campaign at one moment.
type Snapshot struct {
	Run    string
	Phase  evalv1.SweepRunPhase
	Total  int
	Done   int
	Active int
	// Queued counts the active trials whose stage's Job waits for its Kueue queue.
	Queued int
	// Failed counts finished trials that were not measured (Failed and Error).
	Failed  int
	Report  scoring.Report
	Elapsed time.Duration
	// Failures are the unmeasured trials, latest first.
	Failures []Failure
}

// Failure is one unmeasured trial and why.
type Failure struct {
	Trial, Task, Reason, Message string
	At                           time.Time
}

// Take computes a snapshot of run and its trials at now.
func Take(run *evalv1.SweepRun, trials []*evalv1.TaskTrial, now time.Time) Snapshot {
	// A campaign never has fewer trials than exist, whatever its spec says now.
	s := Snapshot{Run: run.Name, Phase: run.Status.Phase, Total: max(Total(run), len(trials))}
	var scored []scoring.Trial
	start := run.CreationTimestamp.Time
	if run.Status.StartTime != nil {
		start = run.Status.StartTime.Time
	}
	for i := range trials {
		tr := trials[i]
		if !tr.Status.Phase.Finished() {
			if tr.Status.Phase != "" && tr.Status.Phase != evalv1.TrialPending {
				s.Active++
			}
			if campaign.Queued(tr) {
				s.Queued++
			}
			continue
		}
		s.Done++
		st := campaign.ScoringTrial(tr)
		scored = append(scored, st)
		if !st.Measured {
			s.Failed++
			f := Failure{Trial: tr.Name, Task: tr.Spec.Task, Reason: tr.Status.Reason, Message: tr.Status.Message, At: tr.CreationTimestamp.Time}
			if tr.Status.CompletionTime != nil {
				f.At = tr.Status.CompletionTime.Time
			}
			s.Failures = append(s.Failures, f)
		}
	}
	// Latest first; ties (timestamps have seconds) in reverse name order, so that the reverse
	// of the list is in the order things happened, then by name.
	sort.Slice(s.Failures, func(i, j int) bool {
		a, b := s.Failures[i], s.Failures[j]
		if !a.At.Equal(b.At) {
			return a.At.After(b.At)
		}
		return a.Trial > b.Trial
	})
	s.Report = scoring.Score(scored)
	if !start.IsZero() {
		s.Elapsed = now.Sub(start)
	}
	return s
}

// Total is the campaign's trial count: the controller's, else tasks named × attempts. It is 0
// while a selector's tasks are not yet counted.
func Total(run *evalv1.SweepRun) int {
	if run.Status.Trials.Total > 0 {
		return int(run.Status.Trials.Total)
	}
	if run.Spec.Tasks.Selector != nil {
		return 0
	}
	return len(run.Spec.Tasks.Names) * int(max(run.Spec.Attempts, 1))
}

// Finished reports whether the campaign ended: its phase says so, or every trial finished.
func (s Snapshot) Finished() bool {
	return s.Phase == evalv1.SweepRunSucceeded || s.Phase == evalv1.SweepRunFailedPh || (s.Total > 0 && s.Done >= s.Total)
}

// ETA is the time left at the pace so far; false until a trial finished.
func (s Snapshot) ETA() (time.Duration, bool) {
	if s.Done == 0 || s.Total == 0 || s.Elapsed <= 0 {
		return 0, false
	}
	left := s.Total - s.Done
	return time.Duration(float64(s.Elapsed) / float64(s.Done) * float64(left)).Round(time.Second), true
}

// barWidth is the width of the bar between brackets.
const barWidth = 20

// Line is the one-line summary: bar, counts, score and ETA.
func (s Snapshot) Line() string {
	var b strings.Builder
	if s.Total > 0 {
		filled := s.Done * barWidth / s.Total
		b.WriteString("[" + strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled) + "] ")
		fmt.Fprintf(&b, "%d/%d done", s.Done, s.Total)
	} else {
		fmt.Fprintf(&b, "%d done", s.Done)
	}
	fmt.Fprintf(&b, ", %d running", s.Active)
	if s.Queued > 0 {
		// Among the running ones: their Jobs wait for admission by their Kueue queue.
		fmt.Fprintf(&b, " (%d queued)", s.Queued)
	}
	fmt.Fprintf(&b, ", %d failed, score %s (%.2f/%d bugs)", s.Failed,
		scoring.Format(s.Report.Score), s.Report.ResolvedBugs, s.Report.GradedBugs)
	if eta, ok := s.ETA(); ok && !s.Finished() {
		fmt.Fprintf(&b, ", ETA %s", eta)
	}
	return b.String()
}

// String is one failure's line.
func (f Failure) String() string {
	reason := f.Reason
	if reason == "" {
		reason = "no reason recorded"
	}
	if f.Message == "" {
		return fmt.Sprintf("failed: %s (task %s): %s", f.Trial, f.Task, reason)
	}
	return fmt.Sprintf("failed: %s (task %s): %s: %s", f.Trial, f.Task, reason, f.Message)
}
