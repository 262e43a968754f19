// Package retry is `sweep retry NAME`: it asks the controller to rerun the failed trials of a
// finished campaign in place, through the SweepRun's eval.sweep.dev/retry annotation (not a
// spec field, which a GitOps tool would revert).
package retry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/watch"
)

// FieldManager owns the retry annotations, so that applying the campaign's manifest again
// (sweep run, kubectl apply --server-side, a GitOps tool) leaves them as they are.
const FieldManager = "sweep-retry"

// Options of `sweep retry NAME [--reason R,...] [--watch]`.
type Options struct {
	// Reasons narrow the rerun to trials that ended with them; none reruns
	// failure.RerunByDefault.
	Reasons []string
	// Watch follows the campaign until the reruns end, then prints its report.
	Watch bool

	Cluster *clioptions.Cluster
	Name    string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one argument, the sweeprun NAME, got %d: for example `sweep retry nightly`", len(args))
	}
	o.IOStreams, o.Name = streams, args[0]
	return nil
}

func (o *Options) Validate() error {
	if err := campaign.CheckRetryReasons(o.Reasons); err != nil {
		return fmt.Errorf("flag --reason: %w", err)
	}
	return nil
}

func (o *Options) Run(ctx context.Context) error {
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	run, trials, err := campaigns.FinishedCampaign(ctx, cl, ns, o.Name, "retry", "reruns the failed trials")
	if err != nil {
		return err
	}
	reasons := campaign.ParseRetryReasons(strings.Join(o.Reasons, ","))
	rerun := campaign.ToRerun(trials, reasons)
	if len(rerun) == 0 {
		fmt.Fprintf(o.Out, "sweeprun %s: no finished trial ended Error or Failed with reason %s: nothing to rerun\n", o.Name, strings.Join(reasons, ", "))
		return nil
	}
	token := time.Now().UTC().Format(time.RFC3339Nano)
	if err := requestRetry(ctx, cl, run, token, o.Reasons); err != nil {
		return fmt.Errorf("requesting a retry of sweeprun %s in namespace %s: %w", o.Name, ns, err)
	}
	fmt.Fprintf(o.Out, "sweeprun.eval.sweep.dev/%s retry requested: %d trials will rerun as new trials of the same attempts (reasons %s)\n",
		o.Name, len(rerun), strings.Join(reasons, ", "))
	for i := range rerun {
		t := rerun[i]
		fmt.Fprintf(o.Out, "  %s (task %s, attempt %d): %s %s\n", t.Name, t.Spec.Task, t.Spec.Attempt, t.Status.Phase, t.Status.Reason)
	}
	if !o.Watch {
		return nil
	}
	if err := campaigns.AwaitHandled(ctx, cl, ns, o.Name, token, "status.retry", func(r *evalv1.SweepRun) *evalv1.RetryStatus { return r.Status.Retry }); err != nil {
		return err
	}
	return watch.AndReport(ctx, o.IOStreams, cl, ns, o.Name)
}

// requestRetry writes a fresh token (and the reasons, or removes them for the default) with
// a merge patch of the annotations only.
func requestRetry(ctx context.Context, cl client.Client, run *evalv1.SweepRun, token string, reasons []string) error {
	var reasonsValue any // null removes the annotation
	if len(reasons) > 0 {
		reasonsValue = strings.Join(reasons, ",")
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		evalv1.AnnotationRetry: token, evalv1.AnnotationRetryReasons: reasonsValue,
	}}})
	if err != nil {
		return err
	}
	return cl.Patch(ctx, run, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldManager))
}
