package swebenchcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/test/swebenchgen"
)

// Limits an import's objects must stay within to apply: the API server's request size (and
// etcd's value size), and the annotations client-side `kubectl apply` would add
// (last-applied-configuration: the whole object), which import's printed command avoids with
// --server-side.
const (
	maxRequestBytes     = 3 << 19 // 1.5 MiB
	maxAnnotationsBytes = 256 << 10
)

// generatedImport imports a dataset of n generated instances with patches of size into a new
// folder, as `sweep swebench import` does.
func generatedImport(tb testing.TB, n int, size func(int) int) (out string, patchBytes int) {
	tb.Helper()
	files, err := swebenchgen.Write(tb.TempDir(), swebenchgen.Options{Instances: n, PatchBytes: size})
	if err != nil {
		tb.Fatal(err)
	}
	o := &ImportOptions{Instances: files.Instances, Predictions: files.Predictions, OutDir: filepath.Join(tb.TempDir(), "out"),
		Grading: string(swebench.V5), TimeoutSec: swebench.DefaultTimeoutSec, Name: "full", NamespaceLess: true}
	if _, stderr, err := clitest.Execute(context.Background(), o); err != nil {
		tb.Fatalf("import: %v\n%s", err, stderr)
	}
	return o.OutDir, files.PatchBytes
}

// decodeObjects reads the rendered kustomization's objects.
func decodeObjects(tb testing.TB, rendered []byte) []*unstructured.Unstructured {
	tb.Helper()
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		obj := &unstructured.Unstructured{}
		err := dec.Decode(&obj.Object)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			tb.Fatal(err)
		}
		objs = append(objs, obj)
	}
}

// objectFigures are the objects of an import by kind, their JSON bytes together and the
// largest object.
type objectFigures struct {
	byKind         map[string]int
	bytes, largest int
	largestName    string
}

func figuresOf(tb testing.TB, objs []*unstructured.Unstructured) objectFigures {
	tb.Helper()
	f := objectFigures{byKind: map[string]int{}}
	for _, obj := range objs {
		b, err := json.Marshal(obj.Object)
		if err != nil {
			tb.Fatal(err)
		}
		f.byKind[obj.GetKind()]++
		f.bytes += len(b)
		if len(b) > f.largest {
			f.largest, f.largestName = len(b), obj.GetKind()+" "+obj.GetName()
		}
	}
	return f
}

// ScaleEnv sets how many instances TestImportAtScale imports: Verified's 500 by default (about
// half a minute), Full's 2,294 with SWEEP_SWEBENCH_INSTANCES=2294 (kustomize's build grows with
// the square of the objects: about ten minutes on two cores).
const ScaleEnv = "SWEEP_SWEBENCH_INSTANCES"

func scaleInstances(t *testing.T) int {
	v := os.Getenv(ScaleEnv)
	if v == "" {
		return swebenchgen.VerifiedInstances
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a number of instances, for example %d (Full)", ScaleEnv, v, swebenchgen.FullInstances)
	}
	return n
}

// An import of Verified's or Full's size (500 or 2,294 instances, model patches up to 100 KiB)
// builds, every object within the API server's limits, and applies to an API server with
// server-side apply: the done-criterion's "a 2,294-instance import applies".
func TestImportAtScale(t *testing.T) {
	n := scaleInstances(t)
	start := time.Now()
	out, patchBytes := generatedImport(t, n, swebenchgen.SpreadSizes(100<<10))
	imported := time.Since(start)
	rendered, err := catalogue.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	objs := decodeObjects(t, rendered)
	f := figuresOf(t, objs)
	if diff := cmp.Diff(map[string]int{"ConfigMap": 2*n + 1, "Secret": n, "SweepRun": 1}, f.byKind); diff != "" {
		t.Errorf("objects by kind (-want +got):\n%s", diff)
	}
	if f.largest > maxRequestBytes {
		t.Errorf("%s has %d bytes, more than the API server takes", f.largestName, f.largest)
	}
	if f.largest > maxAnnotationsBytes {
		t.Logf("%s (%d bytes) is more than client-side apply's last-applied annotation holds: apply with --server-side, as import says", f.largestName, f.largest)
	}
	t.Logf("import of %d instances: %s; %d objects (%v), %d bytes of JSON, the largest %s of %d bytes; %d bytes of model patches",
		n, imported.Round(time.Millisecond), len(objs), f.byKind, f.bytes, f.largestName, f.largest, patchBytes)

	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	ctx := context.Background()
	start = time.Now()
	for _, obj := range objs {
		obj.SetNamespace(ns)
		if err := cl.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			t.Fatalf("server-side apply of %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
	applied := time.Since(start)
	stored := 0
	cms, secrets := &corev1.ConfigMapList{}, &corev1.SecretList{}
	for _, list := range []client.ObjectList{cms, secrets} {
		if err := cl.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{ImportLabel: "full"}); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		stored += len(b)
	}
	if len(cms.Items) != 2*n+1 || len(secrets.Items) != n {
		t.Errorf("the API server holds %d ConfigMaps and %d Secrets of the import, want %d and %d", len(cms.Items), len(secrets.Items), 2*n+1, n)
	}
	run := &evalv1.SweepRun{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: "full"}, run); err != nil {
		t.Fatal(err)
	}
	t.Logf("server-side apply of %d objects: %s; %d bytes stored (the ConfigMaps and Secrets as the API server returns them, managed fields included)",
		len(objs), applied.Round(time.Millisecond), stored)
}

// BenchmarkImport2294 is `sweep swebench import` of Full's 2,294 instances with 20 KiB model
// patches: the kustomization written and built, the objects and bytes it creates.
func BenchmarkImport2294(b *testing.B) {
	files, err := swebenchgen.Write(b.TempDir(), swebenchgen.Options{Instances: swebenchgen.FullInstances, PatchBytes: swebenchgen.FixedSize(20 << 10)})
	if err != nil {
		b.Fatal(err)
	}
	var out string
	for i := 0; b.Loop(); i++ {
		o := &ImportOptions{Instances: files.Instances, Predictions: files.Predictions, OutDir: filepath.Join(b.TempDir(), "out"),
			Grading: string(swebench.V5), TimeoutSec: swebench.DefaultTimeoutSec, Name: "full", NamespaceLess: true}
		if _, stderr, err := clitest.Execute(context.Background(), o); err != nil {
			b.Fatalf("import: %v\n%s", err, stderr)
		}
		out = o.OutDir
	}
	b.StopTimer()
	rendered, err := catalogue.Render(out)
	if err != nil {
		b.Fatal(err)
	}
	f := figuresOf(b, decodeObjects(b, rendered))
	objects := 0
	for _, c := range f.byKind {
		objects += c
	}
	b.ReportMetric(float64(objects), "objects/op")
	b.ReportMetric(float64(f.bytes), "object-bytes/op")
	b.ReportMetric(float64(files.PatchBytes), "patch-bytes/op")
	b.ReportMetric(float64(f.largest), "largest-object-bytes")
}
