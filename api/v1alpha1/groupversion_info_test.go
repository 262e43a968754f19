package v1alpha1

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestNewSchemeKnowsEveryKind(t *testing.T) {
	s := NewScheme()
	for _, obj := range []runtime.Object{&SweepRun{}, &SweepRunList{}, &TaskTrial{}, &TaskTrialList{},
		&metav1.ListOptions{}, &metav1.WatchEvent{}} {
		gvks, _, err := s.ObjectKinds(obj)
		if err != nil {
			t.Errorf("%T: %v", obj, err)
			continue
		}
		found := false
		for _, gvk := range gvks {
			found = found || gvk.GroupVersion() == GroupVersion
		}
		if !found {
			t.Errorf("%T is registered as %v, not in %s", obj, gvks, GroupVersion)
		}
	}
}
