package metrics

import (
	"crypto/tls"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestServerOptions(t *testing.T) {
	type shape struct {
		BindAddress, CertDir string
		Secure, AuthFiltered bool
		NextProtos           []string
	}
	cases := map[string]struct {
		in   ServeOptions
		want shape
	}{
		"secure: AuthFilter, HTTP/1.1 only": {
			in:   ServeOptions{BindAddress: ":8443", Secure: true},
			want: shape{BindAddress: ":8443", Secure: true, AuthFiltered: true, NextProtos: []string{"http/1.1"}},
		},
		"secure with a certificate and HTTP/2": {
			in:   ServeOptions{BindAddress: ":8443", Secure: true, CertDir: "/certs", HTTP2: true},
			want: shape{BindAddress: ":8443", CertDir: "/certs", Secure: true, AuthFiltered: true},
		},
		"plain HTTP for local use: no filter, no TLS options": {
			in:   ServeOptions{BindAddress: ":8080", CertDir: "/ignored"},
			want: shape{BindAddress: ":8080"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := tc.in.ServerOptions()
			cfg := &tls.Config{}
			for _, f := range o.TLSOpts {
				f(cfg)
			}
			authFiltered := o.FilterProvider != nil && reflect.ValueOf(o.FilterProvider).Pointer() == reflect.ValueOf(AuthFilter).Pointer()
			got := shape{BindAddress: o.BindAddress, CertDir: o.CertDir, Secure: o.SecureServing, AuthFiltered: authFiltered, NextProtos: cfg.NextProtos}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("server options (-want +got):\n%s", diff)
			}
		})
	}
}
