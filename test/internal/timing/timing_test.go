package timing

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDistribution(t *testing.T) {
	hundred := func() []float64 {
		xs := make([]float64, 100)
		for i := range xs {
			xs[i] = float64(100 - i) // unsorted
		}
		return xs
	}
	tests := []struct {
		name string
		xs   []float64
		want Dist
	}{
		{"none", nil, Dist{}},
		{"one", []float64{0.3}, Dist{Count: 1, P50: 0.3, P90: 0.3, P99: 0.3, Max: 0.3}},
		{"three", []float64{3, 1, 2}, Dist{Count: 3, P50: 2, P90: 3, P99: 3, Max: 3}},
		{"hundred", hundred(), Dist{Count: 100, P50: 50, P90: 90, P99: 99, Max: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Distribution(tt.xs)); diff != "" {
				t.Errorf("Distribution (-want +got):\n%s", diff)
			}
		})
	}
}
