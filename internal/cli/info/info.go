// Package info is `sweep info`: SWE-sweep's report of campaigns in the cluster or of Harbor job
// directories, and, when asked, pass@k over their attempts.
package info

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/storeread"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
	"github.com/swe-sweep/sweep-operator/internal/trialrecord"
)

// Options of `sweep info NAME|DIR...`.
type Options struct {
	PerTask bool
	// JSON is --json, the same as Format "json".
	JSON   bool
	Format string
	// PassAt are the k of --pass-at; none leaves the report SWE-sweep's alone.
	PassAt []int

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
	for _, k := range o.PassAt {
		if k < 1 {
			return fmt.Errorf("flag --pass-at: want attempts to draw of 1 or more, got %d: for example --pass-at 1,5", k)
		}
	}
	return clioptions.CheckOutput(o.Format)
}

// document is the JSON report: SWE-sweep's keys, and beside them pass_at_k when asked,
// exclusions when a campaign applied a list, and usage when the agents reported some.
type document struct {
	report.Document
	PassAtK    *passk.Report       `json:"pass_at_k,omitempty"`
	Exclusions []report.Exclusions `json:"exclusions,omitempty"`
	Usage      *usageDocument      `json:"usage,omitempty"`
}

func (o *Options) Run(ctx context.Context) error {
	var spent harborjob.UsageTotals
	trials, runs, err := collect(ctx, o.Cluster, o.ErrOut, o.Sources, len(o.PassAt) > 0, &spent)
	if err != nil {
		return err
	}
	excluded := exclusionsOf(runs)
	rep := scoring.Score(ScoringTrials(trials))
	if note := swebenchVerdicts(trials); note != "" {
		fmt.Fprintln(o.ErrOut, note)
	}
	if note := flakeRechecks(trials); note != "" {
		fmt.Fprintln(o.ErrOut, note)
	}
	for _, t := range rep.Tasks {
		if t.SubtasksVary {
			fmt.Fprintf(o.ErrOut, "warning: task %s: its trials disagree on n_subtasks; it counts %d bugs, its first trial's (SWE-sweep's rule), so its resolved bugs may exceed its bugs and the score pass 100%%\n", t.Task, t.Subtasks)
		}
	}
	doc := document{Document: report.NewDocument(rep), Exclusions: excluded, Usage: newUsageDocument(spent)}
	if len(o.PassAt) > 0 {
		pk := passk.Compute(trials, o.PassAt)
		for _, t := range pk.Tasks {
			if t.Note != "" {
				fmt.Fprintf(o.ErrOut, "pass@k: task %s is scored per task, not per bug: %s\n", t.Task, t.Note)
			}
		}
		doc.PassAtK = &pk
	}
	return clioptions.Write(o.Out, o.Format, doc, func(w io.Writer) error {
		if err := report.WriteText(w, rep, o.PerTask); err != nil {
			return err
		}
		if err := report.WriteExclusions(w, excluded); err != nil {
			return err
		}
		if doc.PassAtK != nil {
			fmt.Fprintln(w)
			if err := report.WritePassAtK(w, *doc.PassAtK, o.PerTask); err != nil {
				return err
			}
		}
		return writeUsage(w, spent)
	})
}

// exclusionsOf are the exclusion lists the campaigns applied, in the order given.
func exclusionsOf(runs []*evalv1.SweepRun) []report.Exclusions {
	var out []report.Exclusions
	for _, run := range runs {
		e := run.Status.Exclusions
		if e == nil {
			continue
		}
		x := report.Exclusions{SweepRun: run.Name, ConfigMap: e.ConfigMapName, SHA256: e.SHA256,
			Tasks: int(e.TasksExcluded), Bugs: int(e.BugsExcluded), ByReason: []report.ReasonCount{}}
		for _, c := range e.ByReason {
			x.ByReason = append(x.ByReason, report.ReasonCount{Reason: c.Reason, Tasks: int(c.Tasks), Bugs: int(c.Bugs)})
		}
		out = append(out, x)
	}
	return out
}

// ScoringTrials are the scoring inputs of trials.
func ScoringTrials(trials []passk.Trial) []scoring.Trial {
	out := make([]scoring.Trial, len(trials))
	for i, t := range trials {
		out[i] = t.Trial
	}
	return out
}

// CollectTrials reads the scoring input of each source: a store URL is a job folder in an
// artifact store (storeread.FindJob), a directory a Harbor job tree, anything else a SweepRun
// name. Unfinished trials are left out, with a note on errOut; so
// are the files a job tree's scoring skips. Job trees without a single reward.json are an
// error, as they are for SWE-sweep. With perBug, each counted trial also gets what its
// eval.json says of each bug (beside its reward.json, or in its results Secret).
func CollectTrials(ctx context.Context, cluster *clioptions.Cluster, errOut io.Writer, sources []string, perBug bool) ([]passk.Trial, error) {
	trials, _, err := collect(ctx, cluster, errOut, sources, perBug, &harborjob.UsageTotals{})
	return trials, err
}

// collect is CollectTrials that also returns the SweepRuns among the sources and adds to spent
// the usage the sources' agents reported: a SweepRun's status.usage, a job tree's result.json
// files.
func collect(ctx context.Context, cluster *clioptions.Cluster, errOut io.Writer, sources []string, perBug bool, spent *harborjob.UsageTotals) ([]passk.Trial, []*evalv1.SweepRun, error) {
	var trials []passk.Trial
	var runs []*evalv1.SweepRun
	var dirs []string
	for _, arg := range sources {
		if storeread.IsURL(arg) {
			read, sum, err := storeTrials(ctx, errOut, arg, perBug)
			if err != nil {
				return nil, nil, err
			}
			trials = append(trials, read...)
			spent.Add(sum)
			continue
		}
		st, statErr := os.Stat(arg)
		switch {
		case statErr == nil && !st.IsDir():
			return nil, nil, fmt.Errorf("%s is a file: give the Harbor job directory that holds it, or a sweeprun name", arg)
		case statErr != nil && strings.ContainsRune(arg, '/'):
			// A SweepRun's name has no slash: this was meant as a directory.
			return nil, nil, fmt.Errorf("%s: no such job directory (%v); a sweeprun name has no /", arg, errors.Unwrap(statErr))
		}
		if statErr == nil {
			read, err := dirTrials(errOut, arg, perBug)
			if err != nil {
				return nil, nil, err
			}
			sum, err := dirUsage(errOut, arg)
			if err != nil {
				return nil, nil, err
			}
			trials = append(trials, read...)
			spent.Add(sum)
			dirs = append(dirs, arg)
			continue
		}
		cl, ns, err := cluster.Client()
		if err != nil {
			return nil, nil, fmt.Errorf("%s is not a directory, so it names a sweeprun: %w", arg, err)
		}
		run, err := campaigns.GetSweepRun(ctx, cl, ns, arg)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (%s is not a directory either)", err, arg)
		}
		runs = append(runs, run)
		items, err := campaigns.Trials(ctx, cl, run)
		if err != nil {
			return nil, nil, err
		}
		spent.Add(campaignUsage(run))
		campaign.SortAsExported(items)
		unfinished := 0
		for i := range items {
			if !items[i].Status.Phase.Finished() {
				unfinished++
				continue
			}
			t := passk.Trial{Trial: campaign.ScoringTrial(items[i]), Source: "tasktrial " + items[i].Name}
			if _, counted := scoring.Counted(t.Trial); perBug && counted {
				data, err := clusterEval(ctx, cl, items[i])
				t.Subtasks, t.NoSubtasks = subtasksOf(data, err)
			}
			trials = append(trials, t)
		}
		if unfinished > 0 {
			fmt.Fprintf(errOut, "sweeprun %s: %d trials not finished yet are not in the report\n", arg, unfinished)
		}
	}
	if len(dirs) == len(sources) && len(trials) == 0 {
		return nil, nil, fmt.Errorf("no SWE-sweep %s found under %s: give a Harbor job directory or the output of `sweep export`", reward.FileJSON, strings.Join(dirs, ", "))
	}
	return trials, runs, nil
}

// dirUsage sums the usage a Harbor job tree's result.json files report.
func dirUsage(errOut io.Writer, dir string) (harborjob.UsageTotals, error) {
	sum, warnings, err := harborjob.ReadUsage([]string{dir})
	for _, w := range warnings {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
	return sum, err
}

// dirTrials reads the trials of a Harbor job tree.
func dirTrials(errOut io.Writer, dir string, perBug bool) ([]passk.Trial, error) {
	read, warnings, err := harborjob.ReadResults([]string{dir})
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
	trials := make([]passk.Trial, 0, len(read))
	for _, r := range read {
		t := passk.Trial{Trial: r.Trial, Source: r.File}
		if _, counted := scoring.Counted(r.Trial); perBug && counted {
			data, err := harborjob.ReadEval(r.File)
			t.Subtasks, t.NoSubtasks = subtasksOf(data, err)
		}
		trials = append(trials, t)
	}
	return trials, nil
}

// clusterEval is the eval.json a trial's verifier left in its results Secrets.
func clusterEval(ctx context.Context, cl client.Client, tr *evalv1.TaskTrial) ([]byte, error) {
	files, _, err := trialrecord.VerifierFiles(ctx, cl, tr)
	if err != nil {
		return nil, err
	}
	data, ok := files[podcontract.RecordEval]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return data, nil
}

// subtasksOf is what an eval.json says of each bug, or why it says nothing.
func subtasksOf(data []byte, readErr error) ([]sweepbundle.SubtaskOutcome, string) {
	switch {
	case errors.Is(readErr, fs.ErrNotExist):
		return nil, "no " + harborjob.EvalJSON
	case readErr != nil:
		return nil, fmt.Sprintf("cannot read %s: %v", harborjob.EvalJSON, readErr)
	}
	outcome, err := sweepbundle.ReadOutcome(data)
	if err != nil {
		return nil, err.Error()
	}
	return outcome.Subtasks, ""
}

// swebenchVerdicts is a note on the SWE-bench trials, which record the hardened and the
// official verdict beside the scored one: how many each resolves, and which trials they differ
// on; "" when no trial records both.
func swebenchVerdicts(trials []passk.Trial) string {
	var graded, scoresOfficial, hardened, official int
	var differ []string
	for _, t := range trials {
		r := t.Rewards
		if _, ok := r[swebench.RewardHardenedResolved]; !ok {
			continue
		}
		graded++
		hardened += int(r[swebench.RewardHardenedResolved])
		official += int(r[swebench.RewardOfficialResolved])
		scoresOfficial += int(r[swebench.RewardScoresOfficial])
		if r[swebench.RewardVerdictsDiffer] == 1 {
			differ = append(differ, t.Source)
		}
	}
	if graded == 0 {
		return ""
	}
	scored := "the " + swebench.ScoreHardened + " verdict"
	switch scoresOfficial {
	case 0:
	case graded:
		scored = "the " + swebench.ScoreOfficial + " verdict"
	default:
		scored = fmt.Sprintf("the %s verdict in %d and the %s in %d", swebench.ScoreOfficial, scoresOfficial, swebench.ScoreHardened, graded-scoresOfficial)
	}
	note := fmt.Sprintf("swebench: %d trials scored by %s; the hardened verdict resolves %d, the official %d", graded, scored, hardened, official)
	if len(differ) == 0 {
		return note + "; they agree on every trial"
	}
	return note + fmt.Sprintf("; they differ on %d (%s): eval.json's verdict_difference says how and why, `sweep swebench report` lists them", len(differ), strings.Join(differ, ", "))
}
