package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

func newWatchCmd(kube *cluster) *cobra.Command {
	return &cobra.Command{
		Use:   "watch NAME",
		Short: "Follow a campaign: progress, live score, ETA and failures as they happen",
		Long: "watch follows SweepRun NAME until it finishes: trials done / running / failed, the live\n" +
			"score, an estimate of the time left, and each failed trial with its reason. On a terminal\n" +
			"the progress line is redrawn in place; elsewhere a line is printed when it changes. At the\n" +
			"end it prints the report of `sweep info NAME`. Ctrl-C stops watching, not the campaign.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, ns, err := kube.client()
			if err != nil {
				return err
			}
			return watchAndReport(cmd, cl, ns, args[0])
		},
	}
}

// watchAndReport follows a campaign and, once it finished, prints its report.
func watchAndReport(cmd *cobra.Command, cl client.Client, ns, name string) error {
	_, trials, finished, err := watchCampaign(cmd.Context(), cl, ns, name, cmd.OutOrStdout(), cmd.ErrOrStderr())
	if !finished {
		return err
	}
	var scored []scoring.Trial
	for i := range trials {
		if trials[i].Status.Phase.Finished() {
			scored = append(scored, campaign.ScoringTrial(&trials[i]))
		}
	}
	fmt.Fprintln(cmd.OutOrStdout())
	if werr := report.WriteText(cmd.OutOrStdout(), scoring.Score(scored), false); werr != nil {
		return werr
	}
	return err
}

func newRunCmd(kube *cluster) *cobra.Command {
	var file string
	var watch bool
	cmd := &cobra.Command{
		Use:   "run -f FILE [--watch]",
		Short: "Start a campaign from a SweepRun manifest and optionally follow it",
		Long: "run applies the SweepRun in FILE (YAML or JSON; - reads stdin) in the namespace of -n unless\n" +
			"the manifest names one, as kubectl apply --server-side does: the API server fills in the\n" +
			"defaults, running it again with the same file changes nothing, and a change to a field that\n" +
			"defines the campaign is refused with the field's name. With --watch it then follows the\n" +
			"campaign as `sweep watch` does; Ctrl-C stops watching, not the campaign.",
		Example: "  sweep run -f campaign.yaml --watch -n evals",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if file == "" {
				return fmt.Errorf("flag -f/--filename is required: give a SweepRun manifest, for example -f campaign.yaml")
			}
			obj, err := readSweepRunManifest(cmd.InOrStdin(), file)
			if err != nil {
				return err
			}
			cl, ns, err := kube.client()
			if err != nil {
				return err
			}
			if obj.GetNamespace() == "" {
				obj.SetNamespace(ns)
			}
			outcome, err := applySweepRun(cmd.Context(), cl, obj)
			if err != nil {
				return fmt.Errorf("applying sweeprun %s in namespace %s from %s: %w", obj.GetName(), obj.GetNamespace(), file, createHint(err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sweeprun.eval.sweep.dev/%s %s in namespace %s\n", obj.GetName(), outcome, obj.GetNamespace())
			if !watch {
				return nil
			}
			return watchAndReport(cmd, cl, obj.GetNamespace(), obj.GetName())
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", "", "the SweepRun manifest (YAML or JSON; - for stdin)")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "follow the campaign until it finishes")
	return cmd
}

// readSweepRunManifest reads one SweepRun as an unstructured object, so that fields the file
// leaves out stay unset and get the CRD's defaults.
func readSweepRunManifest(stdin io.Reader, file string) (*unstructured.Unstructured, error) {
	data, err := readFileOrStdin(stdin, file)
	if err != nil {
		return nil, fmt.Errorf("reading the manifest: %w", err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		return nil, fmt.Errorf("%s: not YAML or JSON: %w", file, err)
	}
	gvk := obj.GroupVersionKind()
	want := evalv1.GroupVersion.WithKind("SweepRun")
	if gvk != want {
		return nil, fmt.Errorf("%s: apiVersion %q kind %q: want apiVersion %q kind %q (one SweepRun per file)",
			file, obj.GetAPIVersion(), obj.GetKind(), want.GroupVersion().String(), want.Kind)
	}
	if obj.GetName() == "" && obj.GetGenerateName() == "" {
		return nil, fmt.Errorf("%s: metadata.name is empty: name the campaign (or set metadata.generateName)", file)
	}
	return obj, nil
}

// fieldManager owns the fields sweep applies.
const fieldManager = "sweep"

// applySweepRun applies obj server-side and says whether it was created, changed or already
// so. A manifest with only generateName is created: apply needs a name.
func applySweepRun(ctx context.Context, cl client.Client, obj *unstructured.Unstructured) (string, error) {
	if obj.GetName() == "" {
		return "created", cl.Create(ctx, obj, client.FieldOwner(fieldManager))
	}
	before := &unstructured.Unstructured{}
	before.SetGroupVersionKind(obj.GroupVersionKind())
	err := cl.Get(ctx, client.ObjectKeyFromObject(obj), before)
	if err != nil && !apierrors.IsNotFound(err) {
		return "", err
	}
	existed := err == nil
	if err := cl.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(fieldManager), client.ForceOwnership); err != nil {
		return "", err
	}
	switch {
	case !existed:
		return "created", nil
	case before.GetResourceVersion() == obj.GetResourceVersion():
		return "unchanged", nil
	}
	return "configured", nil
}
