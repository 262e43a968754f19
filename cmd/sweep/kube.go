package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// cluster is how every verb reaches the API server: kubectl's own flags (--kubeconfig,
// --context, -n and the rest), so that sweep behaves like kubectl.
type cluster struct {
	flags *genericclioptions.ConfigFlags
}

func newCluster() *cluster {
	return &cluster{flags: genericclioptions.NewConfigFlags(true)}
}

// namespace is -n, else the kubeconfig context's namespace, else "default".
func (c *cluster) namespace() (string, error) {
	ns, _, err := c.flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", fmt.Errorf("reading the kubeconfig: %w: pass --kubeconfig or set KUBECONFIG", err)
	}
	return ns, nil
}

func (c *cluster) restConfig() (*rest.Config, error) {
	cfg, err := c.flags.ToRESTConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to talk to: %w: pass --kubeconfig, set KUBECONFIG or choose a --context", err)
	}
	return cfg, nil
}

// client is a controller-runtime client with the sweep API types and the namespace to use.
func (c *cluster) client() (client.Client, string, error) {
	cfg, err := c.restConfig()
	if err != nil {
		return nil, "", err
	}
	ns, err := c.namespace()
	if err != nil {
		return nil, "", err
	}
	cl, err := client.New(cfg, client.Options{Scheme: evalv1.NewScheme()})
	if err != nil {
		return nil, "", fmt.Errorf("connecting to %s: %w: check the server with `sweep infra doctor`", cfg.Host, err)
	}
	return cl, ns, nil
}

func (c *cluster) discovery() (discovery.DiscoveryInterface, error) {
	cfg, err := c.restConfig()
	if err != nil {
		return nil, err
	}
	return discovery.NewDiscoveryClientForConfig(cfg)
}

// isTerminal reports whether w is a terminal: progress is drawn only there, so that logs and
// pipes get plain lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
