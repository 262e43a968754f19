package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Decide's precedence: flaky, broken, trivial, unmeasured, valid.
func TestDecide(t *testing.T) {
	n := func(resolved, measured int) Count { return Count{Resolved: resolved, Measured: measured, Runs: 5} }
	flakyTest := []TestRuns{{Test: "tests/test_x.py::test_y", Agent: "oracle", Suite: SuiteBug, Outcomes: map[string]int{"passed": 3, "failed": 2}}}
	regression := []TestRuns{{Test: "tests/test_v.py::test_w", Agent: "oracle", Suite: SuiteVisible, Runs: 1}}
	cases := []struct {
		name       string
		ev         Evidence
		want       Verdict
		wantDetail string
	}{
		{"valid", Evidence{Oracle: n(5, 5), Nop: n(0, 5)}, Valid, "oracle resolved 5/5, nop 0/5"},
		{"broken: the oracle fails in one run", Evidence{Oracle: n(4, 5), Nop: n(0, 5)}, Broken, "oracle resolved 4/5, nop 0/5"},
		{"broken: a visible regression", Evidence{Oracle: n(5, 5), Nop: n(0, 5), Regressions: regression}, Broken,
			"oracle resolved 5/5, nop 0/5, regressions: tests/test_v.py::test_w (oracle 1)"},
		{"trivial: nop resolves it once", Evidence{Oracle: n(5, 5), Nop: n(1, 5)}, Trivial, "oracle resolved 5/5, nop 1/5"},
		{"flaky before broken", Evidence{Oracle: n(3, 5), Nop: n(0, 5), Flaky: flakyTest}, Flaky,
			"oracle resolved 3/5, nop 0/5, flaky: tests/test_x.py::test_y"},
		{"flaky before trivial", Evidence{Oracle: n(5, 5), Nop: n(2, 5), Flaky: flakyTest}, Flaky,
			"oracle resolved 5/5, nop 2/5, flaky: tests/test_x.py::test_y"},
		{"broken before trivial", Evidence{Oracle: n(0, 5), Nop: n(5, 5)}, Broken, "oracle resolved 0/5, nop 5/5"},
		{"broken even with runs unmeasured", Evidence{Oracle: n(3, 4), Nop: n(0, 5)}, Broken, "oracle resolved 3/4 (4 of 5 measured), nop 0/5"},
		{"unmeasured: nothing wrong in the runs measured", Evidence{Oracle: n(4, 4), Nop: n(0, 5)}, Unmeasured, "oracle resolved 4/4 (4 of 5 measured), nop 0/5"},
		{"unmeasured: nothing measured", Evidence{Oracle: n(0, 0), Nop: n(0, 0)}, Unmeasured, "oracle resolved 0/0 (0 of 5 measured), nop 0/0 (0 of 5 measured)"},
		{"flakykit's valid bug", Evidence{Oracle: n(5, 5), Nop: n(0, 5)}, Valid, "oracle resolved 5/5, nop 0/5"},
		{"flakykit's trivial bug", Evidence{Oracle: n(5, 5), Nop: n(5, 5)}, Trivial, "oracle resolved 5/5, nop 5/5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff([]any{c.want, c.wantDetail}, []any{Decide(c.ev), c.ev.Detail()}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestVerdictExcluded(t *testing.T) {
	got := map[Verdict]bool{}
	for _, v := range []Verdict{Valid, Broken, Trivial, Flaky, Unmeasured} {
		got[v] = v.Excluded()
	}
	want := map[Verdict]bool{Valid: false, Broken: true, Trivial: true, Flaky: true, Unmeasured: false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
