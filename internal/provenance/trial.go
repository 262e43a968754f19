package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"runtime/debug"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/version"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

// annotationPrefix marks the annotations that belong to a task's catalogue entry; others
// (kubectl's last-applied configuration, a GitOps tool's) are not the task.
const annotationPrefix = "eval.sweep.dev/"

// TaskEntrySHA256 is the SHA-256 (hex) of a task's catalogue entry: its ConfigMap's data,
// binary data and eval.sweep.dev/ annotations (images, grader, bugs), as canonical JSON
// (sorted keys). The grader ConfigMap it names is a separate object, not hashed here.
func TaskEntrySHA256(cm *corev1.ConfigMap) string {
	entry := struct {
		Annotations map[string]string `json:"annotations"`
		Data        map[string]string `json:"data"`
		BinaryData  map[string][]byte `json:"binaryData"`
	}{Annotations: map[string]string{}, Data: cm.Data, BinaryData: cm.BinaryData}
	for k, v := range cm.Annotations {
		if strings.HasPrefix(k, annotationPrefix) {
			entry.Annotations[k] = v
		}
	}
	b, err := json.Marshal(entry)
	if err != nil {
		// Maps of strings and bytes always encode.
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// AgentConfig is the agent's configuration as a record shows it: its kind, and for an external
// agent its image, bundle path, command, args and env. An env var taken from a Secret or a
// ConfigMap shows its reference, never the value (the manager never reads a Secret); a plain
// value is the spec's own, as readable as the SweepRun.
func AgentConfig(a evalv1.AgentSpec) map[string]string {
	out := map[string]string{"kind": a.Kind()}
	if a.Patch != nil {
		out["patchSecret"] = a.Patch.SecretName
	}
	e := a.External
	if e == nil {
		return out
	}
	out["image"], out["bundlePath"] = e.Image, e.BundlePath
	out["command"] = jsonList(e.Command)
	if len(e.Args) > 0 {
		out["args"] = jsonList(e.Args)
	}
	for _, v := range e.Env {
		out["env."+v.Name] = envValue(v)
	}
	return out
}

func jsonList(s []string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string list always encodes
	}
	return string(b)
}

func envValue(v corev1.EnvVar) string {
	f := v.ValueFrom
	switch {
	case f == nil:
		return v.Value
	case f.SecretKeyRef != nil:
		return "secretKeyRef:" + f.SecretKeyRef.Name + "/" + f.SecretKeyRef.Key
	case f.ConfigMapKeyRef != nil:
		return "configMapKeyRef:" + f.ConfigMapKeyRef.Name + "/" + f.ConfigMapKeyRef.Key
	case f.FieldRef != nil:
		return "fieldRef:" + f.FieldRef.FieldPath
	case f.ResourceFieldRef != nil:
		return "resourceFieldRef:" + f.ResourceFieldRef.Resource
	}
	return "valueFrom"
}

// ForTrial is the provenance a trial has from its creation: everything but the images (which
// its Pods report) and the grading version (which its grader reports). An unknown grader
// leaves Grader and Parser empty: the trial fails InvalidTask.
func ForTrial(trial *evalv1.TaskTrial, operatorVersion string) *evalv1.Provenance {
	p := &evalv1.Provenance{
		OperatorVersion:      operatorVersion,
		TaskDefinitionSHA256: trial.Annotations[evalv1.AnnotationTaskSHA256],
		Agent:                AgentConfig(trial.Spec.Agent),
		RegradeOf:            trial.Spec.RegradeOf,
	}
	if g, err := grading.Lookup(trial.Spec.Grader); err == nil {
		p.Grader, p.Parser = grading.Versioned(g), g.Parser()
	}
	return p
}

// OperatorVersion is this binary's version as `sweep version` reads it, with the commit it
// was built from when Go recorded one.
var OperatorVersion = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return FormatVersion(version.ReadClient(bi))
})

// FormatVersion is a build's version for provenance: "v0.3.0", "(devel) 0123456789ab",
// "(devel) 0123456789ab-dirty".
func FormatVersion(c version.Client) string {
	if c.Revision == "" {
		return c.Version
	}
	rev := c.Revision[:min(len(c.Revision), 12)]
	if c.Modified {
		rev += "-dirty"
	}
	return c.Version + " " + rev
}

// GradingVersion is the grading rules a grader's eval.json says it followed: the SWE-bench
// grader's harness version; "" for any other eval.json.
func GradingVersion(evalJSON []byte) string {
	var ev swebench.GraderEval
	if json.Unmarshal(evalJSON, &ev) != nil || ev.Schema != swebench.GraderEvalSchema {
		return ""
	}
	return string(ev.GradingVersion)
}
