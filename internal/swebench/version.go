package swebench

// GraderVersion is the version of this grader's rules on top of the harness version it
// follows (GradingVersion), recorded with every trial it grades (TaskTrial
// status.provenance.grader). Bump it with any change that can change a verdict for the same
// instance, grading.json and patch: resolved or not, an error instance, a refused patch. A
// change that only rewords messages or eval.json's prose leaves it.
const GraderVersion = "2"
