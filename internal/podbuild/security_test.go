package podbuild

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func TestPodSecurity(t *testing.T) {
	hook := &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		RunAsUser:                ptr.To[int64](65532),
		RunAsGroup:               ptr.To[int64](65532),
		RunAsNonRoot:             ptr.To(true),
	}
	pod := &corev1.PodSecurityContext{
		SeccompProfile:      &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		FSGroup:             ptr.To[int64](65532),
		FSGroupChangePolicy: ptr.To(corev1.FSGroupChangeOnRootMismatch),
	}
	defaultCaps := []corev1.Capability{"CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETGID", "SETUID"}
	dropAll := &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
	cases := []struct {
		name   string
		policy *evalv1.PodSecurity
		want   Security
	}{{
		name:   "no policy: the image's user with the default capabilities",
		policy: nil,
		want: Security{Pod: pod, Hook: hook,
			Main: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: defaultCaps}},
			Bundle: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: dropAll},
		},
	}, {
		name:   "empty policy is the default",
		policy: &evalv1.PodSecurity{},
		want: Security{Pod: pod, Hook: hook,
			Main: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: defaultCaps}},
			Bundle: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: dropAll},
		},
	}, {
		name:   "non-root user: the main container runs as it, the others keep their own",
		policy: &evalv1.PodSecurity{RunAsUser: ptr.To[int64](1000), RunAsGroup: ptr.To[int64](100), RunAsNonRoot: ptr.To(true)},
		want: Security{Pod: pod, Hook: hook,
			Main: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: defaultCaps},
				RunAsUser:    ptr.To[int64](1000), RunAsGroup: ptr.To[int64](100), RunAsNonRoot: ptr.To(true)},
			Bundle: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: dropAll},
		},
	}, {
		name:   "extra capabilities go to the main container only, once each",
		policy: &evalv1.PodSecurity{AddCapabilities: []string{"NET_BIND_SERVICE", "CHOWN", "SYS_PTRACE"}},
		want: Security{Pod: pod, Hook: hook,
			Main: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"},
					Add: append(append([]corev1.Capability{}, defaultCaps...), "NET_BIND_SERVICE", "SYS_PTRACE")}},
			Bundle: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: dropAll},
		},
	}, {
		name:   "root by uid",
		policy: &evalv1.PodSecurity{RunAsUser: ptr.To[int64](0)},
		want: Security{Pod: pod, Hook: hook,
			Main: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: defaultCaps},
				RunAsUser:    ptr.To[int64](0)},
			Bundle: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: dropAll},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PodSecurity(tc.policy)); diff != "" {
				t.Errorf("PodSecurity (-want +got):\n%s", diff)
			}
		})
	}
}

// The policy's slices and pointers are not shared with the Pod: a Job built from a trial must
// not change when the trial's object is reused.
func TestPodSecurityCopiesThePolicy(t *testing.T) {
	policy := &evalv1.PodSecurity{RunAsUser: ptr.To[int64](1000), AddCapabilities: []string{"NET_RAW"}}
	got := PodSecurity(policy)
	*policy.RunAsUser = 0
	policy.AddCapabilities[0] = "SYS_PTRACE"
	if *got.Main.RunAsUser != 1000 || got.Main.Capabilities.Add[len(got.Main.Capabilities.Add)-1] != "NET_RAW" {
		t.Errorf("PodSecurity shares the policy: %+v", got.Main)
	}
	if DefaultMainCapabilities[len(DefaultMainCapabilities)-1] != "SETUID" {
		t.Errorf("PodSecurity changed DefaultMainCapabilities: %v", DefaultMainCapabilities)
	}
}

// Every container of every trial Pod gets its context from PodSecurity, under the trial's
// policy.
func TestJobSecurityContexts(t *testing.T) {
	task := sampleTask(t)
	policy := evalv1.PodSecurity{RunAsUser: ptr.To[int64](1000), RunAsNonRoot: ptr.To(true), AddCapabilities: []string{"NET_BIND_SERVICE"}}
	want := PodSecurity(&policy)
	external := evalv1.AgentSpec{External: &evalv1.ExternalAgent{Image: "agents/a:1", BundlePath: "/agent", Command: []string{"run"}}}
	trial := makeTrial("t", "calc").agent(external).podSecurity(policy).obj()
	for _, stage := range []podcontract.Stage{podcontract.StageAgent, podcontract.StageVerifier} {
		pod := Job(JobInput{Trial: trial, Task: task, Stage: stage, Run: 1, HookImage: "hook", Timeouts: Timeouts{Agent: 1, Verifier: 1}}).Spec.Template.Spec
		if diff := cmp.Diff(want.Pod, pod.SecurityContext); diff != "" {
			t.Errorf("%s: Pod securityContext (-want +got):\n%s", stage, diff)
		}
		wantByName := map[string]*corev1.SecurityContext{
			CollectorContainer: want.Hook, BundleContainer: want.Bundle, MainContainer(stage): want.Main,
		}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			if diff := cmp.Diff(wantByName[c.Name], c.SecurityContext); diff != "" {
				t.Errorf("%s: container %s securityContext (-want +got):\n%s", stage, c.Name, diff)
			}
		}
	}
}
