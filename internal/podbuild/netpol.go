package podbuild

import (
	"net"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// NetworkPolicyName is the policy of one trial stage, or with stage "" the one policy of both
// its stages (NetworkPolicies).
func NetworkPolicyName(trial string, stage podcontract.Stage) string {
	if stage == "" {
		return trial + "-trial-egress"
	}
	return trial + "-" + string(stage) + "-egress"
}

// NetworkPolicies are a trial's egress policies, created before its first Job: one that
// selects the Pods of both its stages when their egress rules are the same (a task whose
// agent and verifier both have no network, the common case: one object a trial, not two),
// else one for each stage that is not public.
func NetworkPolicies(trial *evalv1.TaskTrial, agent, verifier taskdef.Stage) []*networkingv1.NetworkPolicy {
	a, _ := NetworkPolicy(trial, podcontract.StageAgent, agent.NetworkMode, agent.AllowedHosts)
	v, _ := NetworkPolicy(trial, podcontract.StageVerifier, verifier.NetworkMode, verifier.AllowedHosts)
	switch {
	case a != nil && v != nil && equality.Semantic.DeepEqual(a.Spec.Egress, v.Spec.Egress):
		a.Name, a.Labels = NetworkPolicyName(trial.Name, ""), Labels(trial, "")
		a.Spec.PodSelector.MatchLabels = map[string]string{evalv1.LabelTrial: trial.Name}
		return []*networkingv1.NetworkPolicy{a}
	case a != nil && v != nil:
		return []*networkingv1.NetworkPolicy{a, v}
	case a != nil:
		return []*networkingv1.NetworkPolicy{a}
	case v != nil:
		return []*networkingv1.NetworkPolicy{v}
	}
	return nil
}

// NetworkPolicy maps a stage's network mode to egress rules: no-network denies all egress,
// allowlist admits the listed IPs and CIDRs (hostnames cannot be expressed and are returned
// as ignored), public needs no policy (nil).
func NetworkPolicy(trial *evalv1.TaskTrial, stage podcontract.Stage, mode string, allowed []string) (np *networkingv1.NetworkPolicy, ignoredHosts []string) {
	if mode == taskdef.NetworkPublic || mode == "" {
		return nil, nil
	}
	np = &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{
			Name:      NetworkPolicyName(trial.Name, stage),
			Namespace: trial.Namespace,
			Labels:    Labels(trial, stage),
		},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{
				evalv1.LabelTrial: trial.Name,
				evalv1.LabelStage: string(stage),
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress:      []networkingv1.NetworkPolicyEgressRule{},
		},
	}
	if mode != taskdef.NetworkAllowlist {
		return np, nil
	}
	var peers []networkingv1.NetworkPolicyPeer
	for _, h := range allowed {
		cidr := h
		if ip := net.ParseIP(h); ip != nil {
			cidr = h + "/32"
			if ip.To4() == nil {
				cidr = h + "/128"
			}
		}
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			ignoredHosts = append(ignoredHosts, h)
			continue
		}
		peers = append(peers, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr}})
	}
	if len(peers) > 0 {
		np.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{To: peers}}
	}
	return np, ignoredHosts
}
