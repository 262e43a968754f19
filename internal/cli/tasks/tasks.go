// Package tasks is `sweep tasks`: validate Harbor task directories, bundle them as the task
// catalogue, list the images it needs, and check its tasks in the cluster.
package tasks

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// BundleOptions of `sweep tasks bundle DIR... --registry REG -o OUT`.
type BundleOptions struct {
	Registry string
	// OutDir is the folder the kustomization is written to.
	OutDir string

	Dirs []string
	clioptions.IOStreams
}

func (o *BundleOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Dirs = streams, args
	return nil
}

func (o *BundleOptions) Validate() error {
	if o.OutDir == "" {
		return fmt.Errorf("flag -o/--output-dir is required: name the folder to write the kustomization to, for example -o catalogue/")
	}
	return nil
}

func (o *BundleOptions) Run(context.Context) error {
	entries, err := planCatalogue(o.Dirs, o.Registry)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return err
	}
	if err := catalogue.WriteKustomization(o.OutDir, entries); err != nil {
		return err
	}
	solutions := 0
	for _, e := range entries {
		if e.SolutionConfigMap != "" {
			solutions++
		}
	}
	fmt.Fprintf(o.Out, "wrote %d tasks and %d solutions to %s\nbuild the images with `sweep tasks images %s`, then apply with `kubectl apply -k %s -n NAMESPACE`\n",
		len(entries), solutions, filepath.Join(o.OutDir, catalogue.KustomizationFile), strings.Join(o.Dirs, " ")+registryFlag(o.Registry), o.OutDir)
	return nil
}

func registryFlag(registry string) string {
	if registry == "" {
		return ""
	}
	return " --registry " + registry
}

// ImagesOptions of `sweep tasks images DIR... [--registry REG]`.
type ImagesOptions struct {
	Registry string
	Format   string

	Dirs []string
	clioptions.IOStreams
}

func (o *ImagesOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Dirs = streams, args
	return nil
}

func (o *ImagesOptions) Validate() error {
	return clioptions.CheckOutput(o.Format)
}

// imageRow is one image and the command that builds and pushes it.
type imageRow struct {
	catalogue.Image
	Command string `json:"command"`
}

func (o *ImagesOptions) Run(context.Context) error {
	entries, err := planCatalogue(o.Dirs, o.Registry)
	if err != nil {
		return err
	}
	var rows []imageRow
	for _, e := range entries {
		for _, img := range e.Images {
			rows = append(rows, imageRow{Image: img, Command: img.Command()})
		}
	}
	return clioptions.Write(o.Out, o.Format, rows, func(w io.Writer) error { return writeImagesTable(w, rows) })
}

func writeImagesTable(w io.Writer, rows []imageRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tROLE\tIMAGE\tBUILD")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Task, r.Role, r.Ref, clioptions.OrDash(r.Command))
	}
	return tw.Flush()
}

func planCatalogue(args []string, registry string) ([]catalogue.Entry, error) {
	dirs, err := taskdef.LoadDirs(args)
	if err != nil {
		return nil, err
	}
	return catalogue.Plan(dirs, registry)
}

// ValidateOptions of `sweep tasks validate DIR...`.
type ValidateOptions struct {
	Dirs []string
	clioptions.IOStreams
}

func (o *ValidateOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Dirs = streams, args
	return nil
}

func (o *ValidateOptions) Validate() error { return nil }

func (o *ValidateOptions) Run(context.Context) error {
	dirs, err := taskdef.LoadDirs(o.Dirs)
	if err != nil {
		return err
	}
	printValidation(o.Out, dirs)
	return nil
}

func printValidation(w io.Writer, dirs []*taskdef.Dir) {
	bugs := 0
	for _, d := range dirs {
		t := d.Task
		bugs += t.Bugs
		line := fmt.Sprintf("ok  %-40s bugs=%-4d workdir=%s agent=%gs verifier=%gs mode=%s", t.Name, t.Bugs,
			clioptions.OrDash(t.Environment.Workdir), t.Agent.TimeoutSec, t.Verifier.TimeoutSec, t.Verifier.EnvironmentMode)
		if len(d.Warnings) > 0 {
			line += "  (" + strings.Join(d.Warnings, "; ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%d tasks, %d bugs\n", len(dirs), bugs)
}
