package main

import (
	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/logs"
)

func newLogsCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &logs.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "logs TRIAL [--stage agent|verifier] [-f] [--store URL]",
		Short: "Print a trial's agent log or its verifier's test output, from its Pod or its record",
		Long: "logs prints the output of a stage of TaskTrial TRIAL (in the namespace of -n): the agent's\n" +
			"(--stage agent, the default) or the verifier's tests' (--stage verifier). While the stage's\n" +
			"Pod is there it reads the Pod: the stage's own log as it comes (-f follows it until the stage\n" +
			"ends), then the log the collector reported. Once the Pods are gone it reads the trial's\n" +
			"record in the artifact store (status.record: agent/agent.log, verifier/test-stdout.txt),\n" +
			"opened with your own credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the\n" +
			"cloud's login); --store reaches it under another URL when the manager's does not work\n" +
			"from here. The log goes to stdout; where it came from, to stderr.",
		Example: "  sweep logs nightly-demo-1 -f\n  sweep logs nightly-demo-1 --stage verifier\n" +
			"  sweep logs nightly-demo-1 --store file:///mnt/sweep-store",
		Args: cobra.ExactArgs(1),
		RunE: runOptions(o),
	}
	cmd.Flags().StringVar(&o.Stage, "stage", "agent", "the stage whose log to print: agent or verifier")
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", false, "follow the log while the stage runs")
	cmd.Flags().StringVar(&o.Store, "store", "", "read the record from this store URL instead of the manager's (status.record.store)")
	_ = cmd.RegisterFlagCompletionFunc("stage", cobra.FixedCompletions(logs.Stages, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
