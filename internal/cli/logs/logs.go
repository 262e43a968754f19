// Package logs is `sweep logs`: a trial's agent log or its verifier's test output, from the
// stage's Pod until the trial is recorded and from its record in the artifact store after.
package logs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/storeread"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// Stages `sweep logs --stage` takes.
var Stages = []string{string(podcontract.StageAgent), string(podcontract.StageVerifier)}

// agentRecordDir is the folder of a trial record that holds the agent's log, as Harbor names it.
const agentRecordDir = "agent"

// RecordKey is the key of a stage's log below a trial's record folder: agent/agent.log, or
// verifier/test-stdout.txt.
func RecordKey(stage podcontract.Stage) string {
	if stage == podcontract.StageVerifier {
		return path.Join(harborjob.VerifierDir, podcontract.RecordTestStdout)
	}
	return path.Join(agentRecordDir, podcontract.RecordAgentLog)
}

// RecordName is the collector's record that carries a stage's log.
func RecordName(stage podcontract.Stage) string {
	if stage == podcontract.StageVerifier {
		return podcontract.RecordTestStdout
	}
	return podcontract.RecordAgentLog
}

// PodLogs reads a container's log of a trial's Pod; the real one (APILogs) reads pods/log.
type PodLogs interface {
	ContainerLog(ctx context.Context, namespace, pod, container string, follow bool) (io.ReadCloser, error)
}

// APILogs reads container logs through the Kubernetes API.
type APILogs struct{ Clientset kubernetes.Interface }

// ContainerLog implements PodLogs.
func (a APILogs) ContainerLog(ctx context.Context, namespace, pod, container string, follow bool) (io.ReadCloser, error) {
	return a.Clientset.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container, Follow: follow}).Stream(ctx)
}

// Options of `sweep logs TRIAL [--stage agent|verifier] [-f] [--store URL]`.
type Options struct {
	Stage  string
	Follow bool
	// Store replaces the store URL of the trial's status.record (the manager's), for a store
	// the manager reaches under another URL than this machine: the same bucket with another
	// endpoint, or the directory of its volume as mounted here.
	Store string

	Cluster *clioptions.Cluster
	// PodLogs reads the Pod's logs; nil reads them through the cluster's API.
	PodLogs PodLogs
	Trial   string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Trial = streams, args[0]
	if o.Stage == "" {
		o.Stage = string(podcontract.StageAgent)
	}
	return nil
}

func (o *Options) Validate() error {
	if o.Stage != string(podcontract.StageAgent) && o.Stage != string(podcontract.StageVerifier) {
		return fmt.Errorf("flag --stage: want agent or verifier, got %q", o.Stage)
	}
	if o.Store != "" {
		if _, err := recordstore.ParseURL(o.Store); err != nil {
			return fmt.Errorf("flag --store: %w", err)
		}
	}
	return nil
}

func (o *Options) Run(ctx context.Context) error {
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	stage := podcontract.Stage(o.Stage)
	trial := &evalv1.TaskTrial{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: o.Trial}, trial); apierrors.IsNotFound(err) {
		return fmt.Errorf("tasktrial %q not found in namespace %q: list the trials with `sweep get tasktrials --run NAME`, or pass -n", o.Trial, ns)
	} else if err != nil {
		return fmt.Errorf("reading tasktrial %q in namespace %q: %w", o.Trial, ns, err)
	}
	if original := trial.Spec.RegradeOf; original != "" && stage == podcontract.StageAgent {
		return fmt.Errorf("tasktrial %s regrades the artifacts of tasktrial %s (spec.regradeOf): its agent did not run; the agent's log is that trial's: sweep logs %s, or --stage verifier for this one's",
			trial.Name, original, original)
	}
	pod, err := stagePod(ctx, cl, trial, stage)
	if err != nil {
		return err
	}
	if trial.Status.Record != nil {
		// A recorded trial has ended: its record holds the whole log, and its Pods, still
		// being torn down, are going. The Pod is read only when the store is not reachable
		// from here.
		storeErr := o.fromStore(ctx, trial, stage)
		if storeErr == nil || pod == nil {
			return storeErr
		}
		if err := o.fromPod(ctx, pod, trial, stage); !errors.Is(err, errNoPodLog) {
			return err
		}
		return storeErr
	}
	if pod != nil {
		if err := o.fromPod(ctx, pod, trial, stage); !errors.Is(err, errNoPodLog) {
			return err
		}
	}
	run := &evalv1.SweepRun{}
	if trial.Spec.SweepRun == "" || cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: trial.Spec.SweepRun}, run) != nil {
		run = nil
	}
	return NoLog(trial, run, stage, pod != nil)
}

// stagePod is the newest Pod of a trial's stage, nil when there is none.
func stagePod(ctx context.Context, cl client.Client, trial *evalv1.TaskTrial, stage podcontract.Stage) (*corev1.Pod, error) {
	pods := &corev1.PodList{}
	if err := cl.List(ctx, pods, client.InNamespace(trial.Namespace), client.MatchingLabels{evalv1.LabelTrial: trial.Name, evalv1.LabelStage: string(stage)}); err != nil {
		return nil, fmt.Errorf("listing the %s pods of tasktrial %s: %w", stage, trial.Name, err)
	}
	return failure.NewestPod(pods.Items), nil
}

// fromStore prints the stage's log from the trial's record.
func (o *Options) fromStore(ctx context.Context, trial *evalv1.TaskTrial, stage podcontract.Stage) error {
	rec := trial.Status.Record
	base := rec.Store
	if o.Store != "" {
		base = o.Store
	}
	st, err := storeread.Open(ctx, base)
	if err != nil {
		return fmt.Errorf("tasktrial %s: its record is in %s: %w%s", trial.Name, rec.Store, err, storeHint(o.Store))
	}
	defer func() { _ = st.Close() }() // read-only: nothing to flush
	key := rec.Folder + RecordKey(stage)
	data, err := st.Get(ctx, key)
	switch {
	case errors.Is(err, recordstore.ErrNotFound):
		return fmt.Errorf("tasktrial %s: its record %s has no %s: %s", trial.Name, st.KeyURL(rec.Folder), RecordKey(stage), missingWhy(trial, stage))
	case err != nil:
		return fmt.Errorf("tasktrial %s: %w%s", trial.Name, storeread.Unreachable(st.URL(), err), storeHint(o.Store))
	}
	fmt.Fprintf(o.ErrOut, "tasktrial %s: %s log from the record %s\n", trial.Name, stage, st.KeyURL(key))
	_, err = o.Out.Write(data)
	return err
}

// storeHint says how to reach the store by another URL, unless --store already did.
func storeHint(override string) string {
	if override != "" {
		return ""
	}
	return "; when the manager's store URL does not work from this machine, pass --store with one that does (the same bucket with another endpoint, or the store volume's directory as mounted here)"
}

// missingWhy says why a record lacks a stage's log.
func missingWhy(trial *evalv1.TaskTrial, stage podcontract.Stage) string {
	if stageStatus(trial, stage) == nil {
		return fmt.Sprintf("the %s stage never ran (the trial ended %s %s)", stage, trial.Status.Phase, trial.Status.Reason)
	}
	return "the collector did not send it (see the trial's message)"
}

func stageStatus(trial *evalv1.TaskTrial, stage podcontract.Stage) *evalv1.StageStatus {
	if stage == podcontract.StageVerifier {
		return trial.Status.Verifier
	}
	return trial.Status.Agent
}

// NoLog is the error of a trial whose stage has neither a Pod log nor a record: why not, and
// when to try again. run is the trial's SweepRun, nil when it is gone.
func NoLog(trial *evalv1.TaskTrial, run *evalv1.SweepRun, stage podcontract.Stage, hadPod bool) error {
	prefix := fmt.Sprintf("tasktrial %s: no %s log", trial.Name, stage)
	finished := trial.Status.Phase.Finished()
	switch {
	case hadPod:
		return fmt.Errorf("%s yet: its pod has not started the %s; try again, or follow it with -f once it runs", prefix, stage)
	case !finished && stageStatus(trial, stage) == nil:
		return fmt.Errorf("%s yet: the %s stage has not started (the trial is %s); try again once it runs", prefix, stage, phaseOf(trial))
	case finished && stageStatus(trial, stage) == nil:
		return fmt.Errorf("%s: the %s stage never ran (the trial ended %s); the agent's log may tell why: sweep logs %s", prefix, stage, endOf(trial), trial.Name)
	case !finished:
		return fmt.Errorf("%s: the %s stage's pod is gone and the trial is not recorded yet (status.record is empty); its record is written once the trial ends: try again then", prefix, stage)
	case run != nil && run.Spec.ArtifactStore == nil && run.Status.Record == nil:
		return fmt.Errorf("%s: its pods are gone and it has no record: no artifact store keeps this campaign's records (the operator runs without --artifact-store and sweeprun %s names no spec.artifactStore); logs outlive the pods only with a store", prefix, run.Name)
	}
	return fmt.Errorf("%s: its pods are gone and its record is not written yet (status.record is empty); the operator writes it after the trial ends, and keeps retrying while the store is unreachable: see `kubectl describe tasktrial %s`", prefix, trial.Name)
}

func phaseOf(trial *evalv1.TaskTrial) string {
	if trial.Status.Phase == "" {
		return "pending"
	}
	return string(trial.Status.Phase)
}

func endOf(trial *evalv1.TaskTrial) string {
	if trial.Status.Reason == "" {
		return string(trial.Status.Phase)
	}
	return string(trial.Status.Phase) + ", " + trial.Status.Reason
}
