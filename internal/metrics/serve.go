package metrics

import (
	"crypto/tls"

	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// ServeOptions are the manager's flags for its metrics endpoint.
type ServeOptions struct {
	// BindAddress is where /metrics listens; "0" disables it.
	BindAddress string
	// Secure serves HTTPS and lets through only requests whose bearer token the API server
	// authenticates (TokenReview) and authorises for GET /metrics (SubjectAccessReview).
	// False serves plain HTTP to anyone who reaches the port, for local use.
	Secure bool
	// CertDir holds tls.crt and tls.key; empty serves a self-signed certificate made at start.
	CertDir string
	// HTTP2 enables HTTP/2, off by default against the HTTP/2 Rapid Reset and Stream
	// Cancellation vulnerabilities (CVE-2023-44487, CVE-2023-39325), as kubebuilder does.
	HTTP2 bool
}

// ServerOptions are the metrics server options of o, as current kubebuilder scaffolds set
// them: secure serving behind an authentication and authorisation filter, AuthFilter.
func (o ServeOptions) ServerOptions() metricsserver.Options {
	opts := metricsserver.Options{BindAddress: o.BindAddress, SecureServing: o.Secure}
	if !o.Secure {
		return opts
	}
	opts.FilterProvider = AuthFilter
	opts.CertDir = o.CertDir
	if !o.HTTP2 {
		opts.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	return opts
}
