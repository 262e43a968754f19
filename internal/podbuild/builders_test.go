package podbuild

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// trialWrapper builds TaskTrials fluently for tests.
type trialWrapper struct{ evalv1.TaskTrial }

func makeTrial(name, task string) *trialWrapper {
	return &trialWrapper{evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: evalv1.TaskTrialSpec{
			SweepRun: "run", Task: task, Attempt: 1,
			Images:               evalv1.TrialImages{Agent: "tasks/" + task + ":env", Verifier: "tasks/" + task + ":verifier"},
			InstructionConfigMap: "task-" + task,
			Agent:                evalv1.AgentSpec{Nop: &evalv1.NopAgent{}},
		},
	}}
}

func (w *trialWrapper) agent(a evalv1.AgentSpec) *trialWrapper { w.Spec.Agent = a; return w }
func (w *trialWrapper) queue(q string) *trialWrapper           { w.Spec.QueueName = q; return w }
func (w *trialWrapper) grader(g string) *trialWrapper          { w.Spec.Grader = g; return w }
func (w *trialWrapper) solution(cm string) *trialWrapper       { w.Spec.SolutionConfigMap = cm; return w }
func (w *trialWrapper) graderConfig(cm string) *trialWrapper   { w.Spec.GraderConfigMap = cm; return w }
func (w *trialWrapper) placement(p evalv1.Placement) *trialWrapper {
	w.Spec.Placement = p
	return w
}
func (w *trialWrapper) podSecurity(p evalv1.PodSecurity) *trialWrapper {
	w.Spec.PodSecurity = &p
	return w
}
func (w *trialWrapper) timeouts(agent, verifier string) *trialWrapper {
	w.Spec.Timeouts = &evalv1.TimeoutPolicy{AgentMultiplier: agent, VerifierMultiplier: verifier}
	return w
}
func (w *trialWrapper) obj() *evalv1.TaskTrial { return &w.TaskTrial }

var credentialEnv = []corev1.EnvVar{{Name: "MODEL_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
	LocalObjectReference: corev1.LocalObjectReference{Name: "model"}, Key: "key"}}}}
