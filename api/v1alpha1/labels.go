package v1alpha1

// Labels and annotations of DESIGN section 1 and 2.
const (
	LabelSweepRun = "eval.sweep.dev/sweep-run"
	LabelTask     = "eval.sweep.dev/task"
	LabelTrial    = "eval.sweep.dev/trial"
	LabelStage    = "eval.sweep.dev/stage"
	LabelAttempt  = "eval.sweep.dev/attempt"
	// LabelRun numbers the Jobs of one stage of a trial (a retry is a new run).
	LabelRun = "eval.sweep.dev/run"
	// LabelSolution marks the ConfigMap holding a task's solution (mounted into oracle trials).
	LabelSolution = "eval.sweep.dev/solution"

	AnnotationAgentImage    = "eval.sweep.dev/agent-image"
	AnnotationVerifierImage = "eval.sweep.dev/verifier-image"
	AnnotationBugs          = "eval.sweep.dev/bugs"
	// AnnotationGrader names a built-in grader for the task (swesweep, swebench); absent means
	// the verifier runs /tests/test.sh.
	AnnotationGrader = "eval.sweep.dev/grader"

	// Keys of a task ConfigMap.
	TaskTOMLKey    = "task.toml"
	InstructionKey = "instruction.md"
)
