package v1alpha1

// Labels and annotations of docs/design.md §1 and §2.
const (
	LabelSweepRun = "eval.sweep.dev/sweep-run"
	LabelTask     = "eval.sweep.dev/task"
	LabelTrial    = "eval.sweep.dev/trial"
	LabelStage    = "eval.sweep.dev/stage"
	LabelAttempt  = "eval.sweep.dev/attempt"
	// LabelRun numbers the Jobs of one stage of a trial (a retry is a new run).
	LabelRun = "eval.sweep.dev/run"

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

	// Keys of a task ConfigMap.
	TaskTOMLKey    = "task.toml"
	InstructionKey = "instruction.md"
)
