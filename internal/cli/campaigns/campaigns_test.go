package campaigns

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestCreateHint(t *testing.T) {
	noKind := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "eval.sweep.dev", Kind: "SweepRun"}, SearchedVersions: []string{"v1alpha1"}}
	errorContains(t, CreateHint(noKind), `no matches for kind "SweepRun"`, "install the CRDs (kubectl apply -f config/crd/bases)")
	plain := errors.New("boom")
	if got := CreateHint(plain); got != plain {
		t.Errorf("an error without a known cause: %v, want it unchanged", got)
	}
}

// errorContains fails the test unless err holds every part.
func errorContains(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q lacks %q", err, p)
		}
	}
}
