package eval

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// --timeout becomes the multiplier of the task's own verifier timeout, rounded up to the three
// decimals TimeoutPolicy holds.
func TestVerifierMultiplier(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "demo"},
		Data: map[string]string{evalv1.TaskTOMLKey: "name = \"demo\"\n[verifier]\ntimeout_sec = 600.0\n"}}
	for timeout, want := range map[time.Duration]string{time.Hour: "6", 10 * time.Minute: "1", 7 * time.Second: "0.012", 2*time.Hour + time.Second: "12.002"} {
		got, err := verifierMultiplier(cm, timeout)
		if err != nil || got != want {
			t.Errorf("--timeout %s: %q, %v; want %q", timeout, got, err, want)
		}
	}
	_, err := verifierMultiplier(cm, 10000*time.Hour)
	sweeptest.ErrorContains(t, err, "flag --timeout 10000h0m0s is more than 999.999 times the task's verifier timeout of 600s")
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Format: "xml", Attempts: 1}, "flag -o/--output"},
		{Options{Format: "table", Attempts: 0}, "flag --attempts: want 1 to 100, got 0"},
		{Options{Format: "table", Attempts: 101}, "flag --attempts: want 1 to 100, got 101"},
	} {
		sweeptest.ErrorContains(t, tc.o.Validate(), tc.want)
	}
	if err := (&Options{Format: "json", Attempts: 100}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestBugVerdict(t *testing.T) {
	for b, want := range map[BugOutput]string{{Resolved: true}: "resolved", {Partial: true}: "partial", {}: "unresolved"} {
		if got := BugVerdict(b); got != want {
			t.Errorf("%+v: %s, want %s", b, got, want)
		}
	}
}
