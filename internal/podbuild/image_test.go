package podbuild

import (
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// TestStageImage: a stage's main container runs the pinned reference it is given, else the
// trial's image of that stage; the hook and bundle containers keep theirs.
func TestStageImage(t *testing.T) {
	task := sampleTask(t)
	pinned := "docker.io/tasks/calc@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, tc := range []struct {
		name  string
		stage podcontract.Stage
		image string
		want  string
	}{
		{"agent, not pinned", podcontract.StageAgent, "", "tasks/calc:env"},
		{"verifier, not pinned", podcontract.StageVerifier, "", "tasks/calc:verifier"},
		{"agent, pinned", podcontract.StageAgent, pinned, pinned},
		{"verifier, pinned", podcontract.StageVerifier, pinned, pinned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trial := makeTrial("run-calc-1", "calc").grader(podcontract.GraderSWESweep).obj()
			job := Job(JobInput{Trial: trial, Task: task, Stage: tc.stage, Run: 1, HookImage: "sweep/hook:v1", Image: tc.image})
			pod := job.Spec.Template.Spec
			if got := pod.Containers[0].Image; got != tc.want {
				t.Errorf("main container image = %q, want %q", got, tc.want)
			}
			for _, c := range pod.InitContainers {
				if c.Image != "sweep/hook:v1" {
					t.Errorf("init container %s runs %q, want the hook image", c.Name, c.Image)
				}
			}
		})
	}
}
