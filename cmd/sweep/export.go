package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func newExportCmd(kube *cluster) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "export NAME -o DIR",
		Short: "Write a campaign's results in Harbor's job layout",
		Long: "export writes the finished trials of SweepRun NAME into DIR, the job folder: DIR/config.json\n" +
			"and one folder per trial with config.json, result.json, verifier/reward.json,\n" +
			"verifier/eval.json and artifacts/ with the agent's patch, so that tools built for Harbor and\n" +
			"SWE-sweep read it (sweep info DIR does). A trial that was not measured has no reward.json;\n" +
			"its result.json says why in exception_info. Running again overwrites the same files.",
		Example: "  sweep export my-run -o jobs/my-run && sweep info jobs/my-run --per-task",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return fmt.Errorf("flag -o/--output-dir is required: name the job folder to write, for example -o jobs/%s", args[0])
			}
			cl, ns, err := kube.client()
			if err != nil {
				return err
			}
			run, err := getSweepRun(cmd.Context(), cl, ns, args[0])
			if err != nil {
				return err
			}
			trials, err := campaignTrials(cmd.Context(), cl, ns, run.Name)
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
				t, err := exportTrial(cmd.Context(), cl, &trials[i])
				if err != nil {
					return err
				}
				job.Trials = append(job.Trials, t)
			}
			if err := harborjob.Write(dir, job); err != nil {
				return fmt.Errorf("writing %s: %w", dir, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "exported %d trials of sweeprun %s to %s\n", len(job.Trials), run.Name, dir)
			if unfinished > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "sweeprun %s: %d trials not finished yet were left out; export again when `sweep watch %s` shows it done\n", run.Name, unfinished, run.Name)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "output-dir", "o", "", "the job folder to write (created if missing)")
	return cmd
}

// exportTrial reads one finished trial's Secrets into Harbor's terms.
func exportTrial(ctx context.Context, cl client.Client, tr *evalv1.TaskTrial) (harborjob.Trial, error) {
	out := harborjob.Trial{Name: tr.Name, Task: tr.Spec.Task, Attempt: int(tr.Spec.Attempt),
		Started: timeOf(tr.Status.StartTime), Finished: timeOf(tr.Status.CompletionTime)}
	if s := tr.Status.Agent; s != nil {
		out.Agent = harborjob.Phase{Started: timeOf(s.StartTime), Finished: timeOf(s.CompletionTime)}
	}
	if s := tr.Status.Verifier; s != nil {
		out.Verifier = harborjob.Phase{Started: timeOf(s.StartTime), Finished: timeOf(s.CompletionTime)}
	}
	results, err := optionalSecret(ctx, cl, tr.Namespace, podbuild.ResultsSecretName(tr.Name))
	if err != nil {
		return out, err
	}
	artifacts, err := optionalSecret(ctx, cl, tr.Namespace, podbuild.ArtifactSecretName(tr.Name))
	if err != nil {
		return out, err
	}
	out.Artifacts = artifacts
	out.EvalJSON = results[podcontract.RecordEval]
	scored := campaign.ScoringTrial(tr)
	switch {
	case scored.Measured:
		out.Rewards, out.RewardJSON = scored.Rewards, results[podcontract.RecordReward]
	case tr.Status.GraderFailed || tr.Status.Reason == podcontract.ReasonGraderFailed:
		// Harbor and SWE-sweep tools see a grader failure in reward.json itself and drop it.
		out.RewardJSON = results[podcontract.RecordReward]
		if out.RewardJSON == nil {
			out.RewardJSON = []byte(`{"reward": 0, "grader_failed": 1}`)
		}
	}
	if !scored.Measured {
		out.Exception = &harborjob.Exception{Type: tr.Status.Reason, Message: tr.Status.Message}
		if out.Exception.Type == "" {
			out.Exception.Type = string(tr.Status.Phase)
		}
	}
	return out, nil
}

// optionalSecret reads a Secret's data; a missing Secret is no data (a trial that failed
// early has none).
func optionalSecret(ctx context.Context, cl client.Client, ns, name string) (map[string][]byte, error) {
	s := &corev1.Secret{}
	err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading secret %s/%s: %w: export needs get on secrets in the namespace", ns, name, err)
	}
	return s.Data, nil
}

func timeOf(t *metav1.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.Time
}
