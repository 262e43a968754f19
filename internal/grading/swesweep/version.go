package swesweep

// GraderVersion is the version of this grader's rules, recorded with every trial it grades
// (TaskTrial status.provenance.grader). Bump it with any change that can change a verdict for
// the same bundle and patch: a reward, a resolved or regressed bug, a refused patch. A change
// that only rewords messages or eval.json's prose leaves it.
const GraderVersion = "1"
