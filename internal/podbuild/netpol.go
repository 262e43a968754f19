package podbuild

import (
	"net"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// NetworkPolicyName is the policy of one trial stage.
func NetworkPolicyName(trial string, stage podcontract.Stage) string {
	return trial + "-" + string(stage) + "-egress"
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
