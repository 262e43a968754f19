// Package tasks holds the sample tasks; its test proves each of them with the real grader.
package tasks

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// TestSampleTasks runs check.sh, which grades every sample task with sweep-hook (oracle, empty
// patch, solve.sh, the fixtures and each fix alone) and fails on any unexpected score.
func TestSampleTasks(t *testing.T) {
	var missing []string
	if _, err := exec.LookPath("git"); err != nil {
		missing = append(missing, "git (apt-get install -y git)")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		missing = append(missing, "bash")
	}
	if len(missing) > 0 {
		t.Fatalf("the sample tasks cannot be checked; install: %s", strings.Join(missing, ", "))
	}
	sweeptest.PythonWithPytest(t) // check.sh finds it the same way
	cmd := exec.Command("bash", "./check.sh")
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tasks/check.sh failed (%v):\n%s", err, out)
	}
	t.Logf("tasks/check.sh:\n%s", out)
}
