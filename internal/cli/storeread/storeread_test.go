package storeread

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsURL(t *testing.T) {
	for arg, want := range map[string]bool{
		"file:///var/lib/sweep-operator/store/evals/nightly": true,
		"s3://records/evals/nightly?region=eu-west-1":        true,
		"ftp://host/x": true, // a store URL with an unknown scheme: Open says so
		"jobs/nightly": false,
		"nightly":      false,
	} {
		if got := IsURL(arg); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", arg, got, want)
		}
	}
}

func TestMatchJobFolders(t *testing.T) {
	keys := []string{
		"nightly-0123abcd/config.json",
		"nightly-0123abcd/demo__abc1234/config.json", // a trial's, not a job's
		"nightly-2-89abcdef/config.json",             // campaign nightly-2
		"nightly-4567cdef/config.json",
		"nightly-XYZ/config.json", // not a UID's prefix
		"nightly-0123abcde/config.json",
		"weekly-89abcdef/config.json",
		"weekly-89abcdef/result.json",
	}
	for _, tc := range []struct {
		name          string
		match, others []string
	}{
		{"nightly", []string{"nightly-0123abcd", "nightly-4567cdef"}, []string{"nightly-0123abcde", "nightly-2-89abcdef", "nightly-XYZ", "weekly-89abcdef"}},
		{"nightly-2", []string{"nightly-2-89abcdef"}, []string{"nightly-0123abcd", "nightly-0123abcde", "nightly-4567cdef", "nightly-XYZ", "weekly-89abcdef"}},
		{"monthly", nil, []string{"nightly-0123abcd", "nightly-0123abcde", "nightly-2-89abcdef", "nightly-4567cdef", "nightly-XYZ", "weekly-89abcdef"}},
		{"night.y", nil, []string{"nightly-0123abcd", "nightly-0123abcde", "nightly-2-89abcdef", "nightly-4567cdef", "nightly-XYZ", "weekly-89abcdef"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			match, others := matchJobFolders(keys, tc.name)
			if diff := cmp.Diff(tc.match, match); diff != "" {
				t.Errorf("match (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.others, others); diff != "" {
				t.Errorf("others (-want +got):\n%s", diff)
			}
		})
	}
}
