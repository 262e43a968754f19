package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

func newTasksCmd(kube *cluster) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Work with Harbor task directories and the in-cluster task catalogue",
	}
	cmd.AddCommand(newTasksValidateCmd(), newTasksBundleCmd(), newTasksImagesCmd(), newTasksCheckCmd(kube))
	return cmd
}

func newTasksBundleCmd() *cobra.Command {
	var registry, out string
	cmd := &cobra.Command{
		Use:   "bundle DIR... --registry REG -o OUT",
		Short: "Write the task catalogue as a kustomization (kubectl apply -k OUT)",
		Long: "bundle writes OUT/kustomization.yaml with one ConfigMap per task, labelled\n" +
			"eval.sweep.dev/task=<name> and holding task.toml and instruction.md, annotated with the\n" +
			"task's agent and verifier images, its bug count, its grader (swesweep when\n" +
			"tests/bundle.json exists) and its solution ConfigMap (the files of solution/, mounted only\n" +
			"into oracle trials). Hidden tests stay in the verifier image. Images are docker_image when\n" +
			"task.toml sets it, else REG/<name>-env:<hash of environment/> and\n" +
			"REG/<name>-verifier:<hash of environment/ and tests/>; build them with `sweep tasks images`.",
		Example: "  sweep tasks bundle tasks/ --registry ghcr.io/you/tasks -o catalogue/\n  kubectl apply -k catalogue/ -n evals",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("flag -o/--output-dir is required: name the folder to write the kustomization to, for example -o catalogue/")
			}
			entries, err := planCatalogue(args, registry)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return err
			}
			if err := catalogue.WriteKustomization(out, entries); err != nil {
				return err
			}
			solutions := 0
			for _, e := range entries {
				if e.SolutionConfigMap != "" {
					solutions++
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d tasks and %d solutions to %s\nbuild the images with `sweep tasks images %s`, then apply with `kubectl apply -k %s -n NAMESPACE`\n",
				len(entries), solutions, filepath.Join(out, catalogue.KustomizationFile), strings.Join(args, " ")+registryFlag(registry), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&registry, "registry", "", "registry prefix of the images built from task directories, for example ghcr.io/you/tasks")
	cmd.Flags().StringVarP(&out, "output-dir", "o", "", "folder to write kustomization.yaml and the task files to")
	return cmd
}

func registryFlag(registry string) string {
	if registry == "" {
		return ""
	}
	return " --registry " + registry
}

func newTasksImagesCmd() *cobra.Command {
	var registry, format string
	cmd := &cobra.Command{
		Use:   "images DIR... [--registry REG]",
		Short: "List the images a catalogue needs and the commands that build and push them",
		Long: "images lists each task's agent and verifier image, as `sweep tasks bundle` references them,\n" +
			"with the command that builds and pushes it (none for a prebuilt docker_image). A verifier\n" +
			"image is built from tests/ when tests/Dockerfile exists, else it is the agent image with\n" +
			"tests/ at /tests (shared-mode tasks).",
		Example: "  sweep tasks images tasks/ --registry ghcr.io/you/tasks\n  sweep tasks images tasks/ --registry ghcr.io/you/tasks -o json | jq -r '.[].command | select(. != \"\")' | sh",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(format); err != nil {
				return err
			}
			entries, err := planCatalogue(args, registry)
			if err != nil {
				return err
			}
			type row struct {
				catalogue.Image
				Command string `json:"command"`
			}
			var rows []row
			for _, e := range entries {
				for _, img := range e.Images {
					rows = append(rows, row{Image: img, Command: img.Command()})
				}
			}
			if format != outputTable {
				return writeStructured(cmd.OutOrStdout(), format, rows)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tROLE\tIMAGE\tBUILD")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Task, r.Role, r.Ref, orDash(r.Command))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&registry, "registry", "", "registry prefix of the images built from task directories")
	addOutputFlag(cmd, &format)
	return cmd
}

func planCatalogue(args []string, registry string) ([]catalogue.Entry, error) {
	dirs, err := taskdef.LoadDirs(args)
	if err != nil {
		return nil, err
	}
	return catalogue.Plan(dirs, registry)
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
