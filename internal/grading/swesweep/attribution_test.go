package swesweep

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAttributeHang(t *testing.T) {
	for name, tc := range map[string]struct {
		rerun *StepReport
		want  hangCause
	}{
		"no time left to rerun":            {rerun: nil, want: hangNotMeasured},
		"the unpatched tree hangs too":     {rerun: &StepReport{TimedOut: true, ExitCode: -1}, want: hangNotMeasured},
		"the grading was stopped":          {rerun: &StepReport{Canceled: true, ExitCode: -1}, want: hangNotMeasured},
		"the rerun could not start":        {rerun: &StepReport{StartError: "fork/exec: no such file", ExitCode: -1}, want: hangNotMeasured},
		"the unpatched tree passes":        {rerun: &StepReport{ExitCode: 0}, want: hangOnPatch},
		"the unpatched tree fails in time": {rerun: &StepReport{ExitCode: 1}, want: hangOnPatch},
	} {
		t.Run(name, func(t *testing.T) {
			if got := attributeHang(tc.rerun); got != tc.want {
				t.Errorf("attributeHang = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStepAndRerunLimits(t *testing.T) {
	s := time.Second
	for name, tc := range map[string]struct {
		own, left, wantStep, wantRerun time.Duration
	}{
		"plenty of time: the step's own limit, half of it for the rerun": {own: 120 * s, left: 3600 * s, wantStep: 120 * s, wantRerun: 60 * s},
		"the deadline halves what is left":                               {own: 3600 * s, left: 620 * s, wantStep: 300 * s, wantRerun: 150 * s},
		"a limit the deadline cut, half of it for the rerun":             {own: 40 * s, left: 70 * s, wantStep: 25 * s, wantRerun: 12500 * time.Millisecond},
		"no time left": {own: 120 * s, left: 10 * s, wantStep: -5 * s, wantRerun: -5 * s},
	} {
		t.Run(name, func(t *testing.T) {
			step := stepLimit(tc.own, tc.left)
			// The rerun starts once the step has used its limit.
			rerun := rerunLimit(step, tc.left-step)
			if d := cmp.Diff([]time.Duration{tc.wantStep, tc.wantRerun}, []time.Duration{step, rerun}); d != "" {
				t.Errorf("limits (-want +got):\n%s", d)
			}
			if step > 0 && step+rerun+deadlineReserve > tc.left {
				t.Errorf("step %s and rerun %s do not fit in %s with the reserve", step, rerun, tc.left)
			}
		})
	}
}
