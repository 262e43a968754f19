package podbuild

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// EgressRules maps a stage's network mode to egress rules: no-network allows none,
// allowlist the listed IPs and CIDRs (a hostname cannot be expressed and allows nothing);
// restricted is false for public, which needs no policy.
func EgressRules(stage taskdef.Stage) (rules []networkingv1.NetworkPolicyEgressRule, restricted bool) {
	if stage.NetworkMode == taskdef.NetworkPublic || stage.NetworkMode == "" {
		return nil, false
	}
	rules = []networkingv1.NetworkPolicyEgressRule{}
	if stage.NetworkMode != taskdef.NetworkAllowlist {
		return rules, true
	}
	var peers []networkingv1.NetworkPolicyPeer
	for _, h := range stage.AllowedHosts {
		cidr := h
		if ip := net.ParseIP(h); ip != nil {
			cidr = h + "/32"
			if ip.To4() == nil {
				cidr = h + "/128"
			}
		}
		if _, _, err := net.ParseCIDR(cidr); err != nil {
			continue
		}
		peers = append(peers, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: cidr}})
	}
	if len(peers) > 0 {
		rules = []networkingv1.NetworkPolicyEgressRule{{To: peers}}
	}
	return rules, true
}

// EgressClass is the value of a stage's Pods' evalv1.LabelEgress: the first 16 hex digits of
// the SHA-256 of its egress rules' JSON, so that stages with the same rules share a class and
// one policy; "" for a public stage.
func EgressClass(stage taskdef.Stage) string {
	rules, restricted := EgressRules(stage)
	if !restricted {
		return ""
	}
	return egressClass(rules)
}

func egressClass(rules []networkingv1.NetworkPolicyEgressRule) string {
	b, err := json.Marshal(rules)
	if err != nil {
		// The rules are IPBlocks and strings only; they always encode.
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// NetworkPolicyName is the policy of one egress class within its scope: the trial's SweepRun
// (one policy for all its trials with those rules) or, for a trial of no campaign, the trial.
func NetworkPolicyName(scope, class string) string {
	return scope + "-egress-" + class
}

// NetworkPolicies are the egress policies a trial's Pods need, one for each egress class of
// its stages, created before its first Job. A campaign's trials share them: each is named and
// owned by the trial's SweepRun and selects the campaign's Pods of its class, so that a
// campaign of 10,000 no-network trials has one policy, not 10,000 (one API write a campaign
// instead of one a trial, and one object for the network plugin to program). A trial of no
// campaign (no SweepRun controls it) owns its own.
func NetworkPolicies(trial *evalv1.TaskTrial, agent, verifier taskdef.Stage) []*networkingv1.NetworkPolicy {
	scope, scopeLabel := trial.Name, evalv1.LabelTrial
	owner := metav1.NewControllerRef(trial, evalv1.GroupVersion.WithKind("TaskTrial"))
	if run := metav1.GetControllerOf(trial); run != nil && run.Kind == "SweepRun" && run.Name == trial.Spec.SweepRun {
		scope, scopeLabel, owner = run.Name, evalv1.LabelSweepRun, run.DeepCopy()
	}
	var out []*networkingv1.NetworkPolicy
	seen := map[string]bool{}
	for _, stage := range []taskdef.Stage{agent, verifier} {
		rules, restricted := EgressRules(stage)
		if !restricted {
			continue
		}
		class := egressClass(rules)
		if seen[class] {
			continue
		}
		seen[class] = true
		labels := map[string]string{scopeLabel: scope, evalv1.LabelEgress: class}
		out = append(out, &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: NetworkPolicyName(scope, class), Namespace: trial.Namespace, Labels: labels,
				OwnerReferences: []metav1.OwnerReference{*owner}},
			Spec: networkingv1.NetworkPolicySpec{
				PodSelector: metav1.LabelSelector{MatchLabels: labels},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
				Egress:      rules,
			},
		})
	}
	return out
}
