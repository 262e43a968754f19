package steps

import (
	"testing"
	"time"
)

func TestHangRerunLimit(t *testing.T) {
	for name, tc := range map[string]struct {
		limit, want time.Duration
	}{
		"half of a step's own limit":          {limit: 120 * time.Second, want: 60 * time.Second},
		"half of a limit the deadline halved": {limit: 36 * time.Second, want: 18 * time.Second},
		"the margin and the share meet":       {limit: 10 * time.Second, want: 5 * time.Second},
		"a short limit: the margin binds":     {limit: 8 * time.Second, want: 3 * time.Second},
		"a limit within the margin: no rerun": {limit: 2 * time.Second, want: 0},
		"the margin itself: no rerun":         {limit: HangRerunMargin, want: 0},
		"no limit, no rerun":                  {limit: 0, want: 0},
	} {
		t.Run(name, func(t *testing.T) {
			if got := HangRerunLimit(tc.limit); got != tc.want {
				t.Errorf("HangRerunLimit(%s) = %s, want %s", tc.limit, got, tc.want)
			}
		})
	}
}
