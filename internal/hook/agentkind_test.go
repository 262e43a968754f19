package hook

import (
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/agentkind"
)

// TestEveryAgentKindRuns: sweep-hook has a runner for the run mode of every agent kind.
func TestEveryAgentKindRuns(t *testing.T) {
	for _, d := range agentkind.All() {
		if agentRuns[d.Run] == nil {
			t.Errorf("agent kind %q: no runner for run mode %q in agentRuns", d.Name, d.Run)
		}
	}
}
