package main

import (
	"math"
	"testing"
	"time"

	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

// A trial seen at whole seconds after t0: its steps add up to its wall time, a change seen in
// the other order is a negative step, and a milestone never seen leaves its two steps out.
func TestSeenSteps(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	stage := func(from float64) stageSeen {
		return stageSeen{JobCreated: at(from), PodCreated: at(from + 0.1), Scheduled: at(from + 0.2), Initialized: at(from + 1.2),
			MainStarted: at(from + 1.3), MainFinished: at(from + 2.3), ContainersEnded: at(from + 3.3), PodSucceeded: at(from + 4.3), JobComplete: at(from + 4.4)}
	}
	trial := trialSeen{Name: "t", Created: at(0), Agent: stage(0), Verifier: stage(4), Scored: at(7.5)}
	trial.Agent.Harvested = at(4.1) // after the verifier's Job was seen created
	missing := trial
	missing.Verifier.MainStarted = time.Time{}

	steps := seenSteps([]trialSeen{trial, missing})
	var sum float64
	got := map[string]float64{}
	for _, s := range steps {
		sum += s.P50
		got[s.Name] = s.P50
	}
	if math.Abs(sum-7.5) > 1e-9 {
		t.Errorf("the steps add up to %v, want the wall time, 7.5", sum)
	}
	if s := got["agent harvested (status) → verifier Job created"]; s > -0.09 || s < -0.11 {
		t.Errorf("harvest → verifier Job = %v, want -0.1", s)
	}
	for _, s := range steps {
		want := 2
		if s.Name == "verifier init containers done → verifier main container started" || s.Name == "verifier main container started → verifier main container finished" {
			want = 1
		}
		if s.Count != want {
			t.Errorf("%s: %d trials, want %d", s.Name, s.Count, want)
		}
	}
}

// The Pod's phase and the Job's condition are reported apart, each from the moment before it.
func TestApartSteps(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	trial := trialSeen{Name: "t",
		Agent:    stageSeen{ContainersEnded: at(1), PodSucceeded: at(2.1), JobComplete: at(2.4)},
		Verifier: stageSeen{ContainersEnded: at(5), PodSucceeded: at(6)}}
	got := map[string]timing.Dist{}
	for _, s := range apartSteps([]trialSeen{trial}) {
		got[s.Name] = s.Dist
	}
	want := map[string]struct {
		count int
		p50   float64
	}{
		"agent containers ended → Pod Succeeded (the kubelet's teardown)":             {1, 1.1},
		"agent Pod Succeeded → its Job Complete (seen before the Job was deleted)":    {1, 0.3},
		"verifier containers ended → Pod Succeeded (the kubelet's teardown)":          {1, 1},
		"verifier Pod Succeeded → its Job Complete (seen before the Job was deleted)": {0, 0},
	}
	for name, w := range want {
		d, ok := got[name]
		if !ok || d.Count != w.count || math.Abs(d.P50-w.p50) > 1e-9 {
			t.Errorf("%s = %+v (present %v), want %d trials, p50 %v", name, d, ok, w.count, w.p50)
		}
	}
}
