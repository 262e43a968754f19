// Package resume is `sweep resume NAME`: it releases a campaign its guard (spec.guard)
// suspended, through the SweepRun's eval.sweep.dev/resume annotation (not a spec field, which
// a GitOps tool would revert).
package resume

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
)

// FieldManager owns the resume annotation, so that applying the campaign's manifest again
// leaves it as it is.
const FieldManager = "sweep-resume"

// Options of `sweep resume NAME`.
type Options struct {
	Cluster *clioptions.Cluster
	Name    string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want one argument, the sweeprun NAME, got %d: for example `sweep resume nightly`", len(args))
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
	run, err := campaigns.GetSweepRun(ctx, cl, ns, o.Name)
	if err != nil {
		return err
	}
	if !run.Status.Guard.Holds() {
		if run.Spec.Suspend {
			return fmt.Errorf("sweeprun %s in namespace %s is suspended by spec.suspend, not by its guard: set spec.suspend to false where its manifest lives (Git, or `kubectl patch sweeprun %s -n %s --type merge -p '{\"spec\":{\"suspend\":false}}'`)",
				o.Name, ns, o.Name, ns)
		}
		return fmt.Errorf("sweeprun %s in namespace %s is not suspended by its guard (phase %s): nothing to resume", o.Name, ns, campaigns.OrNone(string(run.Status.Phase)))
	}
	token := time.Now().UTC().Format(time.RFC3339Nano)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{evalv1.AnnotationResume: token}}})
	if err != nil {
		return err
	}
	if err := cl.Patch(ctx, run, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("requesting a resume of sweeprun %s in namespace %s: %w", o.Name, ns, err)
	}
	fmt.Fprintf(o.Out, "sweeprun.eval.sweep.dev/%s resume requested: new trials start again; the guard counts only failures from now on (it had stopped the campaign for %s)\n",
		o.Name, run.Status.Guard.Reason)
	return nil
}
