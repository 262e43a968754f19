package campaigns

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestCreateHint(t *testing.T) {
	noKind := &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "eval.sweep.dev", Kind: "SweepRun"}, SearchedVersions: []string{"v1alpha1"}}
	sweeptest.ErrorContains(t, CreateHint(noKind), `no matches for kind "SweepRun"`, "install the CRDs (kubectl apply -f config/crd/bases)")
	plain := errors.New("boom")
	if got := CreateHint(plain); got != plain {
		t.Errorf("an error without a known cause: %v, want it unchanged", got)
	}
}
