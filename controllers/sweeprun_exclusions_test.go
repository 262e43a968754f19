package controllers

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// A campaign's snapshotted list is remembered for that SweepRun only: one created again under
// its name (another UID) reads its own, and a deleted one is forgotten.
func TestFrozenLists(t *testing.T) {
	var f frozenLists
	key := types.NamespacedName{Namespace: "evals", Name: "nightly"}
	if f.get(key, "u1") != nil {
		t.Fatal("an empty memo has a list")
	}
	l := &exclusionList{digest: "d1", frozen: true}
	f.remember(key, "u1", l)
	if got := f.get(key, "u1"); got != l {
		t.Errorf("get = %v, want the list remembered", got)
	}
	if got := f.get(key, "u2"); got != nil {
		t.Errorf("a SweepRun created again under the name reads %v, want nothing", got)
	}
	f.forget(key)
	if got := f.get(key, "u1"); got != nil {
		t.Errorf("after forget: %v", got)
	}
}
