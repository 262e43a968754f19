package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

// MaxRepeat is the most runs per agent, as spec.attempts allows.
const MaxRepeat = 100

// CheckOptions of `sweep tasks check NAME...|-l SELECTOR|--all [--repeat N]` and `sweep tasks
// check --from-runs ORACLE_RUN,NOP_RUN`.
type CheckOptions struct {
	// Parallelism is the most trials of each agent at once.
	Parallelism int32
	// Repeat is how many times each agent runs each task (the SweepRuns' attempts).
	Repeat int32
	// Selector selects tasks by label, as spec.tasks.selector; All selects every task.
	Selector string
	All      bool
	// FromRuns is "ORACLE_RUN,NOP_RUN": report on two SweepRuns already applied.
	FromRuns string
	// Exclusions names the ConfigMap the non-valid bugs are written to.
	Exclusions string
	Format     string

	Cluster *clioptions.Cluster
	Tasks   []string
	clioptions.IOStreams

	selector *metav1.LabelSelector
	runs     [2]string
}

func (o *CheckOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Tasks = streams, args
	return nil
}

func (o *CheckOptions) Validate() error {
	if err := clioptions.CheckOutput(o.Format); err != nil {
		return err
	}
	if o.Repeat < 1 || o.Repeat > MaxRepeat {
		return fmt.Errorf("flag --repeat: want 1 to %d runs of each agent, got %d", MaxRepeat, o.Repeat)
	}
	if o.FromRuns != "" {
		oracle, nop, ok := strings.Cut(o.FromRuns, ",")
		oracle, nop = strings.TrimSpace(oracle), strings.TrimSpace(nop)
		if !ok || oracle == "" || nop == "" || strings.Contains(nop, ",") {
			return fmt.Errorf("flag --from-runs: want ORACLE_RUN,NOP_RUN, the names of an oracle SweepRun and a nop SweepRun over the same tasks, got %q", o.FromRuns)
		}
		if len(o.Tasks) > 0 || o.Selector != "" || o.All {
			return errors.New("flag --from-runs reports on the tasks of the two SweepRuns: leave out task names, -l/--selector and --all")
		}
		if o.Repeat != 1 {
			return errors.New("flag --repeat: with --from-runs each SweepRun's spec.attempts is the number of runs: leave --repeat out")
		}
		o.runs = [2]string{oracle, nop}
		return nil
	}
	switch {
	case o.All && (len(o.Tasks) > 0 || o.Selector != ""):
		return errors.New("flag --all selects every task: leave out task names and -l/--selector")
	case !o.All && len(o.Tasks) == 0 && o.Selector == "":
		return errors.New("name the tasks to check: task names, -l/--selector LABELS, --all, or --from-runs ORACLE_RUN,NOP_RUN")
	case o.All:
		o.selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: evalv1.LabelTask, Operator: metav1.LabelSelectorOpExists}}}
	case o.Selector != "":
		sel, err := metav1.ParseToLabelSelector(o.Selector)
		if err != nil {
			return fmt.Errorf("flag -l/--selector: %w: write it as kubectl does, for example -l benchmark=swe-sweep", err)
		}
		o.selector = sel
	}
	return nil
}

func (o *CheckOptions) Run(ctx context.Context) error {
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	var runs map[string]*evalv1.SweepRun
	if o.FromRuns != "" {
		runs, err = appliedRuns(ctx, cl, ns, o.runs)
	} else {
		runs, err = o.startRuns(ctx, cl, ns)
	}
	if err != nil {
		return err
	}
	outcomes := map[string]map[string][]eval.TrialOutput{}
	for _, kind := range []string{agentkind.Oracle, agentkind.Nop} {
		byTask, err := waitForOutcomes(ctx, o.ErrOut, cl, ns, runs[kind].Name)
		if err != nil {
			return err
		}
		outcomes[kind] = byTask
	}
	tasks := o.Tasks
	if len(tasks) == 0 {
		tasks = taskUnion(outcomes[agentkind.Oracle], outcomes[agentkind.Nop])
	}
	report := validationReport{Schema: ReportSchema, Namespace: ns, OracleRun: runs[agentkind.Oracle].Name, NopRun: runs[agentkind.Nop].Name,
		Bugs: validate(tasks, outcomes[agentkind.Oracle], outcomes[agentkind.Nop], int(runs[agentkind.Oracle].Spec.Attempts), int(runs[agentkind.Nop].Spec.Attempts))}
	var writeErr error
	if o.Exclusions != "" {
		var written int
		if written, writeErr = writeExclusions(ctx, cl, report, o.Exclusions); writeErr == nil {
			report.Exclusions = &writtenList{ConfigMap: o.Exclusions, Key: exclusions.ConfigMapKey, Entries: written}
		}
	}
	if err := clioptions.Write(o.Out, o.Format, report, func(w io.Writer) error { return writeValidationTable(w, report) }); err != nil {
		return err
	}
	return errors.Join(append([]error{writeErr, report.failure()}, eval.EvalErrors(allTrials(outcomes))...)...)
}

// startRuns checks that every selected task has a solution and starts the oracle and nop
// SweepRuns over them, Repeat attempts each.
func (o *CheckOptions) startRuns(ctx context.Context, cl client.Client, ns string) (map[string]*evalv1.SweepRun, error) {
	selection := evalv1.TaskSelection{Names: o.Tasks, Selector: o.selector}
	if err := checkSolutions(ctx, cl, ns, selection); err != nil {
		return nil, err
	}
	runs := map[string]*evalv1.SweepRun{}
	for _, agent := range []evalv1.AgentSpec{{Oracle: &evalv1.OracleAgent{}}, {Nop: &evalv1.NopAgent{}}} {
		run := &evalv1.SweepRun{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "check-" + agent.Kind() + "-"},
			Spec:       evalv1.SweepRunSpec{Tasks: selection, Agent: agent, Attempts: o.Repeat, Parallelism: o.Parallelism},
		}
		if err := campaigns.CreateSweepRun(ctx, cl, run); err != nil {
			return nil, fmt.Errorf("creating the %s sweeprun in namespace %s: %w", agent.Kind(), ns, campaigns.CreateHint(err))
		}
		fmt.Fprintf(o.ErrOut, "started sweeprun %s (%s agent, attempts %d)\n", run.Name, agent.Kind(), o.Repeat)
		runs[agent.Kind()] = run
	}
	return runs, nil
}

// checkSolutions refuses a selection with a task the oracle has no solution for, or with none.
func checkSolutions(ctx context.Context, cl client.Client, ns string, sel evalv1.TaskSelection) error {
	for _, task := range sel.Names {
		if _, err := campaigns.FindTask(ctx, cl, ns, task); err != nil {
			return err
		}
	}
	list := &corev1.ConfigMapList{}
	if err := cl.List(ctx, list, client.InNamespace(ns), client.HasLabels{evalv1.LabelTask}); err != nil {
		return fmt.Errorf("listing task configmaps in namespace %s: %w", ns, err)
	}
	matches, err := campaign.SelectorMatcher(sel.Selector)
	if err != nil {
		return fmt.Errorf("flag -l/--selector: %w", err)
	}
	tasks, _ := campaign.SelectTasks(sel, list.Items, matches)
	if len(tasks) == 0 {
		return fmt.Errorf("no task ConfigMap in namespace %s matches the selector: list the catalogue with `kubectl get configmaps -n %s -l %s --show-labels`", ns, ns, evalv1.LabelTask)
	}
	for _, t := range tasks {
		if t.ConfigMap.Annotations[evalv1.AnnotationSolution] == "" {
			return fmt.Errorf("task %s: configmap %s has no %s annotation, so the oracle has no solution to run: add solution/ to the task and bundle it again",
				t.Name, t.ConfigMap.Name, evalv1.AnnotationSolution)
		}
	}
	return nil
}

// appliedRuns reads the two SweepRuns of --from-runs and checks their agents.
func appliedRuns(ctx context.Context, cl client.Client, ns string, names [2]string) (map[string]*evalv1.SweepRun, error) {
	runs := map[string]*evalv1.SweepRun{}
	for i, kind := range []string{agentkind.Oracle, agentkind.Nop} {
		run, err := campaigns.GetSweepRun(ctx, cl, ns, names[i])
		if err != nil {
			return nil, err
		}
		if got := run.Spec.Agent.Kind(); got != kind {
			return nil, fmt.Errorf("flag --from-runs: sweeprun %s runs the %s agent, not %s: pass ORACLE_RUN,NOP_RUN, the oracle SweepRun first", run.Name, got, kind)
		}
		runs[kind] = run
	}
	return runs, nil
}

// waitForOutcomes follows a run to its end and reads its trials' results, by task in attempt
// order.
func waitForOutcomes(ctx context.Context, errOut io.Writer, cl client.Client, ns, name string) (map[string][]eval.TrialOutput, error) {
	_, trials, err := campaigns.FollowQuietly(ctx, errOut, cl, ns, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("stopped waiting; sweeprun %s goes on: report on it later with `sweep tasks check --from-runs ORACLE_RUN,NOP_RUN -n %s`", name, ns)
		}
		return nil, err
	}
	out := map[string][]eval.TrialOutput{}
	for i := range trials {
		r, err := eval.TrialResult(ctx, cl, trials[i])
		if err != nil {
			return nil, err
		}
		out[trials[i].Spec.Task] = append(out[trials[i].Spec.Task], r)
	}
	return out, nil
}

func allTrials(outcomes map[string]map[string][]eval.TrialOutput) []eval.TrialOutput {
	var out []eval.TrialOutput
	for _, kind := range []string{agentkind.Oracle, agentkind.Nop} {
		for _, task := range taskUnion(outcomes[kind]) {
			out = append(out, outcomes[kind][task]...)
		}
	}
	return out
}
