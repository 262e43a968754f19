package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
)

var everydayFlags = map[string]bool{"kubeconfig": true, "context": true, "namespace": true, "cluster": true, "user": true, "server": true, "request-timeout": true}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "sweep",
		Short: "Run software-engineering agent benchmarks on Kubernetes",
		Long: "sweep runs SWE-sweep and SWE-bench style campaigns as SweepRun resources and reports their scores.\n\n" +
			"It talks to the cluster like kubectl (--kubeconfig, --context, -n; kubectl's other connection\n" +
			"flags such as --token, --as and --insecure-skip-tls-verify work too), prints tables by\n" +
			"default and JSON or YAML with -o (kubectl's formats for the objects of sweep get and sweep\n" +
			"run), and reads Harbor job directories as well as campaigns in the cluster. Installed as\n" +
			"kubectl-sweep it is kubectl's plugin: kubectl sweep.\n\n" +
			"Common flows:\n" +
			"  sweep infra doctor                                 is the cluster ready?\n" +
			"  sweep tasks bundle tasks/ --registry REG -o cat/   the task catalogue, for kubectl apply -k cat/\n" +
			"  sweep eval TASK fix.patch                          grade one patch on one task\n" +
			"  sweep run -f campaign.yaml --watch                 start a campaign and follow it\n" +
			"  sweep get sr -o wide                               the campaigns of the namespace\n" +
			"  sweep info NAME --per-task                         SWE-sweep's report of a campaign\n" +
			"  sweep retry NAME --watch                           rerun its infrastructure failures in place\n" +
			"  sweep regrade NAME --watch                         grade its stored patches again, no agents\n" +
			"  sweep resume NAME                                  start trials again after its guard stopped it\n" +
			"  sweep compare A B                                  two campaigns or job directories, task by task\n" +
			"  sweep logs TRIAL -f                                a trial's agent log, from its Pod or its record\n" +
			"  sweep export NAME -o jobs/NAME                     its results in Harbor's job layout",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	kube := clioptions.NewCluster()
	kube.Flags.AddFlags(root.PersistentFlags())
	// kubectl's connection flags all work; help shows the everyday ones so that the verbs'
	// own flags are not lost among two dozen others.
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !everydayFlags[f.Name] {
			f.Hidden = true
		}
	})
	root.AddCommand(newTasksCmd(kube), newInfoCmd(kube), newCompareCmd(kube), newExportCmd(kube), newEvalCmd(kube), newRunCmd(kube), newWatchCmd(kube), newInfraCmd(kube))
	root.AddCommand(newSwebenchCmd(kube), newGetCmd(kube), newVersionCmd(kube), newRetryCmd(kube), newResumeCmd(kube), newRegradeCmd(kube), newLogsCmd(kube))
	addCompletions(root, kube)
	return root
}

// runOptions is a verb's RunE: its flags are already in o.
func runOptions(o clioptions.Verb) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		return clioptions.Execute(cmd.Context(), o, clioptions.IOStreams{In: cmd.InOrStdin(), Out: cmd.OutOrStdout(), ErrOut: cmd.ErrOrStderr()}, args)
	}
}

// addOutputFlag adds -o table|json|yaml to a verb that prints a result.
func addOutputFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVarP(format, "output", "o", clioptions.OutputTable, "output format: table, json or yaml")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]cobra.Completion{clioptions.OutputTable, clioptions.OutputJSON, clioptions.OutputYAML}, cobra.ShellCompDirectiveNoFileComp))
}
