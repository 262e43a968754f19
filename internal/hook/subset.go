package hook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/regularfile"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

// subsetError is why a trial's bug subset cannot reach the task's tests/test.sh: test.sh is
// not run and the stage ends with the reason, neither a measured 0 nor every bug graded.
type subsetError struct{ reason, message string }

func (e *subsetError) Error() string { return e.message }

// selectSubtasks passes a bug subset to the task's own tests/test.sh as SWE-sweep's harness
// does: testsDir/swesweep_eval.json is rewritten to list only the subtasks bugs names, in that
// order and each once, everything else in it as it was. A symbolic link there is refused, not
// followed; the new file replaces the old one at once (rename), keeping its mode.
func selectSubtasks(testsDir string, bugs []string) error {
	path := filepath.Join(testsDir, sweepbundle.File)
	field := "spec.bugs (" + strings.Join(bugs, ", ") + ")"
	data, err := regularfile.ReadFile(path, sweepbundle.MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &subsetError{reasons.BugSubsetUnsupported, fmt.Sprintf("%s: the task is graded by its own tests/test.sh and has no %s, through which a bug subset reaches it, so test.sh was not run: "+
			"grade all its bugs (leave the task out of the SweepRun's spec.tasks.bugs), or give the task SWE-sweep's tests/%s", field, path, sweepbundle.File)}
	}
	if err != nil {
		return &subsetError{reasons.BugSubsetUnsupported, fmt.Sprintf("%s: %v, so test.sh was not run: fix the task's tests/%s", field, err, sweepbundle.File)}
	}
	out, unknown, err := sweepbundle.Select(data, bugs)
	if err != nil {
		return &subsetError{reasons.BugSubsetUnsupported, fmt.Sprintf("%s: %s: %v, so test.sh was not run: fix the task's tests/%s", field, path, err, sweepbundle.File)}
	}
	if len(unknown) > 0 {
		known, _ := sweepbundle.IDs(data) // Select parsed the same bytes
		return &subsetError{reasons.UnknownBugs, fmt.Sprintf("%s names bug ids that %s does not have: %s; it has %s; test.sh was not run: use ids among them in the SweepRun's spec.tasks.bugs",
			field, path, strings.Join(unknown, ", "), strings.Join(known, ", "))}
	}
	info, err := os.Lstat(path)
	if err == nil {
		err = writeFileAtomic(path, out, info.Mode().Perm())
	}
	if err != nil {
		return &subsetError{reasons.BugSubsetUnsupported, fmt.Sprintf("%s: rewriting %s: %v, so test.sh was not run: the verifier image's /tests must be writable by root", field, path, err)}
	}
	return nil
}
