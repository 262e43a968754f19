package swebench

import (
	"strings"
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

func TestEvalScriptShape(t *testing.T) {
	inst := Instance{InstanceID: "django__django-1", Repo: "django/django", BaseCommit: "abc123", TestPatch: djangoTestPatch}
	got := EvalScript(inst, EvalScriptOptions{})
	want := []string{
		"#!/bin/bash",
		"set -uxo pipefail",
		"source /opt/miniconda3/bin/activate",
		"conda activate testbed",
		"cd /testbed",
		"git -c core.fileMode=false diff abc123",
		"git checkout abc123 -- tests/admin_views/tests.py",
		"rm -f -- tests/admin_views/fixtures/data.json tests/forms_tests/test_new.py",
		"git apply -v - <<'EOF_114329324912'",
		"EOF_114329324912",
		": '>>>>> Start Test Output'",
		"./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 admin_views.tests forms_tests.test_new",
		"sweep_test_exit_code=$?",
		": '>>>>> End Test Output'",
		`echo ">>>>> Test Exit Code: ${sweep_test_exit_code}"`,
		"git checkout abc123 -- tests/admin_views/tests.py",
	}
	lines := strings.Split(got, "\n")
	at := 0
	for _, w := range want {
		for at < len(lines) && lines[at] != w {
			at++
		}
		if at == len(lines) {
			t.Fatalf("script lacks %q in order:\n%s", w, got)
		}
	}
	if !strings.Contains(got, "'*conftest.py'") {
		t.Errorf("script does not guard conftest.py:\n%s", got)
	}
	if strings.Contains(EvalScript(inst, EvalScriptOptions{AllowPatchConftest: true}), "conftest") {
		t.Error("AllowPatchConftest still guards conftest.py")
	}
	withSpecs := EvalScript(inst, EvalScriptOptions{EvalCommands: []string{"export LANG=en_US.UTF-8"}, Install: "python -m pip install -e ."})
	for _, w := range []string{"cd /testbed\nexport LANG=en_US.UTF-8\ngit config", "conda activate testbed\npython -m pip install -e .\n"} {
		if !strings.Contains(withSpecs, w) {
			t.Errorf("script with eval commands and install lacks %q:\n%s", w, withSpecs)
		}
	}
	own := Instance{EvalScript: "#!/bin/bash\necho own\n"}
	if got := EvalScript(own, EvalScriptOptions{}); got != own.EvalScript {
		t.Errorf("a v5 instance's eval_script was not used verbatim: %q", got)
	}
}

func TestHeredocDelimiterAvoidsPatchContent(t *testing.T) {
	got := heredocDelimiter("+x\nEOF_114329324912\n")
	if got != "EOF_114329324912_" {
		t.Errorf("delimiter = %q", got)
	}
}
