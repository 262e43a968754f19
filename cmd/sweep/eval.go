package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/grading/swesweep"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

func newEvalCmd(kube *cluster) *cobra.Command {
	var (
		bugs     []string
		timeout  time.Duration
		attempts int32
		noWait   bool
		format   string
	)
	cmd := &cobra.Command{
		Use:   "eval TASK PATCH",
		Short: "Grade one patch on one task in the cluster and print the per-bug result and the score",
		Long: "eval puts PATCH (a file, or - for stdin) in a Secret and starts a one-task SweepRun with the\n" +
			"patch agent, which applies it with git apply in the task's workdir; the verifier then grades\n" +
			"it. eval waits for the result and prints each bug's outcome and the score. With --no-wait it\n" +
			"prints the SweepRun's name and returns: follow it with `sweep watch NAME`. Ctrl-C stops\n" +
			"waiting, not the evaluation. The Secret belongs to the SweepRun and goes with it.",
		Example: "  sweep eval swe-sweep__arrow fix.patch\n  git diff baseline | sweep eval swe-sweep__arrow - --bugs b1,b7 --attempts 3 -o json",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(format); err != nil {
				return err
			}
			if attempts < 1 || attempts > 100 {
				return fmt.Errorf("flag --attempts: want 1 to 100, got %d", attempts)
			}
			task, patchFile := args[0], args[1]
			patch, err := readPatch(cmd.InOrStdin(), patchFile)
			if err != nil {
				return err
			}
			cl, ns, err := kube.client()
			if err != nil {
				return err
			}
			cm, err := findTask(cmd.Context(), cl, ns, task)
			if err != nil {
				return err
			}
			spec := evalv1.SweepRunSpec{
				Tasks:       evalv1.TaskSelection{Names: []string{task}},
				Attempts:    attempts,
				Parallelism: attempts,
			}
			if len(bugs) > 0 {
				spec.Tasks.Bugs = map[string][]string{task: bugs}
			}
			if timeout > 0 {
				multiplier, err := verifierMultiplier(cm, timeout)
				if err != nil {
					return err
				}
				spec.Timeouts = &evalv1.TimeoutPolicy{VerifierMultiplier: multiplier}
			}
			run, err := startPatchEval(cmd.Context(), cl, ns, task, patch, spec)
			if err != nil {
				return err
			}
			if noWait {
				fmt.Fprintln(cmd.OutOrStdout(), run.Name)
				return nil
			}
			return waitAndPrintEval(cmd, cl, ns, run.Name, task, format)
		},
	}
	cmd.Flags().StringSliceVar(&bugs, "bugs", nil, "grade only these bug ids (comma-separated)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "verifier timeout for this evaluation, for example 2h (default: the task's own)")
	cmd.Flags().Int32Var(&attempts, "attempts", 1, "how many times to grade the patch (1 to 100)")
	cmd.Flags().BoolVar(&noWait, "no-wait", false, "print the SweepRun's name and return without waiting")
	addOutputFlag(cmd, &format)
	return cmd
}

// readFileOrStdin reads file, or stdin when file is "-".
func readFileOrStdin(stdin io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(file)
}

func readPatch(stdin io.Reader, file string) ([]byte, error) {
	data, err := readFileOrStdin(stdin, file)
	if err != nil {
		return nil, fmt.Errorf("reading the patch: %w", err)
	}
	if len(data) > podbuild.MaxSecretPayload {
		return nil, fmt.Errorf("patch %s has %d bytes, more than the %d a Secret holds: leave build products and data files out of the diff", file, len(data), podbuild.MaxSecretPayload)
	}
	return data, nil
}

// findTask is the task's ConfigMap, chosen as a SweepRun chooses it.
func findTask(ctx context.Context, cl client.Client, ns, task string) (*corev1.ConfigMap, error) {
	list := &corev1.ConfigMapList{}
	if err := cl.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{evalv1.LabelTask: task}); err != nil {
		return nil, fmt.Errorf("listing task configmaps in namespace %s: %w", ns, err)
	}
	tasks, _ := campaign.SelectTasks(evalv1.TaskSelection{Names: []string{task}}, list.Items, nil)
	if len(tasks) == 0 {
		return nil, fmt.Errorf("task %q not found in namespace %q: no ConfigMap labelled %s=%s; bundle the catalogue with `sweep tasks bundle` and `kubectl apply -k` it, or pass -n",
			task, ns, evalv1.LabelTask, task)
	}
	return tasks[0].ConfigMap, nil
}

// verifierMultiplier turns a verifier timeout into the multiplier of the task's own timeout
// that TimeoutPolicy holds, rounded up to its three decimals.
func verifierMultiplier(cm *corev1.ConfigMap, timeout time.Duration) (string, error) {
	t, err := taskdef.Parse("configmap "+cm.Name+" task.toml", []byte(cm.Data[evalv1.TaskTOMLKey]))
	if err != nil {
		return "", err
	}
	m := math.Ceil(timeout.Seconds()/t.Verifier.TimeoutSec*1000) / 1000
	if m > 999.999 {
		return "", fmt.Errorf("flag --timeout %s is more than 999.999 times the task's verifier timeout of %gs: give a shorter one", timeout, t.Verifier.TimeoutSec)
	}
	return strconv.FormatFloat(m, 'f', -1, 64), nil
}

// startPatchEval creates the patch Secret, then the SweepRun reading it, then makes the
// SweepRun the Secret's owner so that deleting the run deletes the patch. The Secret comes
// first so that no trial ever waits for it.
func startPatchEval(ctx context.Context, cl client.Client, ns, task string, patch []byte, spec evalv1.SweepRunSpec) (*evalv1.SweepRun, error) {
	prefix := "eval-" + truncate(catalogue.ResourceName(task), 40) + "-"
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: prefix},
		Data:       map[string][]byte{task: patch},
	}
	if err := cl.Create(ctx, secret); err != nil {
		return nil, fmt.Errorf("creating the patch secret in namespace %s: %w", ns, createHint(err))
	}
	spec.Agent = evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: secret.Name}}
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: prefix}, Spec: spec}
	if err := createSweepRun(ctx, cl, run); err != nil {
		_ = cl.Delete(ctx, secret)
		return nil, fmt.Errorf("creating the sweeprun in namespace %s: %w", ns, createHint(err))
	}
	if err := controllerutil.SetOwnerReference(run, secret, cl.Scheme()); err != nil {
		return nil, err
	}
	if err := cl.Update(ctx, secret); err != nil {
		return nil, fmt.Errorf("making sweeprun %s the owner of secret %s: %w", run.Name, secret.Name, err)
	}
	return run, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return strings.TrimRight(s[:n], "-")
	}
	return s
}

// evalOutput is what eval prints with -o json|yaml.
type evalOutput struct {
	SweepRun string          `json:"sweepRun"`
	Task     string          `json:"task"`
	Trials   []trialOutput   `json:"trials"`
	Report   report.Document `json:"report"`
}

type trialOutput struct {
	Name        string            `json:"name"`
	Attempt     int32             `json:"attempt"`
	Phase       string            `json:"phase"`
	Reason      string            `json:"reason,omitempty"`
	Message     string            `json:"message,omitempty"`
	Rewards     map[string]string `json:"rewards,omitempty"`
	Bugs        []bugOutput       `json:"bugs,omitempty"`
	Regressions []string          `json:"regressions,omitempty"`
}

type bugOutput struct {
	ID       string `json:"id"`
	Resolved bool   `json:"resolved"`
	Partial  bool   `json:"partial"`
}

// waitAndPrintEval waits for the evaluation and prints it; it fails when no trial was measured.
func waitAndPrintEval(cmd *cobra.Command, cl client.Client, ns, name, task, format string) error {
	_, trials, err := followQuietly(cmd, cl, ns, name)
	if err != nil {
		if cmd.Context().Err() != nil {
			return fmt.Errorf("stopped waiting; the evaluation goes on: follow it with `sweep watch %s -n %s` and read it with `sweep info %s -n %s`", name, ns, name, ns)
		}
		return err
	}
	out := evalOutput{SweepRun: name, Task: task}
	var scored []scoring.Trial
	for i := range trials {
		tr := &trials[i]
		to, err := trialResult(cmd.Context(), cl, tr)
		if err != nil {
			return err
		}
		out.Trials = append(out.Trials, to)
		scored = append(scored, campaign.ScoringTrial(tr))
	}
	rep := scoring.Score(scored)
	out.Report = report.NewDocument(rep, false)
	if format != outputTable {
		err = writeStructured(cmd.OutOrStdout(), format, out)
	} else {
		err = writeEvalTable(cmd.OutOrStdout(), out, rep)
	}
	if err != nil {
		return err
	}
	if rep.GradedTasks == 0 {
		first := out.Trials[0]
		return fmt.Errorf("sweeprun %s measured nothing: trial %s ended %s (%s: %s); see `kubectl describe tasktrial %s -n %s`",
			name, first.Name, first.Phase, orDash(first.Reason), orDash(first.Message), first.Name, ns)
	}
	return nil
}

// trialResult reads a finished trial's per-bug outcome from the eval.json its verifier left.
func trialResult(ctx context.Context, cl client.Client, tr *evalv1.TaskTrial) (trialOutput, error) {
	out := trialOutput{Name: tr.Name, Attempt: tr.Spec.Attempt, Phase: string(tr.Status.Phase), Reason: tr.Status.Reason,
		Message: tr.Status.Message, Rewards: tr.Status.Rewards}
	results, err := optionalSecret(ctx, cl, tr.Namespace, podbuild.ResultsSecretName(tr.Name))
	if err != nil {
		return out, err
	}
	raw, ok := results[podcontract.RecordEval]
	if !ok {
		return out, nil
	}
	var ev swesweep.Eval
	if err := json.Unmarshal(raw, &ev); err != nil {
		return out, fmt.Errorf("secret %s/%s key %s: not eval.json (%v): the verifier wrote something else; regrade the trial",
			tr.Namespace, podbuild.ResultsSecretName(tr.Name), podcontract.RecordEval, err)
	}
	for _, b := range ev.Bugs {
		out.Bugs = append(out.Bugs, bugOutput{ID: b.ID, Resolved: b.Resolved, Partial: b.Partial})
	}
	out.Regressions = ev.Regressions
	return out, nil
}

func bugVerdict(b bugOutput) string {
	switch {
	case b.Resolved:
		return "resolved"
	case b.Partial:
		return "partial"
	}
	return "unresolved"
}

func writeEvalTable(w io.Writer, out evalOutput, rep scoring.Report) error {
	fmt.Fprintf(w, "sweeprun %s, task %s\n\n", out.SweepRun, out.Task)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ATTEMPT\tPHASE\tREWARD\tRESOLVED\tREGRESSIONS\tREASON")
	for _, t := range out.Trials {
		resolved := "-"
		if n, ok := t.Rewards[scoring.KeySubtasks]; ok {
			resolved = trimZeros(t.Rewards[scoring.KeyResolved]) + "/" + trimZeros(n)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", t.Attempt, t.Phase, orDash(t.Rewards[scoring.KeyReward]), resolved, len(t.Regressions), orDash(t.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var rows []string
	for _, t := range out.Trials {
		for _, b := range t.Bugs {
			rows = append(rows, fmt.Sprintf("%s\t%d\t%s", b.ID, t.Attempt, bugVerdict(b)))
		}
	}
	if len(rows) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BUG\tATTEMPT\tRESULT")
		for _, r := range rows {
			fmt.Fprintln(tw, r)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	return report.WriteText(w, rep, false)
}

// trimZeros prints a fixed-precision count ("3.0000") as the integer it is.
func trimZeros(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}
