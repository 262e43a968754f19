package podbuild

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// DefaultMainCapabilities are what the main container keeps when it runs as root, which the
// sample and SWE-bench images need to work in a repository they own:
//   - CHOWN: pip, tar and cp -a give extracted files their recorded owner.
//   - DAC_OVERRIDE: root writes files and directories it does not own or that lack a write
//     bit (an image built by another uid, git's read-only objects).
//   - FOWNER: chmod and utime on files owned by another uid (git checkout, pip).
//   - SETUID, SETGID: a task's collect hook with `user` runs as that user (setgroups, setgid,
//     setuid), as does a test.sh that drops to another user.
//   - KILL: sweep-hook kills the process group of a hook it started as another user when it
//     times out.
//
// Everything else containerd grants by default (NET_RAW, SYS_CHROOT, MKNOD, AUDIT_WRITE,
// NET_BIND_SERVICE, SETFCAP, SETPCAP, FSETID) is dropped.
var DefaultMainCapabilities = []corev1.Capability{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}

// Security is the securityContext of each container class of a trial Pod.
type Security struct {
	Pod *corev1.PodSecurityContext
	// Hook: the install init container and the collector, sweep-hook's own image.
	Hook *corev1.SecurityContext
	// Main: the agent or verifier container, in the task's image.
	Main *corev1.SecurityContext
	// Bundle: the init container copying an external agent's bundle into an emptyDir, with no
	// capabilities: it reads its own image and writes a directory it owns. It keeps the agent
	// image's user whatever the policy, because the copy sets the mode of the emptyDir's root,
	// which only its owner (the kubelet's uid 0) may do without FOWNER.
	Bundle *corev1.SecurityContext
}

// PodSecurity decides the security contexts of a trial Pod under the run's policy (nil:
// defaults). No container escalates privilege, every container drops all capabilities but
// the main container's named set, and seccomp is RuntimeDefault.
func PodSecurity(policy *evalv1.PodSecurity) Security {
	if policy == nil {
		policy = &evalv1.PodSecurity{}
	}
	caps := append([]corev1.Capability{}, DefaultMainCapabilities...)
	for _, name := range policy.AddCapabilities {
		if c := corev1.Capability(name); !slices.Contains(caps, c) {
			caps = append(caps, c)
		}
	}
	main := &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: caps},
		RunAsUser:                copyInt64(policy.RunAsUser),
		RunAsGroup:               copyInt64(policy.RunAsGroup),
		RunAsNonRoot:             copyBool(policy.RunAsNonRoot),
	}
	return Security{
		Pod: &corev1.PodSecurityContext{
			SeccompProfile:      &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			FSGroup:             ptr.To[int64](podcontract.HookUID),
			FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
		},
		Hook: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			RunAsUser:                ptr.To[int64](podcontract.HookUID),
			RunAsGroup:               ptr.To[int64](podcontract.HookUID),
			RunAsNonRoot:             ptr.To(true),
		},
		Main: main,
		Bundle: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		},
	}
}

func copyInt64(p *int64) *int64 {
	if p == nil {
		return nil
	}
	return ptr.To(*p)
}

func copyBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	return ptr.To(*p)
}
