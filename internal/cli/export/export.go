// Package export is `sweep export`: a campaign's results in Harbor's job layout.
package export

import (
	"context"
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/storeread"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// Options of `sweep export NAME|STORE_URL -o DIR`.
type Options struct {
	// Dir is the job folder to write.
	Dir string

	Cluster *clioptions.Cluster
	// Name is the SweepRun's, or the store URL of its job folder (fromStore).
	Name string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Name = streams, args[0]
	return nil
}

func (o *Options) Validate() error {
	if o.Dir == "" {
		return fmt.Errorf("flag -o/--output-dir is required: name the job folder to write, for example -o jobs/%s", o.Name)
	}
	return nil
}

func (o *Options) Run(ctx context.Context) error {
	if storeread.IsURL(o.Name) {
		return o.fromStore(ctx)
	}
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	run, err := campaigns.GetSweepRun(ctx, cl, ns, o.Name)
	if err != nil {
		return err
	}
	trials, err := campaigns.Trials(ctx, cl, ns, run.Name)
	if err != nil {
		return err
	}
	job := harborjob.Job{Name: run.Name, Agent: run.Spec.Agent.Kind()}
	unfinished := 0
	for i := range trials {
		if !trials[i].Status.Phase.Finished() {
			unfinished++
			continue
		}
		t, warnings, err := exportTrial(ctx, cl, &trials[i])
		if err != nil {
			return err
		}
		for _, w := range warnings {
			fmt.Fprintf(o.ErrOut, "trial %s: %s\n", t.Name, w)
		}
		job.Trials = append(job.Trials, t)
	}
	if err := harborjob.Write(o.Dir, job); err != nil {
		return fmt.Errorf("writing %s: %w", o.Dir, err)
	}
	fmt.Fprintf(o.Out, "exported %d trials of sweeprun %s to %s\n", len(job.Trials), run.Name, o.Dir)
	if unfinished > 0 {
		fmt.Fprintf(o.ErrOut, "sweeprun %s: %d trials not finished yet were left out; export again when `sweep watch %s` shows it done\n", run.Name, unfinished, run.Name)
	}
	return nil
}

// exportTrial reads one finished trial's Secrets into Harbor's terms; the warnings name the
// verifier's files that are not exported, and why.
func exportTrial(ctx context.Context, cl client.Client, tr *evalv1.TaskTrial) (harborjob.Trial, []string, error) {
	out := harborjob.Trial{Name: tr.Name, Task: tr.Spec.Task, Attempt: int(tr.Spec.Attempt),
		Started: timeOf(tr.Status.StartTime), Finished: timeOf(tr.Status.CompletionTime)}
	if s := tr.Status.Agent; s != nil {
		out.Agent = harborjob.Phase{Started: timeOf(s.StartTime), Finished: timeOf(s.CompletionTime)}
	}
	if s := tr.Status.Verifier; s != nil {
		out.Verifier = harborjob.Phase{Started: timeOf(s.StartTime), Finished: timeOf(s.CompletionTime)}
	}
	files, manifest, err := campaigns.VerifierFiles(ctx, cl, tr)
	if err != nil {
		return out, nil, err
	}
	artifacts, err := campaigns.Artifacts(ctx, cl, tr)
	if err != nil {
		return out, nil, err
	}
	out.Artifacts = artifacts
	rewardJSON, wrote := files[reward.FileJSON]
	delete(files, reward.FileJSON)
	var warnings []string
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
