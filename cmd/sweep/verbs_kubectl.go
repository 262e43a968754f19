package main

import (
	"github.com/spf13/cobra"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
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
