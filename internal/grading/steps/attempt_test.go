package steps

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAttempt(t *testing.T) {
	tests := map[string]struct {
		grade   func() error
		wantErr string
		wantLog string
	}{
		"succeeds": {grade: func() error { return nil }},
		"fails":    {grade: func() error { return errors.New("no bundle") }, wantErr: "no bundle", wantLog: "[grader] failed: no bundle\n"},
		"panics":   {grade: func() error { panic("boom") }, wantErr: "grader panic: boom", wantLog: "[grader] failed: grader panic: boom\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var log bytes.Buffer
			seconds, err := Attempt(&log, tc.grade)
			if got := errString(err); got != tc.wantErr {
				t.Errorf("err = %q, want %q", got, tc.wantErr)
			}
			if log.String() != tc.wantLog {
				t.Errorf("log = %q, want %q", log.String(), tc.wantLog)
			}
			if seconds < 0 {
				t.Errorf("seconds = %g", seconds)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestTimingsAddUp(t *testing.T) {
	timings := Timings{}
	boom := errors.New("boom")
	if err := timings.Time("bugs", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := timings.Time("bugs", func() error { return boom }); err != boom {
		t.Errorf("Time returned %v, want fn's error", err)
	}
	if diff := cmp.Diff([]string{"bugs"}, keys(timings)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func keys(m Timings) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
