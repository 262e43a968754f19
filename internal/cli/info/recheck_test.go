package info

import (
	"fmt"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

func TestFlakeRechecksNote(t *testing.T) {
	trial := func(source string, rewards reward.Result) passk.Trial {
		return passk.Trial{Source: source, Trial: scoring.Trial{Task: source, Measured: true, Rewards: rewards}}
	}
	// One bug of one, resolved in a regression-free trial.
	cleared := func(n float64) reward.Result {
		return reward.Result{reward.KeyReward: 1, reward.KeySubtasks: 1, reward.KeyResolved: 1, reward.KeyVisibleOK: 1, reward.KeyRegressionsCleared: n}
	}
	var many []passk.Trial
	var names []string
	for i := range maxNamedTrials + 2 {
		many = append(many, trial(fmt.Sprintf("tasktrial t%d", i), cleared(1)))
		names = append(names, fmt.Sprintf("tasktrial t%d: 1", i))
	}
	tests := map[string]struct {
		trials []passk.Trial
		want   string
	}{
		"re-check off":        {trials: []passk.Trial{trial("tasktrial x", reward.Result{reward.KeyReward: 1}), {Source: "tasktrial y"}}},
		"on, nothing cleared": {trials: []passk.Trial{trial("tasktrial a", cleared(0))}, want: "flake re-check: on in 1 trials; regressions cleared by re-check: 0"},
		"on, some trials clear": {trials: []passk.Trial{trial("tasktrial a", cleared(0)), trial("tasktrial b", cleared(2)), trial("tasktrial c", reward.Result{})},
			want: "flake re-check: on in 2 trials; regressions cleared by re-check: 2 in 1 trials (tasktrial b: 2); score 1.0000, 0.5000 had they counted as regressions, as SWE-sweep counts them"},
		"many trials": {trials: many,
			want: fmt.Sprintf("flake re-check: on in %d trials; regressions cleared by re-check: %d in %d trials (%s and 2 more); score 1.0000, 0.0000 had they counted as regressions, as SWE-sweep counts them",
				len(many), len(many), len(many), strings.Join(names[:maxNamedTrials], ", "))},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := flakeRechecks(tc.trials); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			for _, tr := range tc.trials {
				if _, ok := tr.Rewards[reward.KeyRegressionsCleared]; ok && tr.Rewards[reward.KeyVisibleOK] != 1 {
					t.Errorf("%s: the note changed the trial's rewards: %v", tr.Source, tr.Rewards)
				}
			}
		})
	}
}
