package v1alpha1

import (
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// AgentSpec chooses the agent. Exactly one kind is set.
// +kubebuilder:validation:XValidation:rule="[has(self.patch), has(self.oracle), has(self.nop), has(self.external)].filter(x, x).size() == 1",message="set exactly one agent kind: patch, oracle, nop or external"
type AgentSpec struct {
	// Patch applies a prepared patch per task with git apply.
	// +optional
	Patch *PatchAgent `json:"patch,omitempty"`
	// Oracle applies the task's own solution.
	// +optional
	Oracle *OracleAgent `json:"oracle,omitempty"`
	// Nop changes nothing: the baseline every task must fail.
	// +optional
	Nop *NopAgent `json:"nop,omitempty"`
	// External runs an agent bundle from its own image inside the task container.
	// +optional
	External *ExternalAgent `json:"external,omitempty"`
}

// PatchAgent reads each task's patch from a Secret whose keys are task names: the task
// ConfigMap's own (annotation eval.sweep.dev/patch-secret), else SecretName.
type PatchAgent struct {
	// SecretName holds the patches of the tasks whose ConfigMap names no patch Secret of its
	// own.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	SecretName string `json:"secretName,omitempty"`
}

// OracleAgent runs the solution the task's solution ConfigMap holds.
type OracleAgent struct{}

// NopAgent does nothing.
type NopAgent struct{}

// ExternalAgent is an image whose bundle is copied into the task container by an init
// container and run there, so that it works with the task's own toolchain.
type ExternalAgent struct {
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`
	// BundlePath is the directory in Image copied to /sweep/agent.
	// +kubebuilder:default="/agent"
	// +optional
	BundlePath string `json:"bundlePath,omitempty"`
	// Command runs in the task's workdir; the instruction is at $SWEEP_INSTRUCTION. It may
	// report what it spent in $SWEEP_USAGE_FILE (/logs/agent/usage.json; docs/task-format.md).
	// +kubebuilder:validation:MinItems=1
	Command []string `json:"command"`
	// +optional
	Args []string `json:"args,omitempty"`
	// Env reaches the agent container only; model credentials come from Secrets here.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Env []corev1.EnvVar `json:"env,omitempty"`
}

// Kind names the agent kind that is set: the json name of its field, which is also its name
// in internal/agentkind and in the stage spec. It is "" when none is set.
func (a AgentSpec) Kind() string {
	v := reflect.ValueOf(a)
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			return name
		}
	}
	return ""
}

// RetryPolicy says how failures that are not the agent's are retried.
type RetryPolicy struct {
	// InfrastructureRetries is how many times a trial is retried after an infrastructure
	// failure (image pull, eviction, lost node, preemption, lost collector).
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=20
	// +optional
	InfrastructureRetries int32 `json:"infrastructureRetries"`
	// RetryVerifierFailures also retries VerifierTimeout, RewardMissing and GraderFailed.
	// +optional
	RetryVerifierFailures bool `json:"retryVerifierFailures,omitempty"`
	// BackoffSeconds is the first retry delay; it doubles on each retry.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	// +optional
	BackoffSeconds int32 `json:"backoffSeconds"`
}

// TimeoutPolicy scales the task's own timeouts. Multipliers are decimal strings.
type TimeoutPolicy struct {
	// +kubebuilder:validation:Pattern=`^(0|[1-9][0-9]{0,2})(\.[0-9]{1,3})?$`
	// +optional
	AgentMultiplier string `json:"agentMultiplier,omitempty"`
	// +kubebuilder:validation:Pattern=`^(0|[1-9][0-9]{0,2})(\.[0-9]{1,3})?$`
	// +optional
	VerifierMultiplier string `json:"verifierMultiplier,omitempty"`
}

// ResourceMode says where a trial Pod's requests come from.
// +kubebuilder:validation:Enum=Task;Scaled;Override
type ResourceMode string

const (
	ResourcesFromTask ResourceMode = "Task"
	ResourcesScaled   ResourceMode = "Scaled"
	ResourcesOverride ResourceMode = "Override"
)

// ResourcePolicy sets the requests and limits of the agent and verifier containers.
// +kubebuilder:validation:XValidation:rule="self.mode != 'Scaled' || has(self.scale)",message="mode Scaled needs scale, for example \"0.25\""
// +kubebuilder:validation:XValidation:rule="self.mode != 'Override' || has(self.override)",message="mode Override needs override requests"
type ResourcePolicy struct {
	// +kubebuilder:default=Task
	// +optional
	Mode ResourceMode `json:"mode,omitempty"`
	// Scale multiplies the task's cpus, memory_mb and storage_mb (mode Scaled).
	// +kubebuilder:validation:Pattern=`^(0|[1-9][0-9]{0,2})(\.[0-9]{1,3})?$`
	// +optional
	Scale string `json:"scale,omitempty"`
	// +optional
	Override *corev1.ResourceRequirements `json:"override,omitempty"`
}

// Placement places trial Pods.
type Placement struct {
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// +optional
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// +optional
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
}

// PodSecurity sets who the main container of each trial Pod (the agent or the verifier) runs
// as, and which capabilities it keeps beyond the default set. By default it runs as its image's own user, keeping only
// CHOWN, DAC_OVERRIDE, FOWNER, KILL, SETGID and SETUID (docs/design.md §4.1). Privilege
// escalation is always off and seccomp is always RuntimeDefault.
// +kubebuilder:validation:XValidation:rule="!has(self.runAsNonRoot) || !self.runAsNonRoot || !has(self.runAsUser) || self.runAsUser != 0",message="runAsNonRoot is true but runAsUser is 0: set a non-zero runAsUser or drop runAsNonRoot"
type PodSecurity struct {
	// RunAsUser is the uid of the main container; unset keeps the image's user.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	// +optional
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	// RunAsGroup is the primary gid of the main container; unset keeps the image's group.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	// +optional
	RunAsGroup *int64 `json:"runAsGroup,omitempty"`
	// RunAsNonRoot makes the kubelet refuse to start the main container as uid 0: set it for
	// images whose user is not root, so that a change of image cannot silently run as root.
	// +optional
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty"`
	// AddCapabilities are kept by the main container on top of the default set, for example
	// NET_BIND_SERVICE for a task that serves on a port below 1024. SYS_ADMIN and ALL cannot be
	// added: privilege escalation is off, and the API server refuses SYS_ADMIN with it.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:Pattern=`^[A-Z][A-Z_]*$`
	// +kubebuilder:validation:XValidation:rule="!self.exists(c, c in ['ALL', 'SYS_ADMIN', 'CAP_SYS_ADMIN'])",message="addCapabilities cannot hold ALL or SYS_ADMIN: trial Pods never escalate privilege"
	AddCapabilities []string `json:"addCapabilities,omitempty"`
}
