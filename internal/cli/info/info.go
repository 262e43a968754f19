// Package info is `sweep info`: SWE-sweep's report of campaigns in the cluster or of Harbor job
// directories.
package info

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// Options of `sweep info NAME|DIR...`.
type Options struct {
	PerTask bool
	// JSON is --json, the same as Format "json".
	JSON   bool
	Format string

	Cluster *clioptions.Cluster
	// Sources are SweepRun names and Harbor job directories.
	Sources []string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Sources = streams, args
	if o.JSON {
		o.Format = clioptions.OutputJSON
	}
	return nil
}

func (o *Options) Validate() error {
	return clioptions.CheckOutput(o.Format)
}

func (o *Options) Run(ctx context.Context) error {
	trials, err := o.collectTrials(ctx)
	if err != nil {
		return err
	}
	rep := scoring.Score(trials)
	for _, t := range rep.Tasks {
		if t.SubtasksVary {
			fmt.Fprintf(o.ErrOut, "warning: task %s: its trials disagree on n_subtasks; it counts %d bugs, its first trial's (SWE-sweep's rule), so its resolved bugs may exceed its bugs and the score pass 100%%\n", t.Task, t.Subtasks)
		}
	}
	return clioptions.Write(o.Out, o.Format, report.NewDocument(rep), func(w io.Writer) error { return report.WriteText(w, rep, o.PerTask) })
}

// collectTrials reads the scoring input of each source: a directory is a Harbor job tree,
// anything else a SweepRun name. Unfinished trials are left out, with a note on ErrOut; so
// are the files a job tree's scoring skips. Job trees without a single reward.json are an
// error, as they are for SWE-sweep.
func (o *Options) collectTrials(ctx context.Context) ([]scoring.Trial, error) {
	var trials []scoring.Trial
	var dirs []string
	for _, arg := range o.Sources {
		if st, err := os.Stat(arg); err == nil && st.IsDir() {
			read, warnings, err := harborjob.ReadTrials([]string{arg})
			if err != nil {
				return nil, err
			}
			for _, w := range warnings {
				fmt.Fprintf(o.ErrOut, "warning: %s\n", w)
			}
			trials = append(trials, read...)
			dirs = append(dirs, arg)
			continue
		}
		cl, ns, err := o.Cluster.Client()
		if err != nil {
			return nil, fmt.Errorf("%s is not a directory, so it names a sweeprun: %w", arg, err)
		}
		if _, err := campaigns.GetSweepRun(ctx, cl, ns, arg); err != nil {
			return nil, fmt.Errorf("%w (%s is not a directory either)", err, arg)
		}
		items, err := campaigns.Trials(ctx, cl, ns, arg)
		if err != nil {
			return nil, err
		}
		campaign.SortAsExported(items)
		unfinished := 0
		for i := range items {
			if !items[i].Status.Phase.Finished() {
				unfinished++
				continue
			}
			trials = append(trials, campaign.ScoringTrial(&items[i]))
		}
		if unfinished > 0 {
			fmt.Fprintf(o.ErrOut, "sweeprun %s: %d trials not finished yet are not in the report\n", arg, unfinished)
		}
	}
	if len(dirs) == len(o.Sources) && len(trials) == 0 {
		return nil, fmt.Errorf("no SWE-sweep %s found under %s: give a Harbor job directory or the output of `sweep export`", reward.FileJSON, strings.Join(dirs, ", "))
	}
	return trials, nil
}
