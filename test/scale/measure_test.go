package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

func TestCountRequests(t *testing.T) {
	lines := []string{
		// A watch counts at its start, not again at its end.
		`{"stage":"ResponseStarted","verb":"watch","user":{"username":"mgr"},"objectRef":{"resource":"pods"}}`,
		`{"stage":"ResponseComplete","verb":"watch","user":{"username":"mgr"},"objectRef":{"resource":"pods"}}`,
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"mgr"},"objectRef":{"resource":"jobs","name":"t-agent-0"},"responseStatus":{"code":201}}`,
		// A create refused as a conflict is a request, not a Job.
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"mgr"},"objectRef":{"resource":"jobs","name":"t-agent-0"},"responseStatus":{"code":409}}`,
		`{"stage":"ResponseComplete","verb":"update","user":{"username":"mgr"},"objectRef":{"resource":"tasktrials","subresource":"status"}}`,
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"mgr"},"objectRef":{"resource":"events"}}`,
		`{"stage":"ResponseComplete","verb":"get","user":{"username":"mgr"}}`,
		`{"stage":"ResponseComplete","verb":"create","user":{"username":"someone-else"},"objectRef":{"resource":"jobs"}}`,
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := countRequests(path, []string{"mgr"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*requestCounts{"mgr": {Total: 6, Writes: 3, Events: 1,
		ByVerbResource: map[string]int{"watch pods": 1, "create jobs": 2, "update tasktrials/status": 1, "create events": 1, "get (non-resource)": 1},
		jobsCreated:    map[string]int{"t-agent-0": 1}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(requestCounts{})); diff != "" {
		t.Errorf("countRequests (-want +got):\n%s", diff)
	}
}

func TestBucketQuantile(t *testing.T) {
	bucket := func(upper float64, count uint64) *dto.Bucket {
		return &dto.Bucket{UpperBound: proto.Float64(upper), CumulativeCount: proto.Uint64(count)}
	}
	// 100 samples: 50 up to 0.01 s, 40 more up to 0.1 s, 10 more up to 1 s.
	h := &dto.Histogram{SampleCount: proto.Uint64(100), Bucket: []*dto.Bucket{bucket(0.01, 50), bucket(0.1, 90), bucket(1, 100)}}
	tests := []struct {
		q, want float64
	}{
		{0.5, 0.01},
		{0.7, 0.01 + 0.09*20/40},
		{0.99, 0.1 + 0.9*9/10},
	}
	for _, tt := range tests {
		if got := bucketQuantile(tt.q, h); !cmp.Equal(tt.want, got, cmpopts.EquateApprox(0, 1e-9)) {
			t.Errorf("bucketQuantile(%v) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := bucketQuantile(0.5, &dto.Histogram{}); got != 0 {
		t.Errorf("bucketQuantile of no samples = %v, want 0", got)
	}
}

func TestProcessCPU(t *testing.T) {
	child := exec.Command("tail", "-f", "/dev/null")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	// A grandchild, through the launcher as the CLIs run: the launcher counts as this program.
	// It ends by itself, so that the launcher reaps it.
	launched, err := measuredCommand(filepath.Join(t.TempDir(), "usage"), "sleep", "1.5")
	if err != nil {
		t.Fatal(err)
	}
	if err := launched.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = launched.Wait() }()
	// The launcher needs a moment to start its child.
	var names []string
	for try := 0; try < 50; try++ {
		got, err := processCPU()
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for name := range got {
			names = append(names, name)
		}
		if len(names) == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	// This test's process, its child and its launched grandchild; no other process.
	if diff := cmp.Diff([]string{"harness", "sleep", "tail"}, names, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("processCPU() names (-want +got):\n%s", diff)
	}
}

func TestCPUPerTrial(t *testing.T) {
	before := map[string]float64{"harness": 1, "kube-apiserver": 10, "manager": 2}
	// The manager of the phase before has ended; kube-scheduler started within the phase.
	after := map[string]float64{"harness": 3, "kube-apiserver": 30, "kube-scheduler": 4}
	want := map[string]float64{"harness": 0.2, "kube-apiserver": 2, "kube-scheduler": 0.4}
	got := cpuPerTrial(before, after, 10)
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("cpuPerTrial (-want +got):\n%s", diff)
	}
	if got, want := cpuByProcess(got), "kube-apiserver 2.000, kube-scheduler 0.400, harness 0.200, total 2.600"; got != want {
		t.Errorf("cpuByProcess = %q, want %q", got, want)
	}
}
