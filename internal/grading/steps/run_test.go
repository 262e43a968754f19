package steps

import (
	"bytes"
	"context"
	"testing"
	"time"
)

func TestRunUnderTimeout(t *testing.T) {
	tests := map[string]struct {
		cmd          Command
		wantExit     int
		wantTimedOut bool
		wantStartErr bool
		wantOutput   string
	}{
		"passes":       {cmd: Command{Path: "sh", Args: []string{"-c", "echo hi"}, Timeout: 10 * time.Second}, wantOutput: "hi\n"},
		"fails":        {cmd: Command{Path: "sh", Args: []string{"-c", "exit 3"}, Timeout: 10 * time.Second}, wantExit: 3},
		"env":          {cmd: Command{Path: "sh", Args: []string{"-c", "echo $X"}, Env: []string{"X=set"}, Timeout: 10 * time.Second}, wantOutput: "set\n"},
		"times out":    {cmd: Command{Path: "sh", Args: []string{"-c", "sleep 30"}, Timeout: 200 * time.Millisecond, Grace: 100 * time.Millisecond}, wantExit: -1, wantTimedOut: true},
		"no time left": {cmd: Command{Path: "sh", Args: []string{"-c", "echo never"}}, wantExit: -1, wantTimedOut: true},
		"cannot start": {cmd: Command{Path: "/nonexistent/binary", Timeout: 10 * time.Second}, wantExit: -1, wantStartErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			tc.cmd.Dir, tc.cmd.Output = t.TempDir(), &out
			res := RunUnderTimeout(context.Background(), tc.cmd)
			if res.ExitCode != tc.wantExit || res.TimedOut != tc.wantTimedOut || (res.StartErr != nil) != tc.wantStartErr {
				t.Errorf("result = exit %d, timed out %v, start error %v; want exit %d, timed out %v, start error %v",
					res.ExitCode, res.TimedOut, res.StartErr, tc.wantExit, tc.wantTimedOut, tc.wantStartErr)
			}
			if out.String() != tc.wantOutput {
				t.Errorf("output = %q, want %q", out.String(), tc.wantOutput)
			}
			if s := Seconds(res); s < 0 {
				t.Errorf("Seconds = %g", s)
			}
		})
	}
}
