package swebench

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const djangoTestPatch = `diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py
index 1111111..2222222 100644
--- a/tests/admin_views/tests.py
+++ b/tests/admin_views/tests.py
@@ -1,1 +1,2 @@
 x
+y
diff --git a/tests/admin_views/fixtures/data.json b/tests/admin_views/fixtures/data.json
new file mode 100644
--- /dev/null
+++ b/tests/admin_views/fixtures/data.json
@@ -0,0 +1 @@
+{}
diff --git a/tests/forms_tests/test_new.py b/tests/forms_tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/forms_tests/test_new.py
@@ -0,0 +1 @@
+--- /dev/null
`

func TestTestDirectives(t *testing.T) {
	tests := map[string]struct {
		inst Instance
		want []string
	}{
		"django: dotted modules without tests/, data files dropped": {
			inst: Instance{Repo: "django/django", TestPatch: djangoTestPatch},
			want: []string{"admin_views.tests", "forms_tests.test_new"},
		},
		"pytest: paths": {
			inst: Instance{Repo: "pallets/flask", TestPatch: djangoTestPatch},
			want: []string{"tests/admin_views/tests.py", "tests/forms_tests/test_new.py"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, TestDirectives(tc.inst)); diff != "" {
				t.Errorf("directives (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatchFiles(t *testing.T) {
	modified, added := patchFiles(djangoTestPatch)
	if diff := cmp.Diff([]string{"tests/admin_views/tests.py"}, modified); diff != "" {
		t.Errorf("modified (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tests/admin_views/fixtures/data.json", "tests/forms_tests/test_new.py"}, added); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
}

func TestHeredocDelimiterAvoidsPatchContent(t *testing.T) {
	got := heredocDelimiter("+x\nEOF_114329324912\n")
	if got != "EOF_114329324912_" {
		t.Errorf("delimiter = %q", got)
	}
}
