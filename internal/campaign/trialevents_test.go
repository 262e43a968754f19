package campaign

import (
	"testing"
	"time"
)

func TestTrialEventDelay(t *testing.T) {
	for name, tc := range map[string]struct {
		created int32
		want    time.Duration
	}{
		"no trial yet":                 {created: 0, want: 0},
		"a small campaign: at once":    {created: 30, want: 3 * time.Millisecond},
		"a thousand trials":            {created: 1000, want: 100 * time.Millisecond},
		"ten thousand: the bound":      {created: 10000, want: time.Second},
		"past ten thousand: the bound": {created: 50000, want: time.Second},
		"a negative count read as 0":   {created: -1, want: 0},
	} {
		t.Run(name, func(t *testing.T) {
			if got := TrialEventDelay(tc.created); got != tc.want {
				t.Errorf("TrialEventDelay(%d) = %s, want %s", tc.created, got, tc.want)
			}
		})
	}
}
