package charts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	lua "github.com/yuin/gopher-lua"
)

// healthScript is the Argo CD health check the chart ships and docs/gitops.md shows.
var healthScript = filepath.Join("sweep-operator", "files", "argocd-health.lua")

// health is what an Argo CD health script returns.
type health struct{ Status, Message string }

// argoHealth runs the script as Argo CD does: the object as the global obj, the returned
// table read for status and message.
func argoHealth(t *testing.T, script string, obj map[string]any) health {
	t.Helper()
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	// Argo CD opens only these libraries for health scripts.
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", luaValue(L, obj))
	if err := L.DoString(script); err != nil {
		t.Fatalf("the health script failed: %v", err)
	}
	ret, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		t.Fatalf("the health script returned %s, want a table", L.Get(-1).Type())
	}
	return health{Status: lua.LVAsString(ret.RawGetString("status")), Message: lua.LVAsString(ret.RawGetString("message"))}
}

// luaValue converts decoded JSON into Lua values, lists as 1-based tables, as Argo CD does.
func luaValue(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := L.NewTable()
		for k, e := range v {
			t.RawSetString(k, luaValue(L, e))
		}
		return t
	case []any:
		t := L.NewTable()
		for _, e := range v {
			t.Append(luaValue(L, e))
		}
		return t
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	}
	return lua.LNil
}

// The fixtures are SweepRuns recorded from the local cluster in each state (namespace renamed).
func TestArgoCDHealth(t *testing.T) {
	script, err := os.ReadFile(healthScript)
	if err != nil {
		t.Fatal(err)
	}
	for fixture, want := range map[string]health{
		"unobserved":              {"Progressing", "waiting for the operator to observe this generation"},
		"spec-changed-unobserved": {"Progressing", "waiting for the operator to observe this generation"},
		"running":                 {"Progressing", "1/2 trials finished, 1 running"},
		"complete":                {"Healthy", "score 1.0000 over 8 bugs (0 evaluation failures)"},
		"suspended":               {"Suspended", "spec.suspend is true: no new trials start; running trials finish"},
		"tasks-missing":           {"Degraded", "no task ConfigMap labelled eval.sweep.dev/task for: no-such-task; apply the task catalogue"},
		"nothing-measured":        {"Degraded", "every trial ended without a measurement (1 evaluation failures); see the trials' reasons"},
		"infrastructure-failing": {"Degraded", "the last 3 finished trials all ended Error on infrastructure, their retries spent: " +
			"stalled-infra-missing-image-2 (ImagePullFailed), stalled-infra-missing-image-3 (ImagePullFailed), stalled-infra-missing-image-4 (ImagePullFailed); " +
			"new trials still start: read the trials' messages (`kubectl describe tasktrial`) and fix the cluster (images, nodes, quotas)"},
	} {
		t.Run(fixture, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "argocd-health", fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			obj := map[string]any{}
			if err := json.Unmarshal(b, &obj); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, argoHealth(t, string(script), obj)); diff != "" {
				t.Errorf("health (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("no status at all", func(t *testing.T) {
		got := argoHealth(t, string(script), map[string]any{"metadata": map[string]any{"name": "new", "generation": float64(1)}})
		if got.Status != "Progressing" {
			t.Errorf("status = %q, want Progressing", got.Status)
		}
	})
}

// docs/gitops.md shows the script the chart ships, byte for byte, in its argocd-cm snippet.
func TestGitOpsDocShowsTheHealthScript(t *testing.T) {
	script, err := os.ReadFile(healthScript)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "gitops.md"))
	if err != nil {
		t.Fatal(err)
	}
	var indented strings.Builder
	for _, line := range strings.SplitAfter(strings.TrimSuffix(string(script), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			indented.WriteString("\n")
			continue
		}
		indented.WriteString("    " + line)
	}
	if !strings.Contains(string(doc), "  resource.customizations.health.eval.sweep.dev_SweepRun: |\n"+indented.String()+"\n") {
		t.Errorf("docs/gitops.md's argocd-cm snippet is not %s indented by four spaces: copy it again", healthScript)
	}
}
