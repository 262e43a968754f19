package podbuild

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// agentsByKind selects each agent kind with the parameters its API field requires.
var agentsByKind = map[string]evalv1.AgentSpec{
	agentkind.Patch:    {Patch: &evalv1.PatchAgent{SecretName: "patches"}},
	agentkind.Oracle:   {Oracle: &evalv1.OracleAgent{}},
	agentkind.Nop:      {Nop: &evalv1.NopAgent{}},
	agentkind.External: {External: &evalv1.ExternalAgent{Image: "agents/a:1", BundlePath: "/agent", Command: []string{"run"}}},
}

func TestAgentKind(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trial   *evalv1.TaskTrial
		want    string
		wantErr string
	}{
		{name: "nop", trial: makeTrial("t", "calc").obj(), want: agentkind.Nop},
		{name: "oracle with its solution", trial: makeTrial("t", "calc").agent(agentsByKind[agentkind.Oracle]).solution("calc-solution").obj(), want: agentkind.Oracle},
		{name: "oracle without a solution", trial: makeTrial("t", "calc").agent(agentsByKind[agentkind.Oracle]).obj(), want: agentkind.Oracle,
			wantErr: `spec.solutionConfigMap is empty: the oracle agent needs the task's solution; annotate the task ConfigMap of "calc" with ` + evalv1.AnnotationSolution},
		{name: "patch", trial: makeTrial("t", "calc").agent(agentsByKind[agentkind.Patch]).obj(), want: agentkind.Patch},
		{name: "patch without a Secret", trial: makeTrial("t", "calc").agent(evalv1.AgentSpec{Patch: &evalv1.PatchAgent{}}).obj(), want: agentkind.Patch,
			wantErr: `spec.agent.patch.secretName is empty: the patch agent reads task "calc"'s patch from a Secret; set spec.agent.patch.secretName of SweepRun run, or annotate the task ConfigMap with ` + evalv1.AnnotationPatchSecret},
		{name: "no kind", trial: makeTrial("t", "calc").agent(evalv1.AgentSpec{}).obj(),
			wantErr: "spec.agent of trial t sets no agent kind: set exactly one of " + agentkind.Names()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AgentKind(tc.trial)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if got.Name != tc.want {
				t.Errorf("kind = %q, want %q", got.Name, tc.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestEveryAgentKindBuilds: every descriptor builds an agent Pod whose stage spec names it,
// with its mount in the main container when it has one.
func TestEveryAgentKindBuilds(t *testing.T) {
	task := sampleTask(t)
	mountPath := map[agentkind.Mount]string{
		agentkind.MountPatchSecret: podcontract.InputDir,
		agentkind.MountSolution:    podcontract.SolutionDir,
		agentkind.MountBundle:      podcontract.AgentBundleDir,
	}
	for _, d := range agentkind.All() {
		agent, ok := agentsByKind[d.Name]
		if !ok {
			t.Errorf("agent kind %q: add it to agentsByKind", d.Name)
			continue
		}
		trial := makeTrial("t", "calc").agent(agent).solution("calc-solution").obj()
		if got := AgentStageSpec(trial, task, Timeouts{Agent: 1}).Agent.Kind; got != d.Name {
			t.Errorf("agent kind %q: stage spec kind %q", d.Name, got)
		}
		if d.Mount == agentkind.MountNothing {
			continue
		}
		want, ok := mountPath[d.Mount]
		if !ok {
			t.Errorf("agent kind %q: mount %q has no case here or in agentParts", d.Name, d.Mount)
			continue
		}
		job := Job(JobInput{Trial: trial, Task: task, Stage: podcontract.StageAgent, Run: 1, HookImage: "hook", Timeouts: Timeouts{Agent: 1, Verifier: 1}})
		found := false
		for _, m := range job.Spec.Template.Spec.Containers[0].VolumeMounts {
			found = found || m.MountPath == want
		}
		if !found {
			t.Errorf("agent kind %q: main container does not mount %s for %q", d.Name, want, d.Mount)
		}
	}
}
