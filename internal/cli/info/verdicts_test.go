package info

import (
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

func TestSWEBenchVerdicts(t *testing.T) {
	trial := func(source string, hardened, official, scoresOfficial, differ float64) passk.Trial {
		return passk.Trial{Source: source, Trial: scoring.Trial{Rewards: reward.Result{reward.KeyReward: hardened,
			swebench.RewardHardenedResolved: hardened, swebench.RewardOfficialResolved: official,
			swebench.RewardScoresOfficial: scoresOfficial, swebench.RewardVerdictsDiffer: differ}}}
	}
	tests := map[string]struct {
		trials []passk.Trial
		want   string
	}{
		"no SWE-bench trial": {trials: []passk.Trial{{Source: "tasktrial x"}}},
		"verdicts that agree": {
			trials: []passk.Trial{trial("tasktrial a", 1, 1, 0, 0)},
			want:   "swebench: 1 trials scored by the hardened verdict; the hardened verdict resolves 1, the official 1; they agree on every trial",
		},
		"verdicts that differ": {
			trials: []passk.Trial{trial("tasktrial a", 1, 1, 1, 0), trial("tasktrial b", 0, 1, 1, 1)},
			want: "swebench: 2 trials scored by the official verdict; the hardened verdict resolves 1, the official 2; they differ on 1 (tasktrial b): " +
				"eval.json's verdict_difference says how and why, `sweep swebench report` lists them",
		},
		"a mix of scored verdicts": {
			trials: []passk.Trial{trial("tasktrial a", 1, 1, 1, 0), trial("tasktrial b", 1, 1, 0, 0)},
			want:   "swebench: 2 trials scored by the official verdict in 1 and the hardened in 1; the hardened verdict resolves 2, the official 2; they agree on every trial",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := swebenchVerdicts(tc.trials); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
