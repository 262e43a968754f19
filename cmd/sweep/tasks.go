package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

func newTasksCmd(kube *cluster) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Work with Harbor task directories and the in-cluster task catalogue",
	}
	cmd.AddCommand(newTasksValidateCmd())
	return cmd
}

func newTasksValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate DIR...",
		Short: "Check task directories (task.toml schema 1.4) and print one line per task and the totals",
		Long: "validate reads each DIR as a task directory, or as a folder of task directories, and checks\n" +
			"its task.toml. It prints one line per task and the totals, and exits non-zero at the first\n" +
			"invalid task with the file, the key and what is wrong.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := taskdef.LoadDirs(args)
			if err != nil {
				return err
			}
			printValidation(cmd.OutOrStdout(), dirs)
			return nil
		},
	}
}

func printValidation(w io.Writer, dirs []*taskdef.Dir) {
	bugs := 0
	for _, d := range dirs {
		t := d.Task
		bugs += t.Bugs
		line := fmt.Sprintf("ok  %-40s bugs=%-4d workdir=%s agent=%gs verifier=%gs mode=%s", t.Name, t.Bugs,
			orDash(t.Environment.Workdir), t.Agent.TimeoutSec, t.Verifier.TimeoutSec, t.Verifier.EnvironmentMode)
		if len(d.Warnings) > 0 {
			line += "  (" + strings.Join(d.Warnings, "; ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%d tasks, %d bugs\n", len(dirs), bugs)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
