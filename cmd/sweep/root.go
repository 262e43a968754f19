package main

import (
	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "sweep",
		Short:         "Run software-engineering agent benchmarks on Kubernetes",
		Long:          "sweep runs SWE-sweep and SWE-bench style campaigns as SweepRun resources and reports their scores.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newTasksCmd())
	return root
}
