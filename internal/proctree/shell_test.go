package proctree

import (
	"strings"
	"testing"
)

func TestShell(t *testing.T) {
	tests := map[string]struct {
		path, want string
	}{
		"bash first": {path: "/bin:/usr/bin", want: "bash"},
		"no shell":   {path: t.TempDir(), want: ""},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			got, err := Shell()
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "neither bash nor sh") {
					t.Fatalf("Shell() = %q, %v; want the error", got, err)
				}
				return
			}
			if err != nil || !strings.HasSuffix(got, "/"+tc.want) {
				t.Errorf("Shell() = %q, %v; want .../%s", got, err, tc.want)
			}
		})
	}
}
