package steps

import "time"

// HangRerunShare is the share of a step's limit that the same step gets on the unpatched tree
// after it ran past the limit on the agent's tree. The hang is the patch's only when the
// unpatched tree ends the step within that share: on a node whose CPU is shared unevenly, two
// runs of the same tree can differ by half the limit, and a rerun that ends just inside the
// limit shows a node too slow for the limit, not a patch that makes the step hang (oracle
// patches were scored 0 that way on a starved local cluster). A rerun that needs more than the
// share leaves the trial not measured (GraderFailed): out of the score, and graded again when
// the trial's retry policy sets retryVerifierFailures.
const HangRerunShare = 0.5

// HangRerunMargin is how long before the step's limit the rerun must end, whatever the share
// allows. The rerun always runs second, on a warm tree: the interpreter, its byte-code caches
// and the page cache the first run loaded. That head start is seconds whatever the limit, so
// under a short limit (a verifier deadline that leaves the tests a few seconds) a slow first
// start on a loaded node and a fast rerun would otherwise charge the patch with a hang.
const HangRerunMargin = 5 * time.Second

// HangRerunLimit is how long the unpatched tree's rerun of a step that ran past limit on the
// agent's tree may run: HangRerunShare of the limit, and at least HangRerunMargin less than
// it. Zero means the limit is too short for a rerun to show a hang (not measured).
func HangRerunLimit(limit time.Duration) time.Duration {
	return max(0, min(time.Duration(float64(limit)*HangRerunShare), limit-HangRerunMargin))
}
