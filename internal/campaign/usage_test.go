package campaign

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

func TestRecordUsage(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	dollars := func(d usage.Dollars) *usage.Dollars { return &d }
	var st evalv1.TaskTrialStatus
	RecordUsage(&st, nil, "")
	if st.Usage != nil {
		t.Fatalf("a run that reported nothing set status.usage %+v", st.Usage)
	}
	// Two runs of the agent stage (an infrastructure retry): both were paid for.
	RecordUsage(&st, &usage.Usage{InputTokens: n(100), CacheTokens: n(10), CostUSD: dollars(100_000_000)}, "")
	RecordUsage(&st, &usage.Usage{InputTokens: n(50), OutputTokens: n(5), CostUSD: dollars(200_000_000)}, "")
	want := &evalv1.TrialUsage{AgentUsage: evalv1.AgentUsage{InputTokens: n(150), CachedTokens: n(10), OutputTokens: n(5), CostUSD: "0.30"}}
	if diff := cmp.Diff(want, st.Usage); diff != "" {
		t.Errorf("status.usage (-want +got):\n%s", diff)
	}
	// A third run whose file was malformed adds nothing and says why.
	RecordUsage(&st, nil, "usage file usage.json not taken: not a JSON object")
	want.Message = "usage file usage.json not taken: not a JSON object"
	if diff := cmp.Diff(want, st.Usage); diff != "" {
		t.Errorf("status.usage (-want +got):\n%s", diff)
	}
}

func TestSumUsage(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	trial := func(name string, u *evalv1.TrialUsage, labels map[string]string) *evalv1.TaskTrial {
		tr := &evalv1.TaskTrial{Status: evalv1.TaskTrialStatus{Usage: u}}
		tr.Name, tr.Labels = name, labels
		return tr
	}
	reported := func(input, output int64, cost string) *evalv1.TrialUsage {
		return &evalv1.TrialUsage{AgentUsage: evalv1.AgentUsage{InputTokens: n(input), OutputTokens: n(output), CostUSD: cost}}
	}
	if got := SumUsage([]*evalv1.TaskTrial{trial("a", nil, nil), trial("b", &evalv1.TrialUsage{Message: "not taken"}, nil)}); got != nil {
		t.Errorf("SumUsage of trials that reported nothing = %+v, want nil", got)
	}
	trials := []*evalv1.TaskTrial{
		trial("t-a1", reported(100, 10, "0.10"), map[string]string{evalv1.LabelSupersededBy: "t-a1-r1"}),
		trial("t-a1-r1", reported(200, 20, "0.20"), nil),
		// A regrade of t-a1-r1 ran no agent: it reports nothing of its own.
		trial("t-a1-r2", nil, map[string]string{evalv1.LabelRerun: "2"}),
		trial("t-b1", reported(1, 1, ""), nil),
		trial("t-c1", nil, nil),
	}
	want := &evalv1.UsageTotals{Trials: 3, AgentUsage: evalv1.AgentUsage{InputTokens: n(301), OutputTokens: n(31), CostUSD: "0.30"}}
	if diff := cmp.Diff(want, SumUsage(trials)); diff != "" {
		t.Errorf("SumUsage (-want +got):\n%s", diff)
	}
}
