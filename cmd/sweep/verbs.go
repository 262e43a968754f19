package main

import (
	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/compare"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
	"github.com/swe-sweep/sweep-operator/internal/cli/export"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/cli/infra"
	"github.com/swe-sweep/sweep-operator/internal/cli/regrade"
	"github.com/swe-sweep/sweep-operator/internal/cli/resume"
	"github.com/swe-sweep/sweep-operator/internal/cli/retry"
	"github.com/swe-sweep/sweep-operator/internal/cli/run"
	"github.com/swe-sweep/sweep-operator/internal/cli/watch"
)

func newInfoCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &info.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "info NAME|DIR|STORE_URL...",
		Short: "Print SWE-sweep's report of campaigns in the cluster, Harbor job directories or stored job folders",
		Long: "info scores the finished trials of each SweepRun NAME (in the namespace of -n), of each\n" +
			"job folder in the artifact store STORE_URL (file://, s3://, gs://, azblob://: the folder's own\n" +
			"URL, STORE/NAMESPACE/SWEEPRUN-UID, or STORE/NAMESPACE/SWEEPRUN; read with your credentials), or of\n" +
			"each job directory DIR in Harbor's layout (every trial folder holding verifier/reward.json\n" +
			"counts; a trial folder whose result.json has no reward is an evaluation failure), all\n" +
			"together, with SWE-sweep's scoring: trials whose grader failed are dropped; per task,\n" +
			"n_resolved is averaged over its trials with a regressed trial counted as 0; the score is\n" +
			"the sum over tasks divided by the graded bugs. --pass-at adds pass@k over the attempts (per\n" +
			"bug from each trial's eval.json, else per task) and the spread of the per-attempt score, an\n" +
			"extension beyond SWE-sweep's report in a section and a JSON key (pass_at_k) of its own.",
		Example: "  sweep info my-run --per-task\n  sweep info jobs/2026-01-02__10-00-00 --json\n  sweep info my-run --pass-at 1,5 --per-task\n" +
			"  sweep info s3://records/campaigns/evals/my-run?region=eu-west-1",
		Args: cobra.MinimumNArgs(1),
		RunE: runOptions(o),
	}
	cmd.Flags().BoolVar(&o.PerTask, "per-task", false, "add one line per task: trials, bugs, resolved, counted, reward, regressed")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print SWE-sweep's JSON report (the same as -o json)")
	cmd.Flags().IntSliceVar(&o.PassAt, "pass-at", nil, "add pass@k for these k over the attempts (comma-separated), per bug from eval.json, and the per-attempt score's spread: beyond SWE-sweep's report, in its own section and JSON key pass_at_k")
	addOutputFlag(cmd, &o.Format)
	return cmd
}

func newCompareCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &compare.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two campaigns or Harbor job directories task by task",
		Long: "compare scores A and B (each a SweepRun NAME in the namespace of -n, or a job directory DIR in\n" +
			"Harbor's layout, as `sweep info` takes them) with SWE-sweep's scoring and prints both summaries\n" +
			"side by side with their difference (B - A), then per task graded on both sides the bugs\n" +
			"resolved in regression-free trials (the mean over attempts) and the task's score on each side\n" +
			"and their difference, and the tasks graded on one side only.",
		Example: "  sweep compare nightly-1 nightly-2\n  sweep compare jobs/baseline nightly -o json",
		Args:    cobra.ExactArgs(2),
		RunE:    runOptions(o),
	}
	addOutputFlag(cmd, &o.Format)
	return cmd
}

func newExportCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &export.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "export NAME|STORE_URL -o DIR",
		Short: "Write a campaign's results in Harbor's job layout, or copy its job folder from the store",
		Long: "export writes the finished trials of SweepRun NAME into DIR, the job folder: DIR/config.json\n" +
			"and one folder per trial with config.json, result.json, verifier/reward.json,\n" +
			"verifier/eval.json and artifacts/ with the agent's patch, so that tools built for Harbor and\n" +
			"SWE-sweep read it (sweep info DIR does). A trial that was not measured has no reward.json;\n" +
			"its result.json says why in exception_info. Running again overwrites the same files.\n" +
			"Given a store URL (as sweep info takes one), export copies the campaign's job folder from the\n" +
			"artifact store into DIR as the manager recorded it, with no cluster: its objects may be gone.",
		Example: "  sweep export my-run -o jobs/my-run && sweep info jobs/my-run --per-task\n" +
			"  sweep export file:///mnt/sweep-store/evals/my-run -o jobs/my-run",
		Args: cobra.ExactArgs(1),
		RunE: runOptions(o),
	}
	cmd.Flags().StringVarP(&o.Dir, "output-dir", "o", "", "the job folder to write (created if missing)")
	return cmd
}

func newRetryCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &retry.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "retry NAME [--reason R,...] [--watch]",
		Short: "Rerun the failed trials of a finished campaign in place",
		Long: "retry asks the operator to rerun the trials of the finished SweepRun NAME that ended Error or\n" +
			"Failed with one of the reasons, each as a new trial of the same task and attempt. The earlier\n" +
			"trials are kept, labelled eval.sweep.dev/superseded-by, and no longer scored: the score\n" +
			"counts each attempt's final run. Without --reason it reruns the failures that can happen by\n" +
			"chance (infrastructure, and verifier failures that are not deterministic); a reason such as\n" +
			"RewardOutOfBounds or InvalidTask is rerun only when named. A measured trial is never rerun.\n" +
			"The request is the SweepRun's eval.sweep.dev/retry annotation with a fresh value, so applying\n" +
			"the campaign's manifest again does not undo or repeat it. retry prints the trials that will\n" +
			"rerun; --watch then follows the campaign until they end, as `sweep watch` does.",
		Example: "  sweep retry nightly --watch\n  sweep retry nightly --reason GraderFailed,VerifierTimeout",
		Args:    cobra.ExactArgs(1),
		RunE:    runOptions(o),
	}
	cmd.Flags().StringSliceVar(&o.Reasons, "reason", nil, "rerun only the trials that ended with these reasons (comma-separated)")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "follow the campaign until the reruns end")
	return cmd
}

func newResumeCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &resume.Options{Cluster: kube}
	return &cobra.Command{
		Use:   "resume NAME",
		Short: "Start trials again in a campaign its guard suspended",
		Long: "resume releases the SweepRun NAME that spec.guard suspended because its last trials all\n" +
			"failed on infrastructure (status.guard says which reason): fix the cause first. New trials\n" +
			"start again, and the guard counts only the failures that follow. The request is the\n" +
			"SweepRun's eval.sweep.dev/resume annotation with a fresh value, so applying the campaign's\n" +
			"manifest again does not undo or repeat it. A campaign suspended by spec.suspend resumes\n" +
			"when that field is false.",
		Example: "  sweep resume nightly -n evals && sweep watch nightly -n evals",
		Args:    cobra.ExactArgs(1),
		RunE:    runOptions(o),
	}
}

func newRegradeCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &regrade.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "regrade NAME [--watch]",
		Short: "Grade a finished campaign's stored patches again with the current verifier images",
		Long: "regrade asks the operator to grade again the artifacts (the patch) that the agents of the\n" +
			"finished SweepRun NAME stored, with the task catalogue's current verifier images and graders,\n" +
			"without running the agents. Each attempt's final trial with stored artifacts gets a new trial\n" +
			"of the same task and attempt (spec.regradeOf names the trial it grades) whose verifier mounts\n" +
			"that trial's artifacts; the earlier trials are kept, labelled eval.sweep.dev/superseded-by and\n" +
			"eval.sweep.dev/regraded-by, and no longer scored: the score counts the regrades. Trials whose\n" +
			"agent did not finish have nothing to regrade and stay as they are; regrade says how many.\n" +
			"The request is the SweepRun's eval.sweep.dev/regrade annotation with a fresh value, so applying\n" +
			"the campaign's manifest again does not undo or repeat it. --watch follows the campaign until\n" +
			"the regrades end, as `sweep watch` does.",
		Example: "  sweep regrade nightly --watch\n" +
			"  sweep export nightly -o jobs/nightly-before && sweep regrade nightly --watch && sweep compare jobs/nightly-before nightly",
		Args: cobra.ExactArgs(1),
		RunE: runOptions(o),
	}
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "follow the campaign until the regrades end")
	return cmd
}

func newEvalCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &eval.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "eval TASK PATCH",
		Short: "Grade one patch on one task in the cluster and print the per-bug result and the score",
		Long: "eval puts PATCH (a file, or - for stdin) in a Secret and starts a one-task SweepRun with the\n" +
			"patch agent, which applies it with git apply in the task's workdir; the verifier then grades\n" +
			"it. eval waits for the result and prints each bug's outcome and the score. With --no-wait it\n" +
			"prints the SweepRun's name and returns: follow it with `sweep watch NAME`. Ctrl-C stops\n" +
			"waiting, not the evaluation. The Secret belongs to the SweepRun and goes with it.",
		Example: "  sweep eval swe-sweep__arrow fix.patch\n  git diff baseline | sweep eval swe-sweep__arrow - --bugs b1,b7 --attempts 3 -o json",
		Args:    cobra.ExactArgs(2),
		RunE:    runOptions(o),
	}
	cmd.Flags().StringSliceVar(&o.Bugs, "bugs", nil, "grade only these bug ids (comma-separated)")
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 0, "verifier timeout for this evaluation, for example 2h (default: the task's own)")
	cmd.Flags().Int32Var(&o.Attempts, "attempts", 1, "how many times to grade the patch (1 to 100)")
	cmd.Flags().BoolVar(&o.NoWait, "no-wait", false, "print the SweepRun's name and return without waiting")
	addOutputFlag(cmd, &o.Format)
	return cmd
}

func newWatchCmd(kube *clioptions.Cluster) *cobra.Command {
	return &cobra.Command{
		Use:   "watch NAME",
		Short: "Follow a campaign: progress, live score, ETA and failures as they happen",
		Long: "watch follows SweepRun NAME until it finishes: trials done / running / failed, the live\n" +
			"score, an estimate of the time left, and each failed trial with its reason. On a terminal\n" +
			"the progress line is redrawn in place; elsewhere a line is printed when it changes. At the\n" +
			"end it prints the report of `sweep info NAME`. Ctrl-C stops watching, not the campaign.",
		Args: cobra.ExactArgs(1),
		RunE: runOptions(&watch.Options{Cluster: kube}),
	}
}

func newRunCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &run.Options{Cluster: kube, Print: clioptions.NewObjectPrintFlags("created")}
	cmd := &cobra.Command{
		Use:   "run -f FILE [--watch | -o FORMAT]",
		Short: "Start a campaign from a SweepRun manifest and optionally follow it",
		Long: "run applies the SweepRun in FILE (YAML or JSON; - reads stdin) in the namespace of -n unless\n" +
			"the manifest names one, as kubectl apply --server-side does: the API server fills in the\n" +
			"defaults, running it again with the same file changes nothing, and a change to a field that\n" +
			"defines the campaign is refused with the field's name. With --watch it then follows the\n" +
			"campaign as `sweep watch` does; Ctrl-C stops watching, not the campaign. -o prints the applied\n" +
			"SweepRun in kubectl's formats (json, yaml, name, jsonpath=..., go-template=...,\n" +
			"custom-columns=...) instead of the line saying what was done.",
		Example: "  sweep run -f campaign.yaml --watch -n evals\n  sweep watch \"$(sweep run -f campaign.yaml -o jsonpath='{.metadata.name}')\"",
		Args:    cobra.NoArgs,
		RunE:    runOptions(o),
	}
	cmd.Flags().StringVarP(&o.File, "filename", "f", "", "the SweepRun manifest (YAML or JSON; - for stdin)")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "follow the campaign until it finishes")
	cmd.Flags().BoolVar(&o.ForceConflicts, "force-conflicts", false, "take fields another field manager (a GitOps tool) owns, as kubectl apply --server-side --force-conflicts does")
	o.Print.AddFlags(cmd)
	return cmd
}

func newInfraCmd(kube *clioptions.Cluster) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "infra",
		Short: "Check the cluster a campaign runs on",
	}
	cmd.AddCommand(newDoctorCmd(kube))
	return cmd
}

func newDoctorCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &infra.DoctorOptions{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that the cluster can run campaigns, and say how to fix what is missing",
		Long: "doctor checks, for the namespace of -n: the API server answers and is Kubernetes 1.29+\n" +
			"(trial Pods use native sidecars); the SweepRun and TaskTrial CRDs are installed at\n" +
			"v1alpha1; the operator holds its leader lease; you may create SweepRuns and Secrets and\n" +
			"read TaskTrials; every task of the catalogue fits on some node (SWE-sweep tasks ask for 16\n" +
			"CPUs and 64 GiB); the network plugin enforces NetworkPolicy; the catalogue's images are on\n" +
			"the nodes. Each check prints ok, warn or fail with a one-line fix. It exits non-zero when a\n" +
			"check fails.",
		Args: cobra.NoArgs,
		RunE: runOptions(o),
	}
	addOutputFlag(cmd, &o.Format)
	return cmd
}
