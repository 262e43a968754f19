package clioptions

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func printed(t *testing.T, format string, obj *evalv1.SweepRun) (string, error) {
	t.Helper()
	f := NewObjectPrintFlags("created")
	*f.Print.OutputFormat = format
	p, err := f.ToPrinter()
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err = p.PrintObj(obj, &buf)
	return buf.String(), err
}

// kubectl's formats print a typed object with its apiVersion and kind set.
func TestObjectPrintFlags(t *testing.T) {
	run := &evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "evals", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "sweep"}}},
		Status:     evalv1.SweepRunStatus{Phase: evalv1.SweepRunRunning, Score: "0.5"},
	}
	for _, tc := range []struct{ format, want string }{
		{"name", "sweeprun.eval.sweep.dev/nightly\n"},
		{"jsonpath={.metadata.namespace}/{.metadata.name}", "evals/nightly"},
		{"go-template={{.kind}} {{.status.phase}}", "SweepRun Running"},
		{"custom-columns=NAME:.metadata.name,PHASE:status.phase,SCORE:{.status.score},BUGS:.status.bugsTotal,MISSING:.status.nothing",
			"NAME      PHASE     SCORE   BUGS     MISSING\nnightly   Running   0.5     <none>   <none>\n"},
	} {
		got, err := printed(t, tc.format, run.DeepCopy())
		if err != nil {
			t.Errorf("-o %s: %v", tc.format, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("-o %s (-want +got):\n%s", tc.format, diff)
		}
	}
	// JSON and YAML leave managedFields out, as kubectl does without --show-managed-fields.
	got, err := printed(t, "yaml", run.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiVersion: eval.sweep.dev/v1alpha1\n", "kind: SweepRun\n", "  name: nightly\n"} {
		if !bytes.Contains([]byte(got), []byte(want)) {
			t.Errorf("-o yaml lacks %q:\n%s", want, got)
		}
	}
	if bytes.Contains([]byte(got), []byte("managedFields")) {
		t.Errorf("-o yaml shows managedFields:\n%s", got)
	}
}

func TestObjectPrintFlagsErrors(t *testing.T) {
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}}
	for format, want := range map[string][]string{
		"xml":                        {"flag -o/--output: want one of", "json", "jsonpath", "custom-columns", `got "xml"`},
		"custom-columns=NAME":        {`custom-columns: "NAME" is not HEADER:PATH`, "custom-columns=NAME:.metadata.name"},
		"custom-columns=NAME:{.name": {"custom-columns: column NAME"},
		"jsonpath={.metadata.name":   {"unclosed action"},
	} {
		_, err := printed(t, format, run.DeepCopy())
		sweeptest.ErrorContains(t, err, want...)
	}
}

func TestObjectPrintFlagsDefault(t *testing.T) {
	var none *ObjectPrintFlags
	f := NewObjectPrintFlags("created")
	if !none.IsDefault() || !f.IsDefault() {
		t.Error("no -o is not the verb's own line")
	}
	*f.Print.TemplatePrinterFlags.TemplateArgument = "{{.kind}}"
	if f.IsDefault() {
		t.Error("--template alone is kubectl's go-template, not the verb's line")
	}
}
