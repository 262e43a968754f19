package campaign

import "time"

const (
	// trialEventDelayPerTrial is how much later a trial's change reaches its campaign for each
	// trial the campaign created: a campaign's reconcile reads all of its trials, so the changes
	// that arrive meanwhile are summed in one reconcile, and the campaign's share of the
	// manager's CPU stays about the same however many trials it has.
	trialEventDelayPerTrial = 100 * time.Microsecond
	// maxTrialEventDelay bounds how late a finished trial's place is given to the next one.
	maxTrialEventDelay = time.Second
)

// TrialEventDelay is how long a campaign that created created trials waits before it
// reconciles a change of one of them: 3 ms at 30 trials, 100 ms at 1,000, 1 s from 10,000.
func TrialEventDelay(created int32) time.Duration {
	return min(time.Duration(max(created, 0))*trialEventDelayPerTrial, maxTrialEventDelay)
}
