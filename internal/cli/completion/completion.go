// Package completion completes the names of SweepRuns, TaskTrials and tasks from the cluster for
// `sweep completion`'s scripts, reaching it with the same connection flags as the verb.
package completion

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
)

// Lister is the names of one kind of object in namespace ns.
type Lister func(ctx context.Context, cl client.Client, ns string) ([]string, error)

// SweepRuns lists the SweepRuns' names.
func SweepRuns(ctx context.Context, cl client.Client, ns string) ([]string, error) {
	list := &evalv1.SweepRunList{}
	if err := cl.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, r := range list.Items {
		names = append(names, r.Name)
	}
	return names, nil
}

// TaskTrials lists the TaskTrials' names.
func TaskTrials(ctx context.Context, cl client.Client, ns string) ([]string, error) {
	list := &evalv1.TaskTrialList{}
	if err := cl.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, t := range list.Items {
		names = append(names, t.Name)
	}
	return names, nil
}

// Tasks lists the tasks of the catalogue: the values of evalv1.LabelTask on its ConfigMaps, the
// names a SweepRun and `sweep eval` take.
func Tasks(ctx context.Context, cl client.Client, ns string) ([]string, error) {
	list := &corev1.ConfigMapList{}
	if err := cl.List(ctx, list, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list.Items))
	for _, cm := range list.Items {
		names = append(names, cm.Labels[evalv1.LabelTask])
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// Names completes every argument with list's names that start with what was typed, leaving out
// those already given. directive is what the shell does besides, for example
// cobra.ShellCompDirectiveDefault to offer files too when no name matches.
func Names(kube *clioptions.Cluster, list Lister, directive cobra.ShellCompDirective) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cl, ns, err := kube.Client()
		if err != nil {
			cobra.CompErrorln(err.Error())
			return nil, cobra.ShellCompDirectiveError
		}
		names, err := list(cmd.Context(), cl, ns)
		if err != nil {
			cobra.CompErrorln(err.Error())
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) && !slices.Contains(args, n) {
				out = append(out, n)
			}
		}
		return out, directive
	}
}

// Positional completes the i-th argument with fns[i], and none past the last.
func Positional(fns ...cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) >= len(fns) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fns[len(args)](cmd, args, toComplete)
	}
}

// Files lets the shell complete file names.
func Files(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}
