package podbuild

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// AgentKind is the descriptor of the agent kind the trial selects, once the trial carries
// what the kind needs. Its errors name the field and the fix.
func AgentKind(trial *evalv1.TaskTrial) (agentkind.Descriptor, error) {
	spec := &trial.Spec
	kind, ok := agentkind.Lookup(spec.Agent.Kind())
	if !ok {
		return kind, fmt.Errorf("spec.agent of trial %s sets no agent kind: set exactly one of %s", trial.Name, agentkind.Names())
	}
	if kind.NeedsSolution && spec.SolutionConfigMap == "" {
		return kind, fmt.Errorf("spec.solutionConfigMap is empty: the %s agent needs the task's solution; annotate the task ConfigMap of %q with %s",
			kind.Name, spec.Task, evalv1.AnnotationSolution)
	}
	if kind.Mount == agentkind.MountPatchSecret && spec.Agent.Patch.SecretName == "" {
		return kind, fmt.Errorf("spec.agent.patch.secretName is empty: the %s agent reads task %q's patch from a Secret; set spec.agent.patch.secretName of SweepRun %s, or annotate the task ConfigMap with %s",
			kind.Name, spec.Task, spec.SweepRun, evalv1.AnnotationPatchSecret)
	}
	return kind, nil
}

// selectedKind is the kind the spec selects. A spec that selects none builds as nop; the
// controller refuses such a trial (AgentKind) before it builds anything.
func selectedKind(a evalv1.AgentSpec) agentkind.Descriptor {
	if kind, ok := agentkind.Lookup(a.Kind()); ok {
		return kind
	}
	kind, _ := agentkind.Lookup(agentkind.Nop)
	return kind
}

// agentStageSpec is the stage spec's agent: the kind's name, and what its run mode runs.
func agentStageSpec(a evalv1.AgentSpec) *podcontract.AgentSpec {
	kind := selectedKind(a)
	spec := &podcontract.AgentSpec{Kind: kind.Name}
	if kind.Run == agentkind.RunCommand {
		spec.Command, spec.Args = a.External.Command, a.External.Args
	}
	return spec
}

// agentPodParts is what the trial's agent kind adds to the agent Pod: its mount, and the env
// its command runs with.
type agentPodParts struct {
	volumes        []corev1.Volume
	mounts         []corev1.VolumeMount
	initContainers []corev1.Container
	env            []corev1.EnvVar
}

func agentParts(trial *evalv1.TaskTrial, bundleSecurity *corev1.SecurityContext) agentPodParts {
	a := trial.Spec.Agent
	kind := selectedKind(a)
	var p agentPodParts
	switch kind.Mount {
	case agentkind.MountPatchSecret:
		p.volumes = append(p.volumes, corev1.Volume{Name: volInput, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: a.Patch.SecretName,
			Items:      []corev1.KeyToPath{{Key: trial.Spec.Task, Path: podcontract.AgentPatchFile}},
		}}})
		p.mounts = append(p.mounts, corev1.VolumeMount{Name: volInput, MountPath: podcontract.InputDir, ReadOnly: true})
	case agentkind.MountSolution:
		if trial.Spec.SolutionConfigMap == "" {
			break
		}
		p.volumes = append(p.volumes, corev1.Volume{Name: volSolution, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: trial.Spec.SolutionConfigMap},
			// solve.sh stays executable for root and the Pod's fsGroup, and unreadable to others.
			DefaultMode: ptr.To[int32](secretFileMode | 0o110),
		}}})
		p.mounts = append(p.mounts, corev1.VolumeMount{Name: volSolution, MountPath: podcontract.SolutionDir, ReadOnly: true})
	case agentkind.MountBundle:
		p.volumes = append(p.volumes, emptyDir(volBundle))
		p.initContainers = append(p.initContainers, corev1.Container{
			Name:    BundleContainer,
			Image:   a.External.Image,
			Command: []string{podcontract.HookPath, "install-bundle", a.External.BundlePath, podcontract.AgentBundleDir},
			VolumeMounts: []corev1.VolumeMount{
				{Name: volBin, MountPath: podcontract.BinDir, ReadOnly: true},
				{Name: volBundle, MountPath: podcontract.AgentBundleDir},
			},
			SecurityContext: bundleSecurity,
		})
		p.mounts = append(p.mounts, corev1.VolumeMount{Name: volBundle, MountPath: podcontract.AgentBundleDir})
	}
	if kind.Run == agentkind.RunCommand {
		// Model credentials reach the agent container only.
		p.env = append(p.env, a.External.Env...)
	}
	return p
}
