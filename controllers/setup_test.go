package controllers

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func TestParseNamespaces(t *testing.T) {
	cases := map[string]struct {
		flag    string
		want    []string
		wantErr string
	}{
		"every namespace":         {flag: ""},
		"two":                     {flag: "team-a,team-b", want: []string{"team-a", "team-b"}},
		"spaces and repeats":      {flag: " team-a , team-a,,team-b ", want: []string{"team-a", "team-b"}},
		"not a namespace name":    {flag: "team-a,Team_B", wantErr: `--watch-namespaces: "Team_B" is not a namespace name`},
		"a selector is not names": {flag: "env=prod", wantErr: `--watch-namespaces: "env=prod" is not a namespace name`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseNamespaces(tc.flag)
			switch {
			case tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) || !strings.HasSuffix(err.Error(), "give comma-separated namespaces, such as team-a,team-b")):
				t.Fatalf("ParseNamespaces(%q) error = %v, want %q ... and the fix", tc.flag, err, tc.wantErr)
			case tc.wantErr == "" && err != nil:
				t.Fatalf("ParseNamespaces(%q): %v", tc.flag, err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ParseNamespaces(%q) (-want +got):\n%s", tc.flag, d)
			}
		})
	}
}

// TestSecretsAreNeverCached: the manager only creates Secrets, so its cache has no informer
// for them and its client reads them, if ever, from the API server, where its RBAC refuses.
func TestSecretsAreNeverCached(t *testing.T) {
	for obj := range CacheOptions(nil).ByObject {
		if _, ok := obj.(*corev1.Secret); ok {
			t.Error("CacheOptions caches Secrets")
		}
	}
	disabled := false
	for _, obj := range ClientOptions().Cache.DisableFor {
		_, ok := obj.(*corev1.Secret)
		disabled = disabled || ok
	}
	if !disabled {
		t.Error("ClientOptions read Secrets through the cache")
	}
}

func TestCacheOptionsNamespaces(t *testing.T) {
	if got := CacheOptions(nil).DefaultNamespaces; got != nil {
		t.Errorf("no --watch-namespaces: DefaultNamespaces = %v, want every namespace (nil)", got)
	}
	want := map[string]cache.Config{"team-a": {}, "team-b": {}}
	if d := cmp.Diff(want, CacheOptions([]string{"team-a", "team-b"}).DefaultNamespaces); d != "" {
		t.Errorf("DefaultNamespaces (-want +got):\n%s", d)
	}
}

// TestTrialJobsAndPodsAreTrimmed: the trial Jobs and Pods in flight are cached as
// internal/cachetrim trims them, not whole, and TaskTrials interned.
func TestTrialJobsAndPodsAreTrimmed(t *testing.T) {
	trimmed := map[string]bool{}
	for obj, by := range CacheOptions(nil).ByObject {
		switch obj.(type) {
		case *batchv1.Job:
			trimmed["Job"] = by.Transform != nil
		case *corev1.Pod:
			trimmed["Pod"] = by.Transform != nil
		case *evalv1.TaskTrial:
			trimmed["TaskTrial"] = by.Transform != nil
		}
	}
	if diff := cmp.Diff(map[string]bool{"Job": true, "Pod": true, "TaskTrial": true}, trimmed); diff != "" {
		t.Errorf("cached with a trimming transform (-want +got):\n%s", diff)
	}
}
