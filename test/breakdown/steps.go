package main

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

// milestone is one moment of a trial's life as the watch saw it.
type milestone struct {
	name string
	at   func(t *trialSeen) time.Time
}

func stageMilestones(stage pc.Stage) []milestone {
	s := func(t *trialSeen) *stageSeen { return t.stage(stage) }
	word := string(stage)
	return []milestone{
		{word + " Job created", func(t *trialSeen) time.Time { return s(t).JobCreated }},
		{word + " Pod created", func(t *trialSeen) time.Time { return s(t).PodCreated }},
		{word + " Pod scheduled", func(t *trialSeen) time.Time { return s(t).Scheduled }},
		{word + " init containers done", func(t *trialSeen) time.Time { return s(t).Initialized }},
		{word + " main container started", func(t *trialSeen) time.Time { return s(t).MainStarted }},
		{word + " main container finished", func(t *trialSeen) time.Time { return s(t).MainFinished }},
		{word + " containers ended (collector reported)", func(t *trialSeen) time.Time { return s(t).ContainersEnded }},
	}
}

// milestones are a trial's moments in the order they are expected: the steps between them
// add up to the trial's wall time (creation to score), so a step that happened in the other
// order shows as negative rather than being lost. The Pod's Succeeded phase and its Job's
// Complete condition are not among them: the manager harvests once the containers have
// ended, before the kubelet has torn the Pod down, and deletes the Job at the trial's end,
// often before the condition (apartSteps).
func milestones() []milestone {
	out := []milestone{{"trial created", func(t *trialSeen) time.Time { return t.Created }}}
	out = append(out, stageMilestones(pc.StageAgent)...)
	out = append(out, milestone{"agent harvested (status)", func(t *trialSeen) time.Time { return t.Agent.Harvested }})
	out = append(out, stageMilestones(pc.StageVerifier)...)
	return append(out, milestone{"score in status", func(t *trialSeen) time.Time { return t.Scored }})
}

// apartSteps are each stage's containers ended → Pod Succeeded and Pod Succeeded → Job
// Complete, where the watch saw both ends (a Job deleted first never shows its condition).
func apartSteps(trials []trialSeen) []step {
	var out []step
	for _, stage := range []pc.Stage{pc.StageAgent, pc.StageVerifier} {
		var succeeded, complete []float64
		for i := range trials {
			s := trials[i].stage(stage)
			if !s.ContainersEnded.IsZero() && !s.PodSucceeded.IsZero() {
				succeeded = append(succeeded, s.PodSucceeded.Sub(s.ContainersEnded).Seconds())
			}
			if !s.PodSucceeded.IsZero() && !s.JobComplete.IsZero() {
				complete = append(complete, s.JobComplete.Sub(s.PodSucceeded).Seconds())
			}
		}
		out = append(out,
			step{Name: string(stage) + " containers ended → Pod Succeeded (the kubelet's teardown)", Dist: timing.Distribution(succeeded)},
			step{Name: string(stage) + " Pod Succeeded → its Job Complete (seen before the Job was deleted)", Dist: timing.Distribution(complete)})
	}
	return out
}

// step is one step's durations over trials, in seconds.
type step struct {
	Name string `json:"name"`
	timing.Dist
}

// seenSteps are the steps between consecutive milestones, by the watch's clock. A trial
// lacking a milestone (a change the watch never saw between two others) gives that step and
// the next none.
func seenSteps(trials []trialSeen) []step {
	ms := milestones()
	durations := make([][]float64, len(ms)-1)
	for i := range trials {
		t := &trials[i]
		for k := 1; k < len(ms); k++ {
			from, to := ms[k-1].at(t), ms[k].at(t)
			if !from.IsZero() && !to.IsZero() {
				durations[k-1] = append(durations[k-1], to.Sub(from).Seconds())
			}
		}
	}
	out := make([]step, len(durations))
	for k, d := range durations {
		out[k] = step{Name: ms[k].name + " → " + ms[k+1].name, Dist: timing.Distribution(d)}
	}
	return out
}

// recorded are one stage's timestamps as the API server, the Job controller and the kubelet
// recorded them (whole seconds), and the stage's own work by the hook's clock.
type recorded struct {
	jobCreated, podCreated, scheduled, sandboxReady time.Time
	// firstInitStarted is when the Pod's first init container started.
	firstInitStarted                    time.Time
	collectorStarted, collectorFinished time.Time
	mainStarted, mainFinished           time.Time
	jobComplete                         time.Time
	hookStarted, hookFinished           time.Time
	summaryFound                        bool
}

func recordedOf(stage pc.Stage, s *stageSeen) recorded {
	var r recorded
	if s.job != nil {
		r.jobCreated = s.job.CreationTimestamp.Time
		for _, c := range s.job.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				r.jobComplete = c.LastTransitionTime.Time
			}
		}
	}
	pod := s.pod
	if pod == nil {
		return r
	}
	r.podCreated = pod.CreationTimestamp.Time
	if c := podCondition(pod, corev1.PodScheduled); c != nil {
		r.scheduled = c.LastTransitionTime.Time
	}
	r.sandboxReady = s.sandboxReady
	for _, cs := range pod.Status.InitContainerStatuses {
		if t := cs.State.Terminated; t != nil && (r.firstInitStarted.IsZero() || t.StartedAt.Time.Before(r.firstInitStarted)) {
			r.firstInitStarted = t.StartedAt.Time
		}
	}
	if cs := containerStatus(pod.Status.InitContainerStatuses, podbuild.CollectorContainer); cs != nil && cs.State.Terminated != nil {
		term := cs.State.Terminated
		r.collectorStarted, r.collectorFinished = term.StartedAt.Time, term.FinishedAt.Time
		if sum, err := pc.DecodeSummary(term.Message); err == nil && sum.StartedAt != nil && sum.FinishedAt != nil {
			r.hookStarted, r.hookFinished, r.summaryFound = *sum.StartedAt, *sum.FinishedAt, true
		}
	}
	if cs := containerStatus(pod.Status.ContainerStatuses, podbuild.MainContainer(stage)); cs != nil && cs.State.Terminated != nil {
		r.mainStarted, r.mainFinished = cs.State.Terminated.StartedAt.Time, cs.State.Terminated.FinishedAt.Time
	}
	return r
}

// work is the stage's own work: the hook's run in the main container, by its own clock.
func (r recorded) work() (time.Duration, bool) {
	return r.hookFinished.Sub(r.hookStarted), r.summaryFound
}

// recordedSpan is one span between two recorded timestamps of a stage.
type recordedSpan struct {
	name     string
	from, to func(r recorded) time.Time
}

var recordedSpans = []recordedSpan{
	{"Job created → Pod created", func(r recorded) time.Time { return r.jobCreated }, func(r recorded) time.Time { return r.podCreated }},
	{"Pod created → PodScheduled", func(r recorded) time.Time { return r.podCreated }, func(r recorded) time.Time { return r.scheduled }},
	{"PodScheduled → sandbox ready (PodReadyToStartContainers)", func(r recorded) time.Time { return r.scheduled }, func(r recorded) time.Time { return r.sandboxReady }},
	{"sandbox ready → first init container started", func(r recorded) time.Time { return r.sandboxReady }, func(r recorded) time.Time { return r.firstInitStarted }},
	// The init containers before the collector: an install container of its own, before
	// the collector installed sweep-hook; none since.
	{"first init container started → collector started", func(r recorded) time.Time { return r.firstInitStarted }, func(r recorded) time.Time { return r.collectorStarted }},
	{"collector started → main started", func(r recorded) time.Time { return r.collectorStarted }, func(r recorded) time.Time { return r.mainStarted }},
	{"main container ran", func(r recorded) time.Time { return r.mainStarted }, func(r recorded) time.Time { return r.mainFinished }},
	{"main finished → collector finished", func(r recorded) time.Time { return r.mainFinished }, func(r recorded) time.Time { return r.collectorFinished }},
	{"collector finished → Job Complete", func(r recorded) time.Time { return r.collectorFinished }, func(r recorded) time.Time { return r.jobComplete }},
}

// recordedSteps are each stage's spans between recorded timestamps (whole seconds, so each
// is ±1 s), with the stage's own work by the hook's clock (milliseconds).
func recordedSteps(trials []trialSeen) []step {
	var out []step
	for _, stage := range []pc.Stage{pc.StageAgent, pc.StageVerifier} {
		spans := make([][]float64, len(recordedSpans))
		var work []float64
		for i := range trials {
			r := recordedOf(stage, trials[i].stage(stage))
			for k, sp := range recordedSpans {
				if from, to := sp.from(r), sp.to(r); !from.IsZero() && !to.IsZero() {
					spans[k] = append(spans[k], to.Sub(from).Seconds())
				}
			}
			if d, ok := r.work(); ok {
				work = append(work, d.Seconds())
			}
		}
		for k, sp := range recordedSpans {
			out = append(out, step{Name: string(stage) + ": " + sp.name, Dist: timing.Distribution(spans[k])})
		}
		out = append(out, step{Name: string(stage) + ": the stage's own work (hook's clock)", Dist: timing.Distribution(work)})
	}
	return out
}

// trialFigures are one trial's totals, in seconds.
type trialFigures struct {
	Trial string `json:"trial"`
	Task  string `json:"task"`
	// Wall is trial created → score in status, by the watch's clock.
	Wall float64 `json:"wallSeconds"`
	// Work is the two stages' own work (the hook's clock), MainRan their main containers'
	// run time as recorded (whole seconds).
	Work    float64 `json:"workSeconds"`
	MainRan float64 `json:"mainRanSeconds"`
	// Overhead is Wall - Work.
	Overhead float64 `json:"overheadSeconds"`
	// Seen are the milestones, seconds after the trial was created, by the watch's clock.
	Seen map[string]float64 `json:"seenSeconds"`
}

func figuresOf(t *trialSeen) (trialFigures, bool) {
	f := trialFigures{Trial: t.Name, Task: t.Task}
	if t.Created.IsZero() || t.Scored.IsZero() {
		return f, false
	}
	f.Wall = t.Scored.Sub(t.Created).Seconds()
	f.Seen = map[string]float64{}
	for _, m := range milestones() {
		if at := m.at(t); !at.IsZero() {
			f.Seen[m.name] = at.Sub(t.Created).Seconds()
		}
	}
	for _, stage := range []pc.Stage{pc.StageAgent, pc.StageVerifier} {
		if at := t.stage(stage).JobComplete; !at.IsZero() {
			f.Seen[string(stage)+" Job Complete"] = at.Sub(t.Created).Seconds()
		}
	}
	for _, stage := range []pc.Stage{pc.StageAgent, pc.StageVerifier} {
		r := recordedOf(stage, t.stage(stage))
		d, ok := r.work()
		if !ok {
			return f, false
		}
		f.Work += d.Seconds()
		f.MainRan += r.mainFinished.Sub(r.mainStarted).Seconds()
	}
	f.Overhead = f.Wall - f.Work
	return f, true
}
