package main

import (
	"context"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

// stageSeen is one stage of a trial as the watch saw it: the first moment each change
// arrived (zero when never seen), and the last copy of its Job and Pod, whose recorded
// timestamps are read once the trial has ended (the manager deletes the Jobs then).
type stageSeen struct {
	JobCreated, PodCreated, Scheduled, Initialized, MainStarted, MainFinished time.Time
	// ContainersEnded: every container of the Pod ended with exit code 0, the collector's
	// report with them (what the manager harvests on); the kubelet reports the Pod Succeeded
	// after it has torn the Pod down.
	ContainersEnded, PodSucceeded, JobComplete time.Time
	// Harvested is the stage's completionTime appearing in the trial's status.
	Harvested time.Time
	job       *batchv1.Job
	pod       *corev1.Pod
	// sandboxReady is the Pod's PodReadyToStartContainers time while it was True: the
	// condition turns False again once the Pod has ended and its sandbox is gone.
	sandboxReady time.Time
}

// trialSeen is one trial as the watch saw it.
type trialSeen struct {
	Name, Task string
	Created    time.Time
	Scored     time.Time
	Agent      stageSeen
	Verifier   stageSeen
	last       *evalv1.TaskTrial
}

func (t *trialSeen) stage(s pc.Stage) *stageSeen {
	if s == pc.StageVerifier {
		return &t.Verifier
	}
	return &t.Agent
}

// observer keeps every trial of one namespace as the watch sees it.
type observer struct {
	mu     sync.Mutex
	trials map[string]*trialSeen
	// runCreated and runComplete are the SweepRun's, by name.
	runCreated, runComplete map[string]time.Time
}

func mark(t *time.Time, seen time.Time) {
	if t.IsZero() {
		*t = seen
	}
}

func (o *observer) trial(name string) *trialSeen {
	t, ok := o.trials[name]
	if !ok {
		t = &trialSeen{Name: name}
		o.trials[name] = t
	}
	return t
}

func startObserver(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, ns string) (*observer, error) {
	o := &observer{trials: map[string]*trialSeen{}, runCreated: map[string]time.Time{}, runComplete: map[string]time.Time{}}
	onTrial := func(obj any, seen time.Time) {
		tr, ok := obj.(*evalv1.TaskTrial)
		if !ok {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		t := o.trial(tr.Name)
		t.Task, t.last = tr.Spec.Task, tr
		mark(&t.Created, seen)
		if a := tr.Status.Agent; a != nil && a.CompletionTime != nil {
			mark(&t.Agent.Harvested, seen)
		}
		if v := tr.Status.Verifier; v != nil && v.CompletionTime != nil {
			mark(&t.Verifier.Harvested, seen)
		}
		if tr.Status.Score != "" {
			mark(&t.Scored, seen)
		}
	}
	onJob := func(obj any, seen time.Time) {
		job, ok := obj.(*batchv1.Job)
		if !ok || job.Labels[evalv1.LabelTrial] == "" {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		s := o.trial(job.Labels[evalv1.LabelTrial]).stage(pc.Stage(job.Labels[evalv1.LabelStage]))
		s.job = job
		mark(&s.JobCreated, seen)
		for _, c := range job.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				mark(&s.JobComplete, seen)
			}
		}
	}
	onPod := func(obj any, seen time.Time) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Labels[evalv1.LabelTrial] == "" {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		stage := pc.Stage(pod.Labels[evalv1.LabelStage])
		s := o.trial(pod.Labels[evalv1.LabelTrial]).stage(stage)
		s.pod = pod
		mark(&s.PodCreated, seen)
		if pod.Spec.NodeName != "" {
			mark(&s.Scheduled, seen)
		}
		if c := podCondition(pod, corev1.PodReadyToStartContainers); c != nil {
			mark(&s.sandboxReady, c.LastTransitionTime.Time)
		}
		if podCondition(pod, corev1.PodInitialized) != nil {
			mark(&s.Initialized, seen)
		}
		if cs := containerStatus(pod.Status.ContainerStatuses, podbuild.MainContainer(stage)); cs != nil {
			if cs.State.Running != nil || cs.State.Terminated != nil {
				mark(&s.MainStarted, seen)
			}
			if cs.State.Terminated != nil {
				mark(&s.MainFinished, seen)
			}
		}
		if failure.ContainersSucceeded(pod) {
			mark(&s.ContainersEnded, seen)
		}
		if pod.Status.Phase == corev1.PodSucceeded {
			mark(&s.PodSucceeded, seen)
		}
	}
	onRun := func(obj any, seen time.Time) {
		run, ok := obj.(*evalv1.SweepRun)
		if !ok {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if _, ok := o.runCreated[run.Name]; !ok {
			o.runCreated[run.Name] = seen
		}
		for _, c := range run.Status.Conditions {
			if c.Type == evalv1.SweepRunComplete && c.Status == "True" {
				if _, ok := o.runComplete[run.Name]; !ok {
					o.runComplete[run.Name] = seen
				}
			}
		}
	}
	_, err := timing.Watch(ctx, cfg, scheme, ns,
		timing.Handler{Object: &evalv1.SweepRun{}, On: onRun},
		timing.Handler{Object: &evalv1.TaskTrial{}, On: onTrial},
		timing.Handler{Object: &batchv1.Job{}, On: onJob},
		timing.Handler{Object: &corev1.Pod{}, On: onPod})
	return o, err
}

// podCondition is the Pod's condition of type t when it is True.
func podCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i, c := range pod.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func containerStatus(statuses []corev1.ContainerStatus, name string) *corev1.ContainerStatus {
	for i := range statuses {
		if statuses[i].Name == name {
			return &statuses[i]
		}
	}
	return nil
}

// snapshot copies the trials of run (by the SweepRun label) as seen so far.
func (o *observer) snapshot(run string) []trialSeen {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []trialSeen
	for _, t := range o.trials {
		if t.last != nil && t.last.Spec.SweepRun == run {
			out = append(out, *t)
		}
	}
	return out
}
