// Package trialrecord builds a trial's record in Harbor's terms (harborjob.Trial) from its
// TaskTrial and the Secrets the trial controller keeps its results in: the one reading that
// `sweep export` writes to a directory and the controller writes to the artifact store.
package trialrecord

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// OptionalSecret reads a Secret's data; a missing Secret is no data (a trial that failed
// early has none).
func OptionalSecret(ctx context.Context, cl client.Reader, ns, name string) (map[string][]byte, error) {
	s := &corev1.Secret{}
	err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading secret %s/%s: %w: reading a trial's results needs get on secrets in the namespace", ns, name, err)
	}
	return s.Data, nil
}

// Job is a campaign's job folder in Harbor's terms, without its trials: its name, agent and
// pinned images, all fixed once the campaign started, so that writing it again changes
// nothing.
func Job(run *evalv1.SweepRun, writer string) harborjob.Job {
	job := harborjob.Job{Name: run.Name, Agent: run.Spec.Agent.Kind(), Writer: writer}
	if len(run.Status.Images) > 0 {
		job.Images = make(map[string]string, len(run.Status.Images))
		for _, im := range run.Status.Images {
			job.Images[im.Image] = im.Digest
		}
	}
	if e := run.Status.Exclusions; e != nil {
		job.Exclusions = &harborjob.Exclusions{ConfigMap: e.ConfigMapName, SHA256: e.SHA256,
			TasksExcluded: int(e.TasksExcluded), BugsExcluded: int(e.BugsExcluded), ByReason: map[string]harborjob.ExclusionCount{}}
		for _, c := range e.ByReason {
			job.Exclusions.ByReason[c.Reason] = harborjob.ExclusionCount{Tasks: int(c.Tasks), Bugs: int(c.Bugs)}
		}
	}
	return job
}

// Trial reads one finished trial's Secrets into Harbor's terms; the warnings name the
// verifier's files that are left out, and why.
func Trial(ctx context.Context, cl client.Reader, tr *evalv1.TaskTrial) (harborjob.Trial, []string, error) {
	files, manifest, err := VerifierFiles(ctx, cl, tr)
	if err != nil {
		return harborjob.Trial{}, nil, err
	}
	artifacts, err := Artifacts(ctx, cl, tr)
	if err != nil {
		return harborjob.Trial{}, nil, err
	}
	return Build(tr, files, manifest, artifacts)
}

// Build is a finished trial in Harbor's terms from its status, its verifier's files (by path
// below /logs/verifier, as RecordFiles reads them) and its artifacts (by file name); the
// warnings name the verifier's files that are left out, and why.
func Build(tr *evalv1.TaskTrial, files map[string][]byte, manifest podcontract.VerifierFiles, artifacts map[string][]byte) (harborjob.Trial, []string, error) {
	out := harborjob.Trial{Name: tr.Name, Task: tr.Spec.Task, Attempt: int(tr.Spec.Attempt), RegradeOf: tr.Spec.RegradeOf,
		Started: timeOf(tr.Status.StartTime), Finished: timeOf(tr.Status.CompletionTime)}
	if s := tr.Status.Agent; s != nil {
		out.Agent = harborjob.Phase{Started: timeOf(s.StartTime), Finished: timeOf(s.CompletionTime)}
	}
	if tr.Status.Usage != nil {
		if u := campaign.UsageOf(&tr.Status.Usage.AgentUsage); u.Reported() {
			out.Usage = &u
		}
	}
	if s := tr.Status.Verifier; s != nil {
		out.Verifier = harborjob.Phase{Started: timeOf(s.StartTime), Finished: timeOf(s.CompletionTime)}
	}
	if p := tr.Status.Provenance; p != nil {
		b, err := json.Marshal(p)
		if err != nil {
			return out, nil, fmt.Errorf("trial %s: status.provenance: %w", tr.Name, err)
		}
		out.Provenance = b
	}
	out.Artifacts = artifacts
	files = maps.Clone(files)
	rewardJSON, wrote := files[reward.FileJSON]
	delete(files, reward.FileJSON)
	var warnings []string
	var err error
	scored := campaign.ScoringTrial(tr)
	switch {
	case scored.Measured:
		out.Rewards, out.RewardJSON = scored.Rewards, rewardJSON
	case tr.Status.GraderFailed || tr.Status.Reason == reasons.GraderFailed:
		// Harbor and SWE-sweep tools see a grader failure in reward.json itself and drop it:
		// the grader's own (SWE-sweep's nine keys) as it wrote it, else the bare form.
		out.RewardJSON = rewardJSON
		if out.RewardJSON == nil {
			if out.RewardJSON, err = reward.Encode(reward.GraderFailed()); err != nil {
				return out, nil, err
			}
		}
	}
	if !scored.Measured {
		out.Exception = &harborjob.Exception{Type: tr.Status.Reason, Message: tr.Status.Message}
		if out.Exception.Type == "" {
			out.Exception.Type = string(tr.Status.Phase)
		}
		if wrote && out.RewardJSON == nil {
			warnings = append(warnings, fmt.Sprintf("verifier/%s not exported: the trial was not measured (%s), and SWE-sweep's scoring would count it", reward.FileJSON, out.Exception.Type))
		}
	}
	out.VerifierFiles = map[string][]byte{}
	for rel, data := range files {
		if _, err := harborjob.VerifierPath(rel); err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		out.VerifierFiles[rel] = data
	}
	for _, f := range manifest.Files {
		if !f.Kept() {
			warnings = append(warnings, fmt.Sprintf("verifier file %s not exported: the collector did not keep it: %s", f.Path, f.NotKept()))
		}
	}
	if manifest.Incomplete {
		warnings = append(warnings, fmt.Sprintf("the collector listed only part of the verifier's files (at most %d entries, %d bytes of listing): the rest were not kept", podcontract.MaxVerifierEntries, podcontract.MaxVerifierManifestBytes))
	}
	sort.Strings(warnings)
	return out, warnings, nil
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}
