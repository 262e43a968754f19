package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
	"github.com/swe-sweep/sweep-operator/internal/trialrecord"
)

// RecordWriter names the operator as the writer of its store's job folders (config.json's
// exported_by).
const RecordWriter = "sweep-operator"

// Bounds of the wait between two attempts at a store that did not take a record.
const (
	storeRetryMin = time.Second
	storeRetryMax = 2 * time.Minute
)

// storeRetryAfter is the wait before the next attempt at the store, given how long the trial
// has waited for it: about doubling, within [storeRetryMin, storeRetryMax].
func storeRetryAfter(waited time.Duration) time.Duration {
	return min(max(waited, storeRetryMin), storeRetryMax)
}

// recordPlace is where the trial's record goes: the store (nil: none) and the keys of its job
// and trial folders. It is looked up once per reconcile.
type recordPlace struct {
	store      *recordstore.Store
	run        *evalv1.SweepRun
	job, trial string
	looked     bool
	lookupErr  error
	// verifierRecords are the verifier's records harvested in this reconcile.
	verifierRecords map[string][]byte
}

// recordPlace finds the trial's store through its SweepRun. A trial no SweepRun controls has
// no job folder and so no record.
func (s *trialScope) recordPlace(ctx context.Context) (*recordPlace, error) {
	p := &s.record
	if p.looked {
		return p, p.lookupErr
	}
	p.looked = true
	owner := metav1.GetControllerOf(s.trial)
	if owner == nil || owner.Kind != "SweepRun" {
		return p, nil
	}
	run := &evalv1.SweepRun{}
	err := s.r.Get(ctx, types.NamespacedName{Namespace: s.trial.Namespace, Name: owner.Name}, run)
	if apierrors.IsNotFound(err) {
		// Deleted with its trials orphaned: no campaign is left to keep a job folder for.
		return p, nil
	}
	if err != nil {
		p.lookupErr = fmt.Errorf("reading sweeprun %s for the trial's artifact store: %w", owner.Name, err)
		return p, p.lookupErr
	}
	store, err := s.r.Stores.For(ctx, run)
	if err != nil || store == nil {
		p.lookupErr = err
		return p, err
	}
	p.store, p.run = store, run
	p.job = recordstore.JobFolder(run.Namespace, run.Name, run.UID)
	p.trial = p.job + harborjob.FolderName(harborjob.Trial{Name: s.trial.Name, Task: s.trial.Spec.Task}) + "/"
	return p, nil
}

// recordAgent writes what the agent stage produced (its log, its artifacts as the collector
// sent them) to the trial's folder at once: the Pods, and with them the log, go after the
// harvest.
func (s *trialScope) recordAgent(ctx context.Context, outputs map[string][]byte) error {
	p, err := s.recordPlace(ctx)
	if err != nil || p.store == nil {
		return err
	}
	t := harborjob.Trial{Name: s.trial.Name, Task: s.trial.Spec.Task, Artifacts: map[string][]byte{}, AgentFiles: map[string][]byte{}}
	if log, ok := outputs[podcontract.RecordAgentLog]; ok {
		t.AgentFiles[podcontract.RecordAgentLog] = log
	}
	for i := range s.task.Artifacts {
		key := podbuild.ArtifactKey(s.task.Artifacts, i)
		if data, ok := outputs[key]; ok {
			t.Artifacts[key] = data
		}
	}
	files, err := harborjob.AgentFiles(t)
	if err != nil {
		logf.FromContext(ctx).Info("the trial's artifacts are left out of its record", "reason", err.Error())
		t.Artifacts = nil
		if files, err = harborjob.AgentFiles(t); err != nil {
			return err
		}
	}
	if _, err := p.store.PutFiles(ctx, p.trial, files); err != nil {
		return unavailable("writing the agent's files to the artifact store %s: %w", p.store.URL(), err)
	}
	s.clearStoreWait()
	return nil
}

// keepVerifierRecords holds the verifier's records of this reconcile for the trial's record,
// which its final verdict, reached in the same reconcile, writes.
func (s *trialScope) keepVerifierRecords(records map[string][]byte) {
	s.record.verifierRecords = records
}

// writeRecord writes a trial that reached its final verdict in this reconcile to its store:
// the job folder's config.json, then every file of the trial's folder, result.json last, and
// points status.record at it. Files written before (the agent's, an interrupted attempt's)
// are left as they are when their bytes match.
func (s *trialScope) writeRecord(ctx context.Context) error {
	p, err := s.recordPlace(ctx)
	if err != nil || p.store == nil {
		return err
	}
	job := trialrecord.Job(p.run, RecordWriter)
	jobConfig, err := harborjob.JobConfig(job)
	if err != nil {
		return err
	}
	if _, err := p.store.Put(ctx, p.job+harborjob.ConfigFile, jobConfig); err != nil {
		return unavailable("writing the job folder %s: %w", p.store.KeyURL(p.job), err)
	}
	agent, err := s.readAgentFiles(ctx, p)
	if err != nil {
		return err
	}
	files, manifest, err := trialrecord.RecordFiles(p.verifierRecords)
	if err != nil {
		return s.recordRefused(p, fmt.Errorf("the verifier's files: %w", err))
	}
	t, warnings, err := trialrecord.Build(s.trial, files, manifest, agent[harborjob.ArtifactsDir])
	if err != nil {
		return s.recordRefused(p, err)
	}
	t.AgentFiles = agent[harborjob.AgentDir]
	for _, w := range warnings {
		logf.FromContext(ctx).Info("left out of the trial's record", "file", w)
	}
	record, err := harborjob.TrialFiles(job, t)
	if err != nil {
		return s.recordRefused(p, err)
	}
	if _, err := p.store.PutFiles(ctx, p.trial, record, harborjob.ResultFile); err != nil {
		return unavailable("writing the trial's record %s: %w", p.store.KeyURL(p.trial), err)
	}
	var size int64
	for _, data := range record {
		size += int64(len(data))
	}
	st := &s.trial.Status
	st.Record = &evalv1.TrialRecordStatus{Store: p.store.URL(), Folder: p.trial, Files: int32(len(record)), Bytes: size, StoredTime: s.metaNow()}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.TrialRecorded, Status: metav1.ConditionTrue,
		Reason: reasons.RecordWritten, Message: "record at " + p.store.KeyURL(p.trial), ObservedGeneration: s.trial.Generation})
	return nil
}

// recordRefused keeps a trial whose record cannot be made as it is (an artifact the task
// names reward.json, verifier records that do not match their manifest): the trial ends as it
// would, without a record, and says why; waiting would not change it.
func (s *trialScope) recordRefused(p *recordPlace, err error) error {
	st := &s.trial.Status
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.TrialRecorded, Status: metav1.ConditionFalse,
		Reason: reasons.InvalidTask, Message: fmt.Sprintf("no record written to %s: %v", p.store.KeyURL(p.trial), err), ObservedGeneration: s.trial.Generation})
	return nil
}

// readAgentFiles reads back what recordAgent wrote, by directory (agent, artifacts) and file
// name, for the whole record.
func (s *trialScope) readAgentFiles(ctx context.Context, p *recordPlace) (map[string]map[string][]byte, error) {
	out := map[string]map[string][]byte{}
	for _, dir := range []string{harborjob.AgentDir, harborjob.ArtifactsDir} {
		prefix := p.trial + dir + "/"
		keys, err := p.store.List(ctx, prefix)
		if err != nil {
			return nil, unavailable("reading the agent's files back from %s: %w", p.store.KeyURL(prefix), err)
		}
		for _, key := range keys {
			name := strings.TrimPrefix(key, prefix)
			if strings.Contains(name, "/") {
				continue
			}
			data, err := p.store.Get(ctx, key)
			if err != nil {
				return nil, unavailable("reading the agent's files back: %w", err)
			}
			if out[dir] == nil {
				out[dir] = map[string][]byte{}
			}
			out[dir][name] = data
		}
	}
	return out, nil
}

// waitForStore turns a store that did not take the trial's record into a wait: the trial's
// status goes back to what it was before this reconcile (its Job and Pods stay, so the
// harvest is read again), says it waits for the store, and the reconcile is retried after a
// backoff. Nothing is lost, and a later attempt writes only what is missing.
func (s *trialScope) waitForStore(before *evalv1.TaskTrialStatus, result ctrl.Result, err error) (ctrl.Result, error) {
	var wait *storeUnavailable
	if !errors.As(err, &wait) {
		return result, err
	}
	since := s.now
	if c := meta.FindStatusCondition(before.Conditions, evalv1.TrialRecorded); c != nil && c.Status == metav1.ConditionFalse && c.Reason == reasons.StoreUnavailable {
		since = c.LastTransitionTime.Time
	}
	backoff := storeRetryAfter(s.now.Sub(since))
	s.trial.Status = *before.DeepCopy()
	st := &s.trial.Status
	msg := fmt.Sprintf("waiting for the artifact store: %v; retrying in %s, the trial's results are kept in the cluster meanwhile", wait.err, backoff)
	st.Reason, st.Message = reasons.StoreUnavailable, msg
	st.RetryAfter = &metav1.Time{Time: s.now.Add(backoff)}
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: evalv1.TrialRecorded, Status: metav1.ConditionFalse,
		Reason: reasons.StoreUnavailable, Message: msg, ObservedGeneration: s.trial.Generation})
	return ctrl.Result{RequeueAfter: backoff}, nil
}

// clearStoreWait drops the wait's reason once the store took a write.
func (s *trialScope) clearStoreWait() {
	st := &s.trial.Status
	if st.Reason == reasons.StoreUnavailable {
		st.Reason, st.Message = "", ""
	}
	if c := meta.FindStatusCondition(st.Conditions, evalv1.TrialRecorded); c != nil && c.Reason == reasons.StoreUnavailable {
		meta.RemoveStatusCondition(&st.Conditions, evalv1.TrialRecorded)
	}
}
