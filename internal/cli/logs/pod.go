package logs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// errNoPodLog says a stage's Pod has no log to read yet: its main container has not started.
var errNoPodLog = errors.New("the pod has no log yet")

// Source is where a stage's Pod holds its log.
type Source int

const (
	// SourceNone: the main container has not started.
	SourceNone Source = iota
	// SourceMain: the main container's own log, where sweep-hook echoes the stage's output
	// as it comes (the agent's, or the verifier's tests').
	SourceMain
	// SourceCollector: the stage is over and the collector reported; its record of the log
	// is the one the trial's record keeps.
	SourceCollector
)

// PodPlan is how to read a stage's log from its Pod.
type PodPlan struct {
	Source  Source
	Summary *podcontract.Summary
	// Waiting says why the main container has not started, for SourceNone.
	Waiting string
}

// PlanPod decides where a stage's Pod holds its log: the collector's report once there is
// one, else the main container's log once it started.
func PlanPod(pod *corev1.Pod, stage podcontract.Stage) PodPlan {
	obs := failure.Stage{Stage: stage}
	obs.ObservePod(pod)
	switch {
	case obs.Summary != nil:
		return PodPlan{Source: SourceCollector, Summary: obs.Summary}
	case obs.Pod.Started:
		return PodPlan{Source: SourceMain}
	}
	var waiting []string
	for _, w := range obs.Pod.Waiting {
		waiting = append(waiting, w.Container+": "+w.Reason)
	}
	if len(waiting) == 0 {
		waiting = append(waiting, "phase "+string(pod.Status.Phase))
	}
	return PodPlan{Source: SourceNone, Waiting: strings.Join(waiting, ", ")}
}

// fromPod prints the stage's log from its Pod, or returns errNoPodLog.
func (o *Options) fromPod(ctx context.Context, pod *corev1.Pod, trial *evalv1.TaskTrial, stage podcontract.Stage) error {
	plan := PlanPod(pod, stage)
	if plan.Source == SourceNone {
		fmt.Fprintf(o.ErrOut, "tasktrial %s: pod %s has not started the %s (%s)\n", trial.Name, pod.Name, stage, plan.Waiting)
		return errNoPodLog
	}
	logs, err := o.podLogs()
	if err != nil {
		return err
	}
	if plan.Source == SourceCollector {
		data, why := collectorLog(ctx, logs, pod, *plan.Summary, stage)
		if why == "" {
			fmt.Fprintf(o.ErrOut, "tasktrial %s: %s log from pod %s (as the collector reported it%s)\n", trial.Name, stage, pod.Name, cutNote(*plan.Summary, stage, pod))
			_, err := o.Out.Write(data)
			return err
		}
		fmt.Fprintf(o.ErrOut, "tasktrial %s: %s; reading the %s container's own log instead\n", trial.Name, why, podbuild.MainContainer(stage))
	}
	rc, err := logs.ContainerLog(ctx, pod.Namespace, pod.Name, podbuild.MainContainer(stage), o.Follow)
	if err != nil {
		return fmt.Errorf("tasktrial %s: reading the log of pod %s container %s: %w", trial.Name, pod.Name, podbuild.MainContainer(stage), err)
	}
	defer func() { _ = rc.Close() }() // a log stream we only read; its close has nothing to report
	fmt.Fprintf(o.ErrOut, "tasktrial %s: %s log from pod %s container %s\n", trial.Name, stage, pod.Name, podbuild.MainContainer(stage))
	_, err = io.Copy(o.Out, rc)
	return err
}

// collectorLog is the stage's log as the collector reported it, or why it cannot be had.
func collectorLog(ctx context.Context, logs PodLogs, pod *corev1.Pod, sum podcontract.Summary, stage podcontract.Stage) ([]byte, string) {
	name := RecordName(stage)
	if o, ok := sum.Output(name); !ok || o.Missing || o.TooLarge {
		return nil, fmt.Sprintf("the collector of pod %s sent no %s", pod.Name, name)
	}
	outputs, err := collectorOutputs(ctx, logs, pod, sum)
	if err != nil {
		return nil, fmt.Sprintf("reading the collector's report of pod %s: %v", pod.Name, err)
	}
	data, ok := outputs[name]
	if !ok {
		return nil, fmt.Sprintf("the collector of pod %s sent no %s", pod.Name, name)
	}
	return data, ""
}

// cutNote says when the collector cut the log, and where the whole of it still is.
func cutNote(sum podcontract.Summary, stage podcontract.Stage, pod *corev1.Pod) string {
	o, _ := sum.Output(RecordName(stage))
	if !o.Truncated {
		return ""
	}
	return fmt.Sprintf(", cut to %d of %d bytes; the %s container's own log holds it whole while pod %s is there: kubectl logs -n %s %s -c %s",
		o.Size, o.OriginalSize, podbuild.MainContainer(stage), pod.Name, pod.Namespace, pod.Name, podbuild.MainContainer(stage))
}

// collectorOutputs are the records the collector reported: in its termination message, or on
// its framed log stream.
func collectorOutputs(ctx context.Context, logs PodLogs, pod *corev1.Pod, sum podcontract.Summary) (map[string][]byte, error) {
	if !sum.Streamed {
		return sum.InlineOutputs()
	}
	rc, err := logs.ContainerLog(ctx, pod.Namespace, pod.Name, podbuild.CollectorContainer, false)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }() // a log stream we only read; its close has nothing to report
	return podcontract.DecodeStream(rc, sum, podcontract.DefaultLimits())
}

// podLogs is o.PodLogs, else the cluster's pods/log.
func (o *Options) podLogs() (PodLogs, error) {
	if o.PodLogs != nil {
		return o.PodLogs, nil
	}
	cfg, err := o.Cluster.RESTConfig()
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	o.PodLogs = APILogs{Clientset: cs}
	return o.PodLogs, nil
}
