// Package regrade is `sweep regrade NAME`: it asks the controller to grade the stored
// artifacts of a finished campaign's final trials again with the task catalogue's current
// verifier images, without running the agents, in place, through the SweepRun's
// eval.sweep.dev/regrade annotation (not a spec field, which a GitOps tool would revert).
package regrade

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/watch"
)

// FieldManager owns the regrade annotation, so that applying the campaign's manifest again
// (sweep run, kubectl apply --server-side, a GitOps tool) leaves it as it is.
const FieldManager = "sweep-regrade"

// Options of `sweep regrade NAME [--watch]`.
type Options struct {
	// Watch follows the campaign until the regrades end, then prints its report.
	Watch bool

	Cluster *clioptions.Cluster
	Name    string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one argument, the sweeprun NAME, got %d: for example `sweep regrade nightly`", len(args))
	}
	o.IOStreams, o.Name = streams, args[0]
	return nil
}

func (o *Options) Validate() error { return nil }

func (o *Options) Run(ctx context.Context) error {
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	run, trials, err := campaigns.FinishedCampaign(ctx, cl, ns, o.Name, "regrade", "grades the stored patches")
	if err != nil {
		return err
	}
	regrade, skipped := campaign.ToRegrade(trials)
	if len(regrade) == 0 {
		fmt.Fprintf(o.Out, "sweeprun %s: no final trial has stored artifacts (%d without: their agent did not finish): nothing to regrade\n", o.Name, skipped)
		return nil
	}
	token := time.Now().UTC().Format(time.RFC3339Nano)
	if err := requestRegrade(ctx, cl, run, token); err != nil {
		return fmt.Errorf("requesting a regrade of sweeprun %s in namespace %s: %w", o.Name, ns, err)
	}
	fmt.Fprintf(o.Out, "sweeprun.eval.sweep.dev/%s regrade requested: %d trials' stored artifacts will be graded again with the current verifier images, without running the agents; %d final trials without artifacts are skipped\n",
		o.Name, len(regrade), skipped)
	for i := range regrade {
		t := regrade[i]
		verdict := string(t.Status.Phase)
		if t.Status.Reason != "" {
			verdict += " " + t.Status.Reason
		}
		fmt.Fprintf(o.Out, "  %s (task %s, attempt %d): %s, score %s\n", t.Name, t.Spec.Task, t.Spec.Attempt, verdict, campaigns.OrNone(t.Status.Score))
	}
	if !o.Watch {
		return nil
	}
	if err := campaigns.AwaitHandled(ctx, cl, ns, o.Name, token, "status.regrade", func(r *evalv1.SweepRun) *evalv1.RetryStatus { return r.Status.Regrade }); err != nil {
		return err
	}
	return watch.AndReport(ctx, o.IOStreams, cl, ns, o.Name)
}

// requestRegrade writes a fresh token with a merge patch of the annotations only.
func requestRegrade(ctx context.Context, cl client.Client, run *evalv1.SweepRun, token string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{evalv1.AnnotationRegrade: token}}})
	if err != nil {
		return err
	}
	return cl.Patch(ctx, run, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldManager))
}
