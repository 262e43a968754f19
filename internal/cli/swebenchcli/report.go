package swebenchcli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
	"github.com/swe-sweep/sweep-operator/internal/trialrecord"
)

// ReportOptions of `sweep swebench report NAME`.
type ReportOptions struct {
	// Attempt is which attempt of each task is reported.
	Attempt int32

	Cluster *clioptions.Cluster
	// Name is the SweepRun's.
	Name string
	clioptions.IOStreams
}

func (o *ReportOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Name = streams, args[0]
	return nil
}

func (o *ReportOptions) Validate() error { return nil }

func (o *ReportOptions) Run(ctx context.Context) error {
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	rep, unfinished, err := runReport(ctx, cl, ns, o.Name, o.Attempt)
	if err != nil {
		return err
	}
	if unfinished > 0 {
		fmt.Fprintf(o.ErrOut, "sweeprun %s: %d submitted instances have no finished trial yet and count as errors; report again when `sweep watch %s` shows it done\n", o.Name, unfinished, o.Name)
	}
	return clioptions.WriteStructured(o.Out, clioptions.OutputJSON, rep)
}

// runReport builds the run report of a campaign from its trials' report.json and, for a
// campaign written by import, its import record. It also returns how many submitted instances
// have no finished trial yet (they count as errors, as an instance without a report does).
func runReport(ctx context.Context, cl client.Client, ns, name string, attempt int32) (swebench.CampaignReport, int, error) {
	run, err := campaigns.GetSweepRun(ctx, cl, ns, name)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	trials, err := campaigns.Trials(ctx, cl, run)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	g, err := readGraded(ctx, cl, ns, trials, attempt)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	record, imported, err := importRecordOf(ctx, cl, run)
	if err != nil {
		return swebench.CampaignReport{}, 0, err
	}
	if imported {
		g.version = record.GradingVersion
		// SWE-bench removes an excluded instance from the dataset: it is not in
		// total_instances, unlike an instance that errors.
		if record.InstanceIDs, err = withoutExcluded(ctx, cl, run, record.InstanceIDs); err != nil {
			return swebench.CampaignReport{}, 0, err
		}
	} else {
		if len(g.finished) == 0 {
			return swebench.CampaignReport{}, 0, fmt.Errorf("sweeprun %s has no trials of attempt %d yet: wait for it to start, or choose another --attempt", name, attempt)
		}
		record = recordOfTrials(g.finished)
	}
	instances, preds, unfinished := reportInput(record, g.finished)
	rep := swebench.RunReport(instances, preds, g.reports, g.version)
	rep.ScoredVerdict = record.ScoredVerdict
	if rep.ScoredVerdict == "" {
		rep.ScoredVerdict = g.scoredVerdict
	}
	if len(g.differences) > 0 {
		rep.VerdictDifferences = g.differences
	}
	return rep, unfinished, nil
}

// graded is what the trials of one attempt say: their report.json, the grading version their
// verifier used, and which instances have a finished trial.
type graded struct {
	reports  []swebench.InstanceReport
	version  swebench.GradingVersion
	finished map[string]bool // instance id → its trial finished
	// scoredVerdict is the verdict the first trial's report.json holds; differences the
	// trials whose two verdicts differ, by instance id.
	scoredVerdict string
	differences   map[string]string
}

func readGraded(ctx context.Context, cl client.Client, ns string, trials []*evalv1.TaskTrial, attempt int32) (graded, error) {
	g := graded{finished: map[string]bool{}, differences: map[string]string{}}
	for i := range trials {
		tr := trials[i]
		if tr.Spec.Attempt != attempt {
			continue
		}
		id, err := trialInstanceID(tr)
		if err != nil {
			return g, err
		}
		g.finished[id] = tr.Status.Phase.Finished()
		if !g.finished[id] {
			continue
		}
		rep, ev, err := trialReport(ctx, cl, ns, tr)
		if err != nil {
			return g, err
		}
		if g.version == "" {
			g.version = ev.GradingVersion
		}
		if g.scoredVerdict == "" {
			g.scoredVerdict = ev.ScoredVerdict
		}
		if ev.VerdictDifference != "" {
			g.differences[id] = ev.VerdictDifference
		}
		if rep != nil {
			g.reports = append(g.reports, *rep)
		}
	}
	return g, nil
}

// trialReport reads a finished trial's results Secret: its report.json (nil for an error
// instance) and its eval.json (the zero GraderEval when it has none that reads).
func trialReport(ctx context.Context, cl client.Client, ns string, tr *evalv1.TaskTrial) (*swebench.InstanceReport, swebench.GraderEval, error) {
	secret := podbuild.ResultsSecretName(tr.Name)
	var ev swebench.GraderEval
	results, _, err := trialrecord.VerifierFiles(ctx, cl, tr)
	if err != nil {
		return nil, ev, err
	}
	if json.Unmarshal(results[podcontract.RecordEval], &ev) != nil {
		ev = swebench.GraderEval{}
	}
	data, ok := results[podcontract.RecordSWEBenchReport]
	if !ok {
		return nil, ev, nil
	}
	var rep swebench.InstanceReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, ev, fmt.Errorf("secret %s/%s key %s of trial %s: not a SWE-bench report.json: %v; regrade the trial", ns, secret, podcontract.RecordSWEBenchReport, tr.Name, err)
	}
	return &rep, ev, nil
}

// recordOfTrials stands in for the import record of a campaign not written by import: its
// instances are those it has trials of.
func recordOfTrials(finished map[string]bool) importRecord {
	var record importRecord
	for id := range finished {
		record.InstanceIDs = append(record.InstanceIDs, id)
	}
	sort.Strings(record.InstanceIDs)
	return record
}

// reportInput is the dataset and predictions SWE-bench's run report counts: every instance of
// the record, a missing prediction as incomplete, an empty patch as empty_patch, and any other
// as submitted; unfinished counts submitted instances with no finished trial yet.
func reportInput(record importRecord, finished map[string]bool) ([]swebench.Instance, []swebench.Prediction, int) {
	var instances []swebench.Instance
	var preds []swebench.Prediction
	submitted, empty, unfinished := "submitted", "", 0
	for _, id := range record.InstanceIDs {
		instances = append(instances, swebench.Instance{InstanceID: id})
		switch {
		case slices.Contains(record.MissingIDs, id):
		case slices.Contains(record.EmptyPatchIDs, id):
			preds = append(preds, swebench.Prediction{InstanceID: id, ModelPatch: &empty})
		default:
			preds = append(preds, swebench.Prediction{InstanceID: id, ModelPatch: &submitted})
			if !finished[id] {
				unfinished++
			}
		}
	}
	return instances, preds, unfinished
}

// trialInstanceID is the instance a trial graded, from its own task definition.
func trialInstanceID(tr *evalv1.TaskTrial) (string, error) {
	if tr.Spec.Grader != podcontract.GraderSWEBench {
		return "", fmt.Errorf("trial %s (task %s) is not graded by the SWE-bench grader (grader %q): sweep swebench report reads SWE-bench campaigns; use `sweep info %s`", tr.Name, tr.Spec.Task, tr.Spec.Grader, tr.Spec.SweepRun)
	}
	task, err := taskdef.Parse("trial "+tr.Name+" task.toml", []byte(tr.Spec.Definition))
	if err != nil {
		return "", err
	}
	id, ok := task.Metadata[MetadataInstanceID].(string)
	if !ok || id == "" {
		return "", fmt.Errorf("trial %s: task %s's task.toml has no [metadata] %s: reimport the task with `sweep swebench import`", tr.Name, tr.Spec.Task, MetadataInstanceID)
	}
	return id, nil
}

// withoutExcluded are the instances ids of run's import record that its exclusion list
// (status.exclusions: its snapshot, or its ConfigMap before the first trial) does not exclude
// whole; an instance's trials have no bugs, so only whole-task entries apply.
func withoutExcluded(ctx context.Context, cl client.Client, run *evalv1.SweepRun, ids []string) ([]string, error) {
	st := run.Status.Exclusions
	if st == nil {
		return ids, nil
	}
	name := st.Snapshot
	if name == "" {
		name = st.ConfigMapName
	}
	cm := &corev1.ConfigMap{}
	if err := cl.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, cm); err != nil {
		return nil, fmt.Errorf("sweeprun %s applies the exclusion list of configmap %s, which cannot be read: %w; the report leaves its excluded instances out", run.Name, name, err)
	}
	list, err := exclusions.Parse(campaign.ExclusionsSource(run.Namespace, name), []byte(cm.Data[exclusions.ConfigMapKey]))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return list.Apply(taskName(id), nil, nil).WholeTask }), nil
}

// importRecordOf reads the import record of a campaign written by import, if any.
func importRecordOf(ctx context.Context, cl client.Client, run *evalv1.SweepRun) (importRecord, bool, error) {
	var record importRecord
	importName, ok := run.Labels[ImportLabel]
	if !ok {
		return record, false, nil
	}
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: run.Namespace, Name: importName + "-import"}
	if err := cl.Get(ctx, key, cm); err != nil {
		return record, false, fmt.Errorf("sweeprun %s is labelled %s=%s but configmap %s cannot be read: %w; apply the whole import (kubectl apply -k)", run.Name, ImportLabel, importName, key, err)
	}
	if err := json.Unmarshal([]byte(cm.Data[ImportRecordKey]), &record); err != nil {
		return record, false, fmt.Errorf("configmap %s key %s: %v; rewrite it with `sweep swebench import`", key, ImportRecordKey, err)
	}
	return record, true, nil
}
