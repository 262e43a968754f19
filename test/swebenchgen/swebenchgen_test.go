package swebenchgen

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/swebench"
)

// Full's size reads back with the loaders import uses: every repository in Full's count, every
// instance with a prediction, the patches within 100 KiB and the largest at it.
func TestWriteFull(t *testing.T) {
	f, err := Write(t.TempDir(), Options{Instances: FullInstances})
	if err != nil {
		t.Fatal(err)
	}
	insts, err := swebench.LoadInstances(f.Instances)
	if err != nil {
		t.Fatal(err)
	}
	preds, err := swebench.LoadPredictions(f.Predictions)
	if err != nil {
		t.Fatal(err)
	}
	m, err := swebench.MatchPredictions(insts, preds)
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != FullInstances || len(m.ToRun) != FullInstances {
		t.Fatalf("%d instances, %d to run; want %d", len(insts), len(m.ToRun), FullInstances)
	}
	byRepo := map[string]int{}
	for _, inst := range insts {
		byRepo[inst.Repo]++
		if len(inst.FailToPass) != 1 || len(inst.PassToPass) != 40 || len(inst.BaseCommit) != 40 {
			t.Fatalf("instance %s: %d FAIL_TO_PASS, %d PASS_TO_PASS, base_commit %q", inst.InstanceID, len(inst.FailToPass), len(inst.PassToPass), inst.BaseCommit)
		}
	}
	want := map[string]int{}
	for _, r := range fullRepos {
		want[r.repo] = r.count
	}
	if diff := cmp.Diff(want, byRepo); diff != "" {
		t.Errorf("instances by repository (-Full +got):\n%s", diff)
	}
	largest := 0
	for _, p := range preds {
		largest = max(largest, len(*p.ModelPatch))
	}
	if largest > 100<<10 || largest < 99<<10 {
		t.Errorf("the largest patch has %d bytes, want about 100 KiB", largest)
	}
}

// Real instances come first, with their own patches; the rest keep Full's proportions.
func TestWriteReal(t *testing.T) {
	real := swebench.Instance{InstanceID: "sweep-samples__calc-engine-1", Repo: "sweep-samples/calc-engine", BaseCommit: "baseline", TestPatch: "diff"}
	f, err := Write(t.TempDir(), Options{Instances: 10, Real: []swebench.Instance{real}, Patches: []string{"fix"}, PatchBytes: FixedSize(1000)})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := swebench.LoadPredictions(f.Predictions)
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != 10 || preds[0].InstanceID != real.InstanceID || *preds[0].ModelPatch != "fix" {
		t.Errorf("predictions: %d, first %+v", len(preds), preds[0])
	}
	if _, err := Write(t.TempDir(), Options{Instances: 1, Real: []swebench.Instance{real}}); err == nil {
		t.Error("a real instance without its patch was accepted")
	}
}

func TestRepos(t *testing.T) {
	for _, n := range []int{1, 50, VerifiedInstances, FullInstances} {
		if got := len(Repos(n)); got != n {
			t.Errorf("Repos(%d) has %d", n, got)
		}
	}
}
