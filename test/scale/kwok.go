package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

// kwokNodeAnnotation marks the Nodes kwok simulates (--manage-nodes-with-annotation-selector).
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// kwokStages are kwok's Stages for this run: a node is Ready at once, with room for any
// number of Pods; a Pod of a stage (label eval.sweep.dev/stage, on the trial Pods and on the
// baseline's alike) starts after startMillis (its init container done, the native-sidecar
// collector and the main container running), and its main container exits 0 after runMillis,
// the collector ending with the SIMULATED collector's termination message for the Pod's stage.
func kwokStages(sim simulatedCollector, startMillis, runMillis int) (string, error) {
	quote := func(s string) (string, error) {
		if strings.Contains(s, "{{") || strings.Contains(s, "}}") {
			return "", fmt.Errorf("a termination message with template delimiters: %q", s)
		}
		b, err := json.Marshal(s) // a JSON string is a YAML double-quoted scalar
		return string(b), err
	}
	agent, err := quote(sim.Agent)
	if err != nil {
		return "", err
	}
	verifier, err := quote(sim.Verifier)
	if err != nil {
		return "", err
	}
	r := strings.NewReplacer(
		"STAGE_LABEL", evalv1.LabelStage,
		"COLLECTOR", podbuild.CollectorContainer,
		"AGENT_MESSAGE", agent,
		"VERIFIER_MESSAGE", verifier,
		"START_MILLIS", fmt.Sprint(startMillis),
		"RUN_MILLIS", fmt.Sprint(runMillis),
	)
	return r.Replace(kwokStagesTemplate), nil
}

// kwokStagesTemplate is kwok's Stage objects with placeholders (STAGE_LABEL, COLLECTOR,
// AGENT_MESSAGE, VERIFIER_MESSAGE, START_MILLIS, RUN_MILLIS) that kwokStages fills; the
// statusTemplate fields inside are kwok's own Go templates.
//
//go:embed kwok-stages.yaml
var kwokStagesTemplate string

// createNodes creates n Nodes for kwok to simulate.
func createNodes(ctx context.Context, cl client.Client, n int) error {
	for i := range n {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("kwok-node-%d", i),
			Annotations: map[string]string{kwokNodeAnnotation: "fake"},
			Labels:      map[string]string{corev1.LabelHostname: fmt.Sprintf("kwok-node-%d", i), "type": "kwok"},
		}}
		if err := cl.Create(ctx, node); err != nil {
			return fmt.Errorf("creating node %s: %w", node.Name, err)
		}
		// The API server taints a new Node not-ready; the node lifecycle controller, which
		// this run does not start, would lift it once kwok reports the node Ready.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if err := cl.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
				return err
			}
			node.Spec.Taints = nil
			return cl.Update(ctx, node)
		})
		if err != nil {
			return fmt.Errorf("untainting node %s: %w", node.Name, err)
		}
	}
	return nil
}

// startKwok runs kwok over the Nodes createNodes makes, with the stages in a config file.
func startKwok(dir, bin, kubeconfig, stages string) (*process, error) {
	cfg := filepath.Join(dir, "kwok-stages.yaml")
	if err := os.WriteFile(cfg, []byte(stages), 0o644); err != nil {
		return nil, err
	}
	return startProcess(dir, "kwok", bin, nil,
		"--kubeconfig="+kubeconfig, "--config="+cfg,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector="+kwokNodeAnnotation+"=fake",
		// Loopback addresses for the simulated Pods and nodes: nothing connects to them.
		"--cidr=127.100.0.0/16", "--node-ip=127.0.0.1")
}
