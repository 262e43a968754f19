// Package passk computes pass@k over a campaign's attempts with the unbiased estimator of Chen
// et al. (2021), and the spread of the per-attempt score. It extends SWE-sweep's report, which
// has neither (docs/cli.md, "pass@k"): the unit is a bug where every counted trial of a task
// says which of its bugs it resolved (SWE-sweep's eval.json `subtasks`), else the task itself
// (a SWE-bench instance, a task graded by reward.json alone). Which trials count, and that a
// regressed trial resolves nothing, are scoring's rules (scoring.Counted).
package passk

// Estimate is pass@k for n attempts of which c succeeded: 1 − C(n−c, k) / C(n, k), the
// chance that at least one of k attempts drawn without replacement from the n succeeds. It is
// computed as 1 − Π_{i=n−c+1..n} (1 − k/i), which neither overflows nor loses precision for
// large n, as the binomials would; pass@1 is c/n exactly. ok is false when the value cannot be
// computed: k above n (never clamped to n), k or n below 1, c outside 0..n.
func Estimate(n, c, k int) (value float64, ok bool) {
	if k < 1 || n < 1 || c < 0 || c > n || k > n {
		return 0, false
	}
	if k == 1 {
		return float64(c) / float64(n), true
	}
	if n-c < k {
		// Every draw of k attempts holds a success.
		return 1, true
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p, true
}
