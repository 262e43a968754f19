package version

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadClient(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    Client
	}{
		{"no build info", "", nil, Client{Version: "(devel)"}},
		{"go build in a work tree", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			Client{Version: "(devel)", Revision: "0123abc", BuildTime: "2026-12-01T10:00:00Z", Modified: true, GoVersion: "go1.26.8"}},
		{"go install of a tag", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}},
			Client{Version: "v0.3.0", GoVersion: "go1.26.8"}},
		{"-ldflags -X wins", "v0.4.0-rc.1", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			Client{Version: "v0.4.0-rc.1", GoVersion: "go1.26.8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(v string) { Version = v }(Version)
			Version = tc.ldflags
			if diff := cmp.Diff(tc.want, ReadClient(tc.bi)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
