package main

import (
	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/tasks"
)

func newTasksCmd(kube *clioptions.Cluster) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Work with Harbor task directories and the in-cluster task catalogue",
	}
	cmd.AddCommand(newTasksValidateCmd(), newTasksBundleCmd(), newTasksImagesCmd(), newTasksCheckCmd(kube))
	return cmd
}

func newTasksBundleCmd() *cobra.Command {
	o := &tasks.BundleOptions{}
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
		RunE:    runOptions(o),
	}
	cmd.Flags().StringVar(&o.Registry, "registry", "", "registry prefix of the images built from task directories, for example ghcr.io/you/tasks")
	cmd.Flags().StringVarP(&o.OutDir, "output-dir", "o", "", "folder to write kustomization.yaml and the task files to")
	return cmd
}

func newTasksImagesCmd() *cobra.Command {
	o := &tasks.ImagesOptions{}
	cmd := &cobra.Command{
		Use:   "images DIR... [--registry REG]",
		Short: "List the images a catalogue needs and the commands that build and push them",
		Long: "images lists each task's agent and verifier image, as `sweep tasks bundle` references them,\n" +
			"with the command that builds and pushes it (none for a prebuilt docker_image). A verifier\n" +
			"image is built from tests/ when tests/Dockerfile exists, else it is the agent image with\n" +
			"tests/ at /tests (shared-mode tasks).",
		Example: "  sweep tasks images tasks/ --registry ghcr.io/you/tasks\n  sweep tasks images tasks/ --registry ghcr.io/you/tasks -o json | jq -r '.[].command | select(. != \"\")' | sh",
		Args:    cobra.MinimumNArgs(1),
		RunE:    runOptions(o),
	}
	cmd.Flags().StringVar(&o.Registry, "registry", "", "registry prefix of the images built from task directories")
	addOutputFlag(cmd, &o.Format)
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
		RunE: runOptions(&tasks.ValidateOptions{}),
	}
}

func newTasksCheckCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &tasks.CheckOptions{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "check NAME...",
		Short: "Run the oracle and nop agents on tasks in the cluster and check every bug",
		Long: "check starts two SweepRuns over the named tasks, one with the oracle agent (the task's own\n" +
			"solution) and one with the nop agent (no change), waits for both, and reports per bug\n" +
			"whether the oracle resolves it and nop does not, as a sound task requires. A task graded by\n" +
			"reward alone is one line: the oracle must score 1 and nop less. It exits non-zero when a\n" +
			"bug fails the check. Ctrl-C stops waiting; the runs go on.",
		Example: "  sweep tasks check swe-sweep__arrow swe-sweep__agda -n evals",
		Args:    cobra.MinimumNArgs(1),
		RunE:    runOptions(o),
	}
	cmd.Flags().Int32Var(&o.Parallelism, "parallelism", 10, "most trials of each agent at once")
	addOutputFlag(cmd, &o.Format)
	return cmd
}
