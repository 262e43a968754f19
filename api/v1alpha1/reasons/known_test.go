package reasons

import "testing"

// TestKnownIsEveryReason keeps Known in step with the pinned reasons: a reason added to one
// and not the other fails here.
func TestKnownIsEveryReason(t *testing.T) {
	for r := range all {
		if !Known(r) {
			t.Errorf("Known(%q) = false: add it to known", r)
		}
	}
	for r := range known {
		if _, pinned := all[r]; !pinned {
			t.Errorf("%q is known but not pinned in all", r)
		}
	}
	if Known("Other") || Known("") {
		t.Error("Known accepts a string that is no reason")
	}
}
