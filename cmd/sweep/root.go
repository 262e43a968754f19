package main

import (
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "sweep",
		Short: "Run software-engineering agent benchmarks on Kubernetes",
		Long: "sweep runs SWE-sweep and SWE-bench style campaigns as SweepRun resources and reports their scores.\n\n" +
			"It talks to the cluster like kubectl (--kubeconfig, --context, -n), prints tables by default\n" +
			"and JSON or YAML with -o, and reads Harbor job directories as well as campaigns in the cluster.\n\n" +
			"Common flows:\n" +
			"  sweep infra doctor                               is the cluster ready?\n" +
			"  sweep tasks bundle tasks/ --registry REG -o cat/ write the task catalogue; kubectl apply -k cat/\n" +
			"  sweep eval TASK fix.patch                        grade one patch on one task\n" +
			"  sweep run -f campaign.yaml --watch               start a campaign and follow it\n" +
			"  sweep info NAME --per-task                       SWE-sweep's report of a campaign\n" +
			"  sweep export NAME -o jobs/NAME                   results in Harbor's job layout",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	kube := newCluster()
	kube.flags.AddFlags(root.PersistentFlags())
	root.AddCommand(newTasksCmd(kube), newInfoCmd(kube), newExportCmd(kube), newEvalCmd(kube), newRunCmd(kube), newWatchCmd(kube), newInfraCmd(kube))
	root.AddCommand(newSwebenchCmd(kube))
	return root
}
