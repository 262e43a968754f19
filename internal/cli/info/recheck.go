package info

import (
	"fmt"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// maxNamedTrials bounds the trials a note names.
const maxNamedTrials = 10

// flakeRechecks is a note on the trials graded with the bundle grader's flake re-check on
// (their results carry reward.KeyRegressionsCleared): how many, how many visible regressions it
// cleared in all and in which trials, so that a reader sees how much the option changed the
// score; "" when no trial had it on.
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
	return note + fmt.Sprintf(" in %d trials (%s%s), which SWE-sweep counts as regressions", withCleared, strings.Join(named, ", "), more)
}
