package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

func newInfoCmd(kube *cluster) *cobra.Command {
	var perTask, asJSON bool
	var format string
	cmd := &cobra.Command{
		Use:   "info NAME|DIR...",
		Short: "Print SWE-sweep's report of campaigns in the cluster or of Harbor job directories",
		Long: "info scores the finished trials of each SweepRun NAME (in the namespace of -n) or of each\n" +
			"job directory DIR in Harbor's layout (every trial folder holding verifier/reward.json\n" +
			"counts; a trial folder whose result.json has no reward is an evaluation failure), all\n" +
			"together, with SWE-sweep's scoring: trials whose grader failed are dropped; per task,\n" +
			"n_resolved is averaged over its trials with a regressed trial counted as 0; the score is\n" +
			"the sum over tasks divided by the graded bugs.",
		Example: "  sweep info my-run --per-task\n  sweep info jobs/2026-01-02__10-00-00 --json",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON {
				format = outputJSON
			}
			if err := checkOutput(format); err != nil {
				return err
			}
			trials, err := collectTrials(cmd, kube, args)
			if err != nil {
				return err
			}
			rep := scoring.Score(trials)
			if format != outputTable {
				return writeStructured(cmd.OutOrStdout(), format, report.NewDocument(rep, perTask))
			}
			return report.WriteText(cmd.OutOrStdout(), rep, perTask)
		},
	}
	cmd.Flags().BoolVar(&perTask, "per-task", false, "add one line per task: trials, bugs, resolved, counted, reward, regressed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print SWE-sweep's JSON report (the same as -o json)")
	addOutputFlag(cmd, &format)
	return cmd
}

// collectTrials reads the scoring input of each argument: a directory is a Harbor job,
// anything else a SweepRun name. Unfinished trials are left out, with a note on stderr.
func collectTrials(cmd *cobra.Command, kube *cluster, args []string) ([]scoring.Trial, error) {
	var trials []scoring.Trial
	for _, arg := range args {
		if st, err := os.Stat(arg); err == nil && st.IsDir() {
			read, err := harborjob.ReadTrials([]string{arg})
			if err != nil {
				return nil, err
			}
			trials = append(trials, read...)
			continue
		}
		cl, ns, err := kube.client()
		if err != nil {
			return nil, fmt.Errorf("%s is not a directory, so it names a sweeprun: %w", arg, err)
		}
		if _, err := getSweepRun(cmd.Context(), cl, ns, arg); err != nil {
			return nil, fmt.Errorf("%w (%s is not a directory either)", err, arg)
		}
		items, err := campaignTrials(cmd.Context(), cl, ns, arg)
		if err != nil {
			return nil, err
		}
		unfinished := 0
		for i := range items {
			if !items[i].Status.Phase.Finished() {
				unfinished++
				continue
			}
			trials = append(trials, campaign.ScoringTrial(&items[i]))
		}
		if unfinished > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "sweeprun %s: %d trials not finished yet are not in the report\n", arg, unfinished)
		}
	}
	return trials, nil
}
