// Package watch is `sweep watch`: follow a campaign to its end and print its report.
package watch

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// Options of `sweep watch NAME`.
type Options struct {
	Cluster *clioptions.Cluster
	// Name is the SweepRun's.
	Name string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Name = streams, args[0]
	return nil
}

func (o *Options) Validate() error { return nil }

func (o *Options) Run(ctx context.Context) error {
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	return AndReport(ctx, o.IOStreams, cl, ns, o.Name)
}

// AndReport follows a campaign and, once it finished, prints its report.
func AndReport(ctx context.Context, streams clioptions.IOStreams, cl client.Client, ns, name string) error {
	_, trials, finished, err := campaigns.Watch(ctx, cl, ns, name, streams.Out, streams.ErrOut)
	if !finished {
		return err
	}
	var scored []scoring.Trial
	for i := range trials {
		if trials[i].Status.Phase.Finished() {
			scored = append(scored, campaign.ScoringTrial(trials[i]))
		}
	}
	fmt.Fprintln(streams.Out)
	if werr := report.WriteText(streams.Out, scoring.Score(scored), false); werr != nil {
		return werr
	}
	return err
}
