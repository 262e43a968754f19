package reward

// Zero is the result of a trial scored 0 without a grader's result, when what the agent's code
// did ended the verifier (it ran the container out of its own memory): every one of the trial's
// bugs graded, none resolved, the visible suite not passed. It is measured and, with all of
// SWE-sweep's scoring keys, counts its bugs in the campaign.
func Zero(bugs int) Result {
	return Result{KeyReward: 0, KeySubtasks: float64(bugs), KeyResolved: 0, KeyPartial: 0, KeyVisibleOK: 0, KeyGraderFailed: 0}
}
