package provenance

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/version"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

func taskConfigMap() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "task-a", Annotations: map[string]string{
			evalv1.AnnotationAgentImage: "tasks/a:env", evalv1.AnnotationGrader: "swesweep",
		}},
		Data: map[string]string{evalv1.TaskTOMLKey: "name = \"a\"\n", evalv1.InstructionKey: "Fix it."},
	}
}

func TestTaskEntrySHA256(t *testing.T) {
	base := TaskEntrySHA256(taskConfigMap())
	if len(base) != 64 {
		t.Fatalf("TaskEntrySHA256 = %q, want 64 hex digits", base)
	}
	for _, tc := range []struct {
		name    string
		change  func(*corev1.ConfigMap)
		changes bool
	}{
		{"the same entry", func(*corev1.ConfigMap) {}, false},
		{"another object's metadata (name, labels, resourceVersion)", func(cm *corev1.ConfigMap) {
			cm.Name, cm.ResourceVersion, cm.Labels = "task-a-copy", "42", map[string]string{"suite": "x"}
		}, false},
		{"an annotation that is not the task's (kubectl's last-applied)", func(cm *corev1.ConfigMap) {
			cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}"
		}, false},
		{"task.toml", func(cm *corev1.ConfigMap) { cm.Data[evalv1.TaskTOMLKey] += "# more\n" }, true},
		{"the instruction", func(cm *corev1.ConfigMap) { cm.Data[evalv1.InstructionKey] = "Fix it twice." }, true},
		{"an image annotation", func(cm *corev1.ConfigMap) { cm.Annotations[evalv1.AnnotationAgentImage] = "tasks/a:env2" }, true},
		{"binary data", func(cm *corev1.ConfigMap) { cm.BinaryData = map[string][]byte{"blob": {0}} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := taskConfigMap()
			tc.change(cm)
			if got := TaskEntrySHA256(cm); (got != base) != tc.changes {
				t.Errorf("hash changed = %v, want %v", got != base, tc.changes)
			}
		})
	}
}

func TestAgentConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		agent evalv1.AgentSpec
		want  map[string]string
	}{
		{"nop", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}, map[string]string{"kind": "nop"}},
		{"oracle", evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}, map[string]string{"kind": "oracle"}},
		{"patch: the Secret's name", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}},
			map[string]string{"kind": "patch", "patchSecret": "patches"}},
		{"external: a Secret's value only by reference", evalv1.AgentSpec{External: &evalv1.ExternalAgent{
			Image: "agents/claude:1", BundlePath: "/agent", Command: []string{"/sweep/agent/run.sh"}, Args: []string{"--model", "m-1"},
			Env: []corev1.EnvVar{
				{Name: "MODEL", Value: "m-1"},
				{Name: "API_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "model-creds"}, Key: "key"}}},
				{Name: "SETTINGS", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
					LocalObjectReference: corev1.LocalObjectReference{Name: "agent-settings"}, Key: "json"}}},
				{Name: "NODE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			},
		}}, map[string]string{
			"kind": "external", "image": "agents/claude:1", "bundlePath": "/agent",
			"command": `["/sweep/agent/run.sh"]`, "args": `["--model","m-1"]`,
			"env.MODEL": "m-1", "env.API_KEY": "secretKeyRef:model-creds/key",
			"env.SETTINGS": "configMapKeyRef:agent-settings/json", "env.NODE": "fieldRef:spec.nodeName",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, AgentConfig(tc.agent)); diff != "" {
				t.Errorf("AgentConfig (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForTrial(t *testing.T) {
	trial := func(grader string) *evalv1.TaskTrial {
		return &evalv1.TaskTrial{
			ObjectMeta: metav1.ObjectMeta{Name: "t", Annotations: map[string]string{evalv1.AnnotationTaskSHA256: "abc"}},
			Spec:       evalv1.TaskTrialSpec{Grader: grader, Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}},
		}
	}
	for _, tc := range []struct {
		name, grader string
		want         *evalv1.Provenance
	}{
		{"the bundle grader reads with testresults", "swesweep", &evalv1.Provenance{OperatorVersion: "v1", TaskDefinitionSHA256: "abc",
			Grader: "swesweep/" + swesweep.GraderVersion, Parser: "testresults/" + testresults.Version, Agent: map[string]string{"kind": "nop"}}},
		{"the SWE-bench grader reads with logparse over testresults", "swebench", &evalv1.Provenance{OperatorVersion: "v1", TaskDefinitionSHA256: "abc",
			Grader: "swebench/" + swebench.GraderVersion, Parser: "logparse/" + logparse.Version + " testresults/" + testresults.Version, Agent: map[string]string{"kind": "nop"}}},
		{"tests/test.sh reads its own results", "", &evalv1.Provenance{OperatorVersion: "v1", TaskDefinitionSHA256: "abc",
			Grader: "test-script/" + grading.TestScriptVersion, Agent: map[string]string{"kind": "nop"}}},
		{"an unknown grader names none (the trial fails InvalidTask)", "nosuch", &evalv1.Provenance{OperatorVersion: "v1", TaskDefinitionSHA256: "abc",
			Agent: map[string]string{"kind": "nop"}}},
		{"a regrade names the trial it grades again", "regrade", &evalv1.Provenance{OperatorVersion: "v1", TaskDefinitionSHA256: "abc",
			Grader: "test-script/" + grading.TestScriptVersion, Agent: map[string]string{"kind": "nop"}, RegradeOf: "c-a-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := trial(tc.grader)
			if tc.grader == "regrade" {
				tr = trial("")
				tr.Spec.RegradeOf = "c-a-1"
			}
			if diff := cmp.Diff(tc.want, ForTrial(tr, "v1")); diff != "" {
				t.Errorf("ForTrial (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatVersion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client version.Client
		want   string
	}{
		{"a release", version.Client{Version: "v0.3.0"}, "v0.3.0"},
		{"a commit", version.Client{Version: "(devel)", Revision: "0123456789abcdef0123"}, "(devel) 0123456789ab"},
		{"a modified work tree", version.Client{Version: "(devel)", Revision: "0123456789abcdef0123", Modified: true}, "(devel) 0123456789ab-dirty"},
		{"a short revision", version.Client{Version: "v1", Revision: "abc"}, "v1 abc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatVersion(tc.client); got != tc.want {
				t.Errorf("FormatVersion = %q, want %q", got, tc.want)
			}
		})
	}
	if OperatorVersion() == "" {
		t.Error("OperatorVersion is empty: want the build's version or (devel)")
	}
}

func TestGradingVersion(t *testing.T) {
	ev, err := json.Marshal(swebench.GraderEval{Schema: swebench.GraderEvalSchema, GradingVersion: swebench.V5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		eval []byte
		want string
	}{
		{"the SWE-bench grader's eval.json", ev, "5"},
		{"another grader's eval.json", []byte(`{"schema":"swesweep-eval/1","grading_version":"9"}`), ""},
		{"no eval.json", nil, ""},
		{"not JSON", []byte("{"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GradingVersion(tc.eval); got != tc.want {
				t.Errorf("GradingVersion = %q, want %q", got, tc.want)
			}
		})
	}
}
