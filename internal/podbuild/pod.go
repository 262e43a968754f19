package podbuild

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// Volume names.
const (
	volBin       = "sweep-bin"
	volRun       = "sweep-run"
	volSpec      = "sweep-spec"
	volTask      = "sweep-task"
	volInput     = "sweep-input"
	volSolution  = "sweep-solution"
	volBundle    = "sweep-agent"
	volGrader    = "sweep-grader"
	volArtifacts = "logs-artifacts"
	volStageLogs = "logs-stage"
)

// secretFileMode is the mode of the files of a volume the code under test must not read: the
// grader's ConfigMap (a SWE-bench instance holds the gold patch) and the task's solution.
// Their group is the Pod's fsGroup (podcontract.HookUID), so every container of the Pod
// reads them, except the verifier's test identity, which has no supplementary group.
const secretFileMode = 0o440

func emptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

func stageLogDir(stage podcontract.Stage) string {
	if stage == podcontract.StageAgent {
		return podcontract.AgentLogDir
	}
	return podcontract.VerifierLogDir
}

// podSpec is the trial Pod: a native-sidecar collector installs sweep-hook (its postStart
// hook, which the kubelet completes before it starts the next container) and reports, and the
// main container runs the stage in the task's image. No Pod mounts a service-account token:
// nothing in it needs the Kubernetes API.
func podSpec(in JobInput) corev1.PodSpec {
	trial := in.Trial
	stage := in.Stage
	volumes := []corev1.Volume{
		emptyDir(volBin), emptyDir(volRun), emptyDir(volArtifacts), emptyDir(volStageLogs),
		{Name: volSpec, VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: "stage.json",
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + StageSpecAnnotation + "']"}}},
		}}},
	}
	shared := []corev1.VolumeMount{
		{Name: volRun, MountPath: podcontract.RunDir},
		{Name: volArtifacts, MountPath: podcontract.ArtifactsDir},
		{Name: volStageLogs, MountPath: stageLogDir(stage)},
		{Name: volSpec, MountPath: podcontract.SpecDir, ReadOnly: true},
	}
	security := PodSecurity(trial.Spec.PodSecurity)
	mainMounts := append([]corev1.VolumeMount{{Name: volBin, MountPath: podcontract.BinDir, ReadOnly: true}}, shared...)
	var env []corev1.EnvVar
	// The collector comes first: an external agent's bundle container runs the sweep-hook it
	// installs. Installing in its postStart hook rather than in an init container of its own
	// saves the kubelet a container to start and one look (a PLEG relist, up to a second) to
	// see it end (docs/scale.md, "On the local cluster: one trial's time").
	initContainers := []corev1.Container{{
		Name:          CollectorContainer,
		Image:         in.HookImage,
		Command:       []string{"/sweep-hook", "collect"},
		RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
		Lifecycle: &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{
			Exec: &corev1.ExecAction{Command: []string{"/sweep-hook", "install", podcontract.BinDir}}}},
		VolumeMounts: append([]corev1.VolumeMount{{Name: volBin, MountPath: podcontract.BinDir}}, shared...),
		// A non-root collector can write its termination message: the kubelet makes the file
		// world-writable.
		SecurityContext: security.Hook,
		// The summary must survive even when the collector's log is gone.
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resourceMust("10m"),
			corev1.ResourceMemory: resourceMust("32Mi"),
		}},
	}}

	if stage == podcontract.StageAgent {
		if trial.Spec.InstructionConfigMap != "" {
			volumes = append(volumes, corev1.Volume{Name: volTask, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: trial.Spec.InstructionConfigMap},
				Items:                []corev1.KeyToPath{{Key: "instruction.md", Path: "instruction.md"}},
			}}})
			mainMounts = append(mainMounts, corev1.VolumeMount{Name: volTask, MountPath: podcontract.TaskDir, ReadOnly: true})
		}
		parts := agentParts(trial, security.Bundle)
		volumes = append(volumes, parts.volumes...)
		mainMounts = append(mainMounts, parts.mounts...)
		initContainers = append(initContainers, parts.initContainers...)
		env = parts.env
	} else {
		volumes = append(volumes, artifactsVolume(ArtifactsOwner(trial)))
		mainMounts = append(mainMounts, corev1.VolumeMount{Name: volInput, MountPath: podcontract.InputDir, ReadOnly: true})
		if cm := trial.Spec.GraderConfigMap; cm != "" {
			volumes = append(volumes, corev1.Volume{Name: volGrader, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: cm},
				DefaultMode:          ptr.To[int32](secretFileMode),
			}}})
			mainMounts = append(mainMounts, corev1.VolumeMount{Name: volGrader, MountPath: podcontract.GraderConfigDir, ReadOnly: true})
		}
	}

	workdir := in.Task.Environment.Workdir
	return corev1.PodSpec{
		RestartPolicy:                 corev1.RestartPolicyNever,
		AutomountServiceAccountToken:  ptr.To(false),
		EnableServiceLinks:            ptr.To(false),
		TerminationGracePeriodSeconds: ptr.To[int64](GraceSeconds + 20),
		NodeSelector:                  trial.Spec.Placement.NodeSelector,
		Tolerations:                   trial.Spec.Placement.Tolerations,
		PriorityClassName:             trial.Spec.Placement.PriorityClassName,
		ImagePullSecrets:              trial.Spec.Placement.ImagePullSecrets,
		SecurityContext:               security.Pod,
		InitContainers:                initContainers,
		Containers: []corev1.Container{{
			Name:            MainContainer(stage),
			Image:           stageImage(in),
			Command:         []string{podcontract.HookPath, stageVerb(stage)},
			WorkingDir:      workdir,
			Env:             env,
			Resources:       in.Resources,
			VolumeMounts:    mainMounts,
			SecurityContext: security.Main,
		}},
		Volumes: volumes,
	}
}

// artifactsVolume merges the artifacts Secrets of trial (ArtifactsOwner) into one directory: the first, which
// harvest always writes, then every other one there may be, optional because harvest writes
// only as many as the artifacts take. The verifier checks what it reassembles against the
// checksums of the first, so that a Secret missing is never a patch missing.
func artifactsVolume(trial string) corev1.Volume {
	sources := make([]corev1.VolumeProjection, MaxArtifactSecrets)
	for i := range sources {
		sources[i].Secret = &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: ArtifactSecretNameAt(trial, i)}}
		if i > 0 {
			sources[i].Secret.Optional = ptr.To(true)
		}
	}
	return corev1.Volume{Name: volInput, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: sources}}}
}

func stageVerb(stage podcontract.Stage) string {
	if stage == podcontract.StageAgent {
		return "agent"
	}
	return "verify"
}

func stageImage(in JobInput) string {
	if in.Image != "" {
		return in.Image
	}
	return StageImage(in.Trial, in.Stage)
}

// StageImage is the trial's spec image of a stage's main container.
func StageImage(trial *evalv1.TaskTrial, stage podcontract.Stage) string {
	if stage == podcontract.StageAgent {
		return trial.Spec.Images.Agent
	}
	return trial.Spec.Images.Verifier
}
