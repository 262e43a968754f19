package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/completion"
	"github.com/swe-sweep/sweep-operator/internal/cli/get"
	"github.com/swe-sweep/sweep-operator/internal/cli/version"
)

func newVersionCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &version.Options{Cluster: kube}
	cmd := &cobra.Command{
		Use:   "version [--client]",
		Short: "Print the client's version and the operator's image",
		Long: "version prints how this binary was built (the release it was built as, else the module\n" +
			"version Go recorded; the commit, its time and whether the tree was modified; the Go version)\n" +
			"and, for each operator in the cluster, the image of the Pod that holds its leader lease (in\n" +
			"whatever namespace it was installed) with the digest the node pulled. When no operator can be\n" +
			"read it prints the client's version and exits non-zero saying why; --client does not reach the\n" +
			"cluster.",
		Example: "  sweep version\n  sweep version --client -o json",
		Args:    cobra.NoArgs,
		RunE:    runOptions(o),
	}
	cmd.Flags().BoolVar(&o.ClientOnly, "client", false, "print the client's version only, without reaching the cluster")
	addOutputFlag(cmd, &o.Format)
	return cmd
}

func newGetCmd(kube *clioptions.Cluster) *cobra.Command {
	o := &get.Options{Cluster: kube, Print: clioptions.NewTablePrintFlags()}
	cmd := &cobra.Command{
		Use:   "get sweepruns|tasktrials [NAME...] [--run NAME] [-o FORMAT]",
		Short: "List SweepRuns or TaskTrials as kubectl get does, in kubectl's output formats",
		Long: "get lists the SweepRuns or TaskTrials of the namespace of -n (named by any name kubectl takes:\n" +
			"sweepruns, sweeprun, sr; tasktrials, tasktrial, trial, tt), or only those NAMEs, in the table\n" +
			"kubectl get prints from the CRDs' columns; -o wide adds the rest of the columns, and -o takes\n" +
			"kubectl's other formats (json, yaml, name, jsonpath=..., go-template=..., custom-columns=...).\n" +
			"--run keeps the TaskTrials of one SweepRun.",
		Example: "  sweep get sr -o wide\n  sweep get tt --run nightly -o custom-columns=TRIAL:.metadata.name,REASON:.status.reason\n" +
			"  sweep get sr nightly -o jsonpath='{.status.score}'",
		Args: cobra.MinimumNArgs(1),
		RunE: runOptions(o),
	}
	cmd.Flags().StringVar(&o.SweepRun, "run", "", "keep the TaskTrials of this SweepRun")
	o.Print.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("run", completion.Names(kube, completion.SweepRuns, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// getCompletion completes the kind of `sweep get`, then the names of that kind.
func getCompletion(kube *clioptions.Cluster) cobra.CompletionFunc {
	names := map[string]cobra.CompletionFunc{
		"SweepRun":  completion.Names(kube, completion.SweepRuns, cobra.ShellCompDirectiveNoFileComp),
		"TaskTrial": completion.Names(kube, completion.TaskTrials, cobra.ShellCompDirectiveNoFileComp),
	}
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			resources, err := get.Resources(kube)
			if err != nil {
				cobra.CompErrorln(err.Error())
				return nil, cobra.ShellCompDirectiveError
			}
			var kinds []cobra.Completion
			for _, r := range resources {
				if strings.HasPrefix(r.Name, toComplete) {
					kinds = append(kinds, r.Name)
				}
			}
			return kinds, cobra.ShellCompDirectiveNoFileComp
		}
		res, err := get.Resolve(kube, args[0])
		if err != nil {
			cobra.CompErrorln(err.Error())
			return nil, cobra.ShellCompDirectiveError
		}
		fn, ok := names[res.Kind]
		if !ok {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(cmd, args[1:], toComplete)
	}
}

// argCompletions is how each verb's arguments complete in the shell: names read from the
// cluster with the verb's connection flags; a directory or a file where the verb takes one.
func argCompletions(kube *clioptions.Cluster) map[string]cobra.CompletionFunc {
	sweepRunsOrDirs := completion.Names(kube, completion.SweepRuns, cobra.ShellCompDirectiveDefault)
	sweepRun := completion.Positional(completion.Names(kube, completion.SweepRuns, cobra.ShellCompDirectiveNoFileComp))
	return map[string]cobra.CompletionFunc{
		"info":            sweepRunsOrDirs,
		"compare":         completion.Positional(sweepRunsOrDirs, sweepRunsOrDirs),
		"export":          sweepRun,
		"watch":           sweepRun,
		"retry":           sweepRun,
		"resume":          sweepRun,
		"regrade":         sweepRun,
		"swebench report": sweepRun,
		"eval":            completion.Positional(completion.Names(kube, completion.Tasks, cobra.ShellCompDirectiveNoFileComp), completion.Files),
		"tasks check":     completion.Names(kube, completion.Tasks, cobra.ShellCompDirectiveNoFileComp),
		"get":             getCompletion(kube),
		"logs":            completion.Positional(completion.Names(kube, completion.TaskTrials, cobra.ShellCompDirectiveNoFileComp)),
	}
}

// addCompletions gives the verbs of root their argCompletions.
func addCompletions(root *cobra.Command, kube *clioptions.Cluster) {
	for verb, fn := range argCompletions(kube) {
		cmd, _, err := root.Find(strings.Fields(verb))
		if err != nil || cmd.CommandPath() != root.Name()+" "+verb {
			panic(fmt.Sprintf("completion for sweep %s: no such verb", verb))
		}
		cmd.ValidArgsFunction = fn
	}
}

// pluginBinary is the name kubectl finds the CLI by on PATH, for `kubectl sweep ...`.
const pluginBinary = "kubectl-sweep"

// setDisplayName makes usage, help and errors say `kubectl sweep` when the binary was run as
// kubectl's plugin (kubectl runs kubectl-sweep, so argv0 names it), and `sweep` otherwise.
func setDisplayName(root *cobra.Command, argv0 string) {
	if strings.TrimSuffix(filepath.Base(argv0), ".exe") != pluginBinary {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = "kubectl sweep"
}
