package memlimit

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestContainer(t *testing.T) {
	type result struct {
		Limit int64
		OK    bool
		Err   bool
	}
	for name, tc := range map[string]struct {
		files fstest.MapFS
		want  result
	}{
		"cgroup v2 with a limit": {files: fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("536870912\n")}},
			want: result{Limit: 536870912, OK: true}},
		"cgroup v2 without one": {files: fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("max\n")}}},
		"cgroup v1 with a limit": {files: fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("268435456\n")}},
			want: result{Limit: 268435456, OK: true}},
		"cgroup v1 without one": {files: fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")}}},
		"no cgroup files":       {files: fstest.MapFS{}},
		"a file that is not a count": {files: fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte("lots\n")}},
			want: result{Err: true}},
	} {
		t.Run(name, func(t *testing.T) {
			limit, ok, err := Container(tc.files)
			if d := cmp.Diff(tc.want, result{Limit: limit, OK: ok, Err: err != nil}); d != "" {
				t.Errorf("Container (-want +got):\n%s (err %v)", d, err)
			}
		})
	}
}

func TestFor(t *testing.T) {
	if got, want := For(512<<20), int64(483183820); got != want {
		t.Errorf("For(512 MiB) = %d, want %d", got, want)
	}
}
