// Package export is `sweep export`: a campaign's results in Harbor's job layout.
package export

import (
	"context"
	"fmt"

	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/storeread"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/trialrecord"
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
	trials, err := campaigns.Trials(ctx, cl, run)
	if err != nil {
		return err
	}
	job := trialrecord.Job(run, "")
	unfinished := 0
	for i := range trials {
		if !trials[i].Status.Phase.Finished() {
			unfinished++
			continue
		}
		t, warnings, err := trialrecord.Trial(ctx, cl, trials[i])
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
