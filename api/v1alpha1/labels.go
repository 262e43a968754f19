package v1alpha1

// Labels and annotations of docs/design.md §1 and §2.
const (
	LabelSweepRun = "eval.sweep.dev/sweep-run"
	LabelTask     = "eval.sweep.dev/task"
	LabelTrial    = "eval.sweep.dev/trial"
	LabelStage    = "eval.sweep.dev/stage"
	LabelAttempt  = "eval.sweep.dev/attempt"
	// LabelEgress on a stage's Pods names the egress rules their stage may use (a hash of the
	// rules, podbuild.EgressClass); the NetworkPolicy of those rules selects Pods by it. A
	// public stage's Pods have none.
	LabelEgress = "eval.sweep.dev/egress"
	// LabelRun numbers the Jobs of one stage of a trial (a retry is a new run).
	LabelRun = "eval.sweep.dev/run"
	// LabelRerun numbers the reruns of one attempt of a task that `sweep retry` asked for: a
	// rerun trial carries 1, 2, ...; the attempt's first trial has none.
	LabelRerun = "eval.sweep.dev/rerun"
	// LabelSupersededBy marks a trial a rerun replaced, with the rerun's name: the trial is
	// kept as a record and no longer scored or counted.
	LabelSupersededBy = "eval.sweep.dev/superseded-by"
	// LabelRegradedBy marks, beside LabelSupersededBy and with the same value, a trial a
	// regrade replaced: its rerun regrades its stored artifacts instead of running the agent.
	LabelRegradedBy = "eval.sweep.dev/regraded-by"

	// AnnotationRetry on a SweepRun asks its controller to rerun the failed trials of the
	// finished campaign: each new value is one request, handled once (status.retry.token).
	AnnotationRetry = "eval.sweep.dev/retry"
	// AnnotationRetryReasons narrows a retry request to trials that ended with these reasons,
	// comma-separated; absent, the reasons a trial may fail with by chance are rerun.
	AnnotationRetryReasons = "eval.sweep.dev/retry-reasons"
	// AnnotationRegrade on a SweepRun asks its controller to grade the stored artifacts of the
	// finished campaign's final trials again, with the catalogue's current verifier, without
	// running the agents: each new value is one request, handled once (status.regrade.token).
	AnnotationRegrade = "eval.sweep.dev/regrade"
	// AnnotationResume on a SweepRun its guard suspended asks its controller to start trials
	// again: a new value (any token, `sweep resume` writes a timestamp) resumes it once.
	AnnotationResume = "eval.sweep.dev/resume"

	AnnotationAgentImage    = "eval.sweep.dev/agent-image"
	AnnotationVerifierImage = "eval.sweep.dev/verifier-image"
	AnnotationBugs          = "eval.sweep.dev/bugs"
	// AnnotationBugIDs lists the task's bug ids, comma-separated in its bundle's order, for a
	// task whose tests/ has a bundle (swesweep_eval.json, or bundle.json for the built-in
	// grader): the SweepRun controller refuses a spec.tasks.bugs subset the task cannot take.
	AnnotationBugIDs = "eval.sweep.dev/bug-ids"
	// AnnotationSolution names the ConfigMap holding the task's solution, mounted only into
	// oracle trials.
	AnnotationSolution = "eval.sweep.dev/solution-configmap"
	// AnnotationGrader names a built-in grader for the task (swesweep, swebench); absent means
	// the verifier runs /tests/test.sh.
	AnnotationGrader = "eval.sweep.dev/grader"
	// AnnotationGraderConfig names a ConfigMap the built-in grader reads (for swebench: the
	// instance), mounted only into the verifier at /sweep/grader.
	AnnotationGraderConfig = "eval.sweep.dev/grader-configmap"
	// AnnotationTaskSHA256 on a trial is the SHA-256 of the task ConfigMap it was made from
	// (provenance.TaskEntrySHA256), set by the SweepRun controller when it creates the trial.
	AnnotationTaskSHA256 = "eval.sweep.dev/task-sha256"
	// AnnotationPatchSecret names the Secret holding the task's own patch, under the key of the
	// task's name, for the patch agent: it replaces spec.agent.patch.secretName for this task,
	// so that an import keeps one patch per Secret (sweep swebench import).
	AnnotationPatchSecret = "eval.sweep.dev/patch-secret"

	// Keys of a task ConfigMap.
	TaskTOMLKey    = "task.toml"
	InstructionKey = "instruction.md"
)
