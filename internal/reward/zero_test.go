package reward

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestZero(t *testing.T) {
	cases := map[string]struct {
		bugs int
		want Outcome
	}{
		"three bugs, none resolved": {bugs: 3, want: Outcome{Measured: true, Scored: true, Bugs: 3, Regressed: true}},
		"undeclared bug count":      {bugs: 0, want: Outcome{Measured: true, Scored: true, Regressed: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := Zero(tc.bugs)
			if err := r.CheckBounds(tc.bugs); err != nil {
				t.Fatalf("Zero(%d) is out of bounds: %v", tc.bugs, err)
			}
			if d := cmp.Diff(tc.want, r.Outcome()); d != "" {
				t.Errorf("Zero(%d).Outcome() (-want +got):\n%s", tc.bugs, d)
			}
		})
	}
}
