package campaign

import (
	"fmt"
	"slices"
	"strings"
	"time"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

// StallTrials is how many of a campaign's most recently finished trials must all have ended
// Error on infrastructure for the campaign to be Stalled. Each of them already spent its own
// infrastructure retries, so three in a row, none measured in between, say the cluster (an
// image, the nodes, a quota) fails every new trial, not one unlucky Pod.
const StallTrials = 3

// InfrastructureStall is a campaign whose last StallTrials finished trials all ended Error on
// infrastructure.
type InfrastructureStall struct {
	// Trials are those trials, the most recent last, and Reasons their reasons.
	Trials, Reasons []string
}

// FindInfrastructureStall reports the stall of a campaign with trials, nil when it has none:
// fewer than StallTrials trials finished, or one of the last StallTrials was measured, ended
// Failed (a verifier's failure, not the cluster's) or is an invalid task. Trials finished at
// the same time are ordered by name.
func FindInfrastructureStall(trials []evalv1.TaskTrial) *InfrastructureStall {
	var finished []*evalv1.TaskTrial
	for i := range trials {
		if trials[i].Status.Phase.Finished() {
			finished = append(finished, &trials[i])
		}
	}
	if len(finished) < StallTrials {
		return nil
	}
	slices.SortFunc(finished, func(a, b *evalv1.TaskTrial) int {
		if c := completedAt(a).Compare(completedAt(b)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	stall := &InfrastructureStall{}
	for _, t := range finished[len(finished)-StallTrials:] {
		if t.Status.Phase != evalv1.TrialError || t.Status.Reason == reasons.InvalidTask {
			return nil
		}
		stall.Trials = append(stall.Trials, t.Name)
		stall.Reasons = append(stall.Reasons, t.Status.Reason)
	}
	return stall
}

func completedAt(t *evalv1.TaskTrial) time.Time {
	if t.Status.CompletionTime == nil {
		return time.Time{}
	}
	return t.Status.CompletionTime.Time
}

// Message names the trials and their reasons, and what to do.
func (s *InfrastructureStall) Message() string {
	parts := make([]string, len(s.Trials))
	for i := range s.Trials {
		parts[i] = fmt.Sprintf("%s (%s)", s.Trials[i], s.Reasons[i])
	}
	return fmt.Sprintf("the last %d finished trials all ended Error on infrastructure, their retries spent: %s; new trials still start: "+
		"read the trials' messages (`kubectl describe tasktrial`) and fix the cluster (images, nodes, quotas)", len(s.Trials), strings.Join(parts, ", "))
}
