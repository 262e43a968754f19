// Package clioptions is what every verb of the sweep CLI shares: the connection to the
// cluster (kubectl's flags), the streams a verb reads and writes, and the output formats.
package clioptions

import (
	"fmt"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// Cluster is how every verb reaches the API server: kubectl's own flags (--kubeconfig,
// --context, -n and the rest), so that sweep behaves like kubectl. Verbs connect only when
// they need the cluster.
type Cluster struct {
	Flags *genericclioptions.ConfigFlags
}

func NewCluster() *Cluster {
	return &Cluster{Flags: genericclioptions.NewConfigFlags(true)}
}

// Namespace is -n, else the kubeconfig context's namespace, else "default".
func (c *Cluster) Namespace() (string, error) {
	ns, _, err := c.Flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the kubeconfig: %w: pass --kubeconfig or set KUBECONFIG", err)
	}
	return ns, nil
}

func (c *Cluster) RESTConfig() (*rest.Config, error) {
	cfg, err := c.Flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to talk to: %w: pass --kubeconfig, set KUBECONFIG or choose a --context", err)
	}
	return cfg, nil
}

// Client is a controller-runtime client with the sweep API types and the namespace to use.
// It can watch too (client.WithWatch), which `sweep watch` and every verb that follows a
// campaign need (campaigns.Follow).
func (c *Cluster) Client() (client.Client, string, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, "", err
	}
	ns, err := c.Namespace()
	if err != nil {
		return nil, "", err
	}
	cl, err := client.NewWithWatch(cfg, client.Options{Scheme: evalv1.NewScheme()})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to %s: %w: check the server with `sweep infra doctor`", cfg.Host, err)
	}
	return cl, ns, nil
}

func (c *Cluster) Discovery() (discovery.DiscoveryInterface, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return discovery.NewDiscoveryClientForConfig(cfg)
}
