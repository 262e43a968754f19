package eval

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
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
	for _, tc := range []struct {
		b    BugOutput
		want string
	}{{BugOutput{Resolved: true}, "resolved"}, {BugOutput{Partial: true}, "partial"}, {BugOutput{}, "unresolved"}} {
		if b, want := tc.b, tc.want; BugVerdict(b) != want {
			got := BugVerdict(b)
			t.Errorf("%+v: %s, want %s", b, got, want)
		}
	}
}

// BugRows reads SWE-sweep's eval.json schema: the file a real task's own grader writes, and the
// one the built-in bundle grader writes, which carries SWE-sweep's fields beside its own.
func TestBugRows(t *testing.T) {
	upstream, err := os.ReadFile("testdata/swesweep-eval.json")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := json.Marshal(swesweep.Eval{Schema: "sweep-eval/1", Mode: "agent", Regressions: []string{},
		Bugs: []swesweep.BugReport{{ID: "b1", Resolved: true}, {ID: "b2"}},
		SweepEval: swesweep.SweepEval{AgentBuildOK: true, NSubtasks: 2, NResolved: 1, NPartial: 1,
			Subtasks: []swesweep.SweepBug{{SubtaskID: "b1", Resolved: true}, {SubtaskID: "b2", Partial: true}}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		evalJSON    []byte
		bugs        []BugOutput
		regressions []string
	}{
		"SWE-sweep's grader": {evalJSON: upstream,
			bugs:        []BugOutput{{ID: "demo-3f9a01c2e4b7", Resolved: true}, {ID: "demo-b7c2d4e6f809", Partial: true}, {ID: "demo-0c1d2e3f4a5b"}},
			regressions: []string{"tests.test_core::test_roundtrip[café]"}},
		"the bundle grader":            {evalJSON: ours, bugs: []BugOutput{{ID: "b1", Resolved: true}, {ID: "b2", Partial: true}}, regressions: []string{}},
		"a build failure: no subtasks": {evalJSON: []byte(`{"agent_build_ok": false, "subtasks": [], "regressions": []}`), regressions: []string{}},
	} {
		bugs, regressions, _, err := BugRows(tc.evalJSON)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Per-test outcomes are sweepbundle's (TestReadOutcome).
		if diff := cmp.Diff([]any{tc.bugs, tc.regressions}, []any{bugs, regressions}, cmpopts.IgnoreFields(BugOutput{}, "Tests")); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for evalJSON, want := range map[string]string{
		`{`:                                   "unexpected end of JSON input",
		`{"subtasks": {"subtask_id": "b1"}}`:  "cannot unmarshal object",
		`{"subtasks": [{"resolved": true}]}`:  "subtasks[0] lacks a string subtask_id",
		`{"subtasks": [{"subtask_id": 1}]}`:   "cannot unmarshal number",
		`{"regressions": "tests::test_a"}`:    "cannot unmarshal string",
		`{"subtasks": [{"resolved": "yes"}]}`: "cannot unmarshal string",
	} {
		_, _, _, err := BugRows([]byte(evalJSON))
		sweeptest.ErrorContains(t, err, want)
	}
}
