package info

import (
	"fmt"
	"maps"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// maxNamedTrials bounds the trials a note names.
const maxNamedTrials = 10

// flakeRechecks is a note on the trials graded with the bundle grader's flake re-check on
// (their results carry reward.KeyRegressionsCleared): how many, how many visible regressions it
// cleared in all and in which trials, and the score had they counted, as SWE-sweep counts
// them, so that a reader sees how much the option changed; "" when no trial had it on.
func flakeRechecks(trials []passk.Trial) string {
	var rechecked, cleared int
	var named []string
	for _, t := range trials {
		n, ok := t.Rewards[reward.KeyRegressionsCleared]
		if !ok {
			continue
		}
		rechecked++
		if n > 0 {
			cleared += int(n)
			named = append(named, fmt.Sprintf("%s: %d", t.Source, int(n)))
		}
	}
	if rechecked == 0 {
		return ""
	}
	note := fmt.Sprintf("flake re-check: on in %d trials; regressions cleared by re-check: %d", rechecked, cleared)
	if len(named) == 0 {
		return note
	}
	withCleared, more := len(named), ""
	if len(named) > maxNamedTrials {
		more = fmt.Sprintf(" and %d more", len(named)-maxNamedTrials)
		named = named[:maxNamedTrials]
	}
	return note + fmt.Sprintf(" in %d trials (%s%s); score %s, %s had they counted as regressions, as SWE-sweep counts them",
		withCleared, strings.Join(named, ", "), more,
		scoring.Format(scoring.Score(ScoringTrials(trials)).Score), scoring.Format(scoring.Score(uncleared(trials)).Score))
}

// uncleared are the scoring inputs of trials with the regressions the re-check cleared
// counted again: such a trial is regressed, its reward 0.
func uncleared(trials []passk.Trial) []scoring.Trial {
	out := ScoringTrials(trials)
	for i, t := range out {
		n := t.Rewards[reward.KeyRegressionsCleared]
		if n <= 0 {
			continue
		}
		r := maps.Clone(t.Rewards)
		r[reward.KeyVisibleOK], r[reward.KeyReward] = 0, 0
		r[reward.KeyRegressions] += n
		out[i].Rewards = r
	}
	return out
}
