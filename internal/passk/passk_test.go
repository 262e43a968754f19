package passk

import (
	"math"
	"math/big"
	"testing"
)

func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, c, k int
		want    float64
		ok      bool
	}{
		{"n=5 c=2 k=1 is c/n", 5, 2, 1, 0.4, true},
		{"n=5 c=2 k=2", 5, 2, 2, 0.7, true},
		{"k=n with a success", 5, 1, 5, 1, true},
		{"k=n without a success", 5, 0, 5, 0, true},
		{"c=0", 10, 0, 3, 0, true},
		{"c=n", 10, 10, 3, 1, true},
		{"n-c below k: every draw succeeds", 10, 8, 3, 1, true},
		{"n=1 c=1", 1, 1, 1, 1, true},
		{"k above n is not computable, not clamped", 3, 1, 5, 0, false},
		{"k=0", 3, 1, 0, 0, false},
		{"no attempts", 0, 0, 1, 0, false},
		{"c above n", 3, 4, 1, 0, false},
		{"negative c", 3, -1, 1, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Estimate(tc.n, tc.c, tc.k)
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Estimate(%d, %d, %d) = %v, %v; want %v, %v", tc.n, tc.c, tc.k, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// exact is 1 − C(n−c, k)/C(n, k) in exact arithmetic, rounded once to a float64.
func exact(n, c, k int) float64 {
	ratio := new(big.Rat).SetFrac(new(big.Int).Binomial(int64(n-c), int64(k)), new(big.Int).Binomial(int64(n), int64(k)))
	f, _ := new(big.Rat).Sub(big.NewRat(1, 1), ratio).Float64()
	return f
}

// The product agrees with the binomials computed exactly, for every c and k of small n.
func TestEstimateExact(t *testing.T) {
	for n := 1; n <= 40; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				got, ok := Estimate(n, c, k)
				if want := exact(n, c, k); !ok || math.Abs(got-want) > 1e-12 {
					t.Fatalf("Estimate(%d, %d, %d) = %v, %v; want %v", n, c, k, got, ok, want)
				}
			}
		}
	}
}

// For large n the binomials overflow float64 (C(100000, 500) has over 1,000 digits); the
// product stays within 1e-12 of the exact value, and within [0, 1].
func TestEstimateLargeN(t *testing.T) {
	for _, tc := range []struct{ n, c, k int }{
		{100000, 1, 500}, {100000, 37, 500}, {100000, 5000, 10}, {1000000, 3, 1000}, {50000, 2, 49000}, {1000000, 999000, 2},
	} {
		got, ok := Estimate(tc.n, tc.c, tc.k)
		if want := exact(tc.n, tc.c, tc.k); !ok || got < 0 || got > 1 || math.Abs(got-want) > 1e-12 {
			t.Errorf("Estimate(%d, %d, %d) = %v, %v; want %v", tc.n, tc.c, tc.k, got, ok, want)
		}
	}
}
