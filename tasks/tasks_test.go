// Package tasks holds the sample tasks; its test proves each of them with the real grader.
package tasks

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
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

// TestFlakykitPods holds flakykit's fixtures/validation.json to the operator's names: its pods
// must be those of the verifier Pods of attempts 1, 2, ... of its run, as the Job controller
// names them (the Job's name and 5 characters), for the seeded hidden test reads the attempt
// back from the Pod's name (tasks/README.md, flakykit).
func TestFlakykitPods(t *testing.T) {
	b, err := os.ReadFile("flakykit/fixtures/validation.json")
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Env        map[string]string `json:"env"`
		Validation struct {
			Run  string   `json:"run"`
			Pods []string `json:"pods"`
		} `json:"validation"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	d, err := taskdef.LoadDir("flakykit")
	if err != nil {
		t.Fatal(err)
	}
	pods := spec.Validation.Pods
	if len(pods) < 2 || spec.Env["FLAKYKIT_POD_NAME"] != pods[0] {
		t.Fatalf("validation.json: want at least two pods, the first also env.FLAKYKIT_POD_NAME: %s", b)
	}
	for i, pod := range pods {
		job := podbuild.JobName(campaign.TrialName(spec.Validation.Run, d.Task.Name, int32(i+1)), podcontract.StageVerifier, 1)
		if suffix, ok := strings.CutPrefix(pod, job+"-"); !ok || len(suffix) != 5 || len(pod) > 63 {
			t.Errorf("pods[%d] = %s, want %s-xxxxx (at most 63 characters)", i, pod, job)
		}
	}
}
