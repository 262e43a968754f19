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
		Use:   "check NAME...|-l SELECTOR|--all|--from-runs ORACLE_RUN,NOP_RUN",
		Short: "Validate tasks in the cluster: run the oracle and nop agents N times and give each bug a verdict",
		Long: "check starts two SweepRuns over the tasks, one with the oracle agent (the task's own\n" +
			"solution) and one with the nop agent (no change), each with --repeat attempts, waits for\n" +
			"both, and reports per bug: oracle resolved k/N, nop resolved k/N, the visible tests that\n" +
			"regressed, the tests whose outcome differed between runs of the same tree, and a verdict:\n" +
			"flaky, broken (the oracle does not resolve it in every run), trivial (nop resolves it in\n" +
			"some run), unmeasured or valid, in that precedence. A task graded by reward alone (or a\n" +
			"SWE-bench instance) is one line. --from-runs reports on an oracle and a nop SweepRun\n" +
			"already applied. --exclusions NAME writes the bugs that are not valid to the exclusion\n" +
			"list in ConfigMap NAME. It exits non-zero when a bug is not valid, after writing the\n" +
			"list. Ctrl-C stops waiting; the runs go on.",
		Example: "  sweep tasks check swe-sweep__arrow swe-sweep__agda -n evals\n" +
			"  sweep tasks check --all --repeat 5 --exclusions validated -n evals\n" +
			"  sweep tasks check --from-runs oracle-x5,nop-x5 -o json",
		RunE: runOptions(o),
	}
	cmd.Flags().Int32Var(&o.Parallelism, "parallelism", 10, "most trials of each agent at once")
	cmd.Flags().Int32Var(&o.Repeat, "repeat", 1, "runs of each agent on each task (the SweepRuns' attempts), 1 to 100")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "check the tasks whose ConfigMaps match this label selector, as spec.tasks.selector")
	cmd.Flags().BoolVar(&o.All, "all", false, "check every task of the namespace's catalogue")
	cmd.Flags().StringVar(&o.FromRuns, "from-runs", "", "report on two SweepRuns already applied: ORACLE_RUN,NOP_RUN")
	cmd.Flags().StringVar(&o.Exclusions, "exclusions", "", "write the bugs that are not valid to the exclusion list in this ConfigMap (created, or merged into)")
	addOutputFlag(cmd, &o.Format)
	return cmd
}
