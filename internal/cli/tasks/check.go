package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// CheckOptions of `sweep tasks check NAME...`.
type CheckOptions struct {
	// Parallelism is the most trials of each agent at once.
	Parallelism int32
	Format      string

	Cluster *clioptions.Cluster
	Tasks   []string
	clioptions.IOStreams
}

func (o *CheckOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Tasks = streams, args
	return nil
}

func (o *CheckOptions) Validate() error {
	return clioptions.CheckOutput(o.Format)
}

func (o *CheckOptions) Run(ctx context.Context) error {
	args := o.Tasks
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	for _, task := range args {
		cm, err := campaigns.FindTask(ctx, cl, ns, task)
		if err != nil {
			return err
		}
		if cm.Annotations[evalv1.AnnotationSolution] == "" {
			return fmt.Errorf("task %s: configmap %s has no %s annotation, so the oracle has no solution to run: add solution/ to the task and bundle it again",
				task, cm.Name, evalv1.AnnotationSolution)
		}
	}
	runs := map[string]*evalv1.SweepRun{}
	for _, agent := range []evalv1.AgentSpec{{Oracle: &evalv1.OracleAgent{}}, {Nop: &evalv1.NopAgent{}}} {
		run := &evalv1.SweepRun{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "check-" + agent.Kind() + "-"},
			Spec:       evalv1.SweepRunSpec{Tasks: evalv1.TaskSelection{Names: args}, Agent: agent, Attempts: 1, Parallelism: o.Parallelism},
		}
		if err := campaigns.CreateSweepRun(ctx, cl, run); err != nil {
			return fmt.Errorf("creating the %s sweeprun in namespace %s: %w", agent.Kind(), ns, campaigns.CreateHint(err))
		}
		fmt.Fprintf(o.ErrOut, "started sweeprun %s (%s agent)\n", run.Name, agent.Kind())
		runs[agent.Kind()] = run
	}
	outcomes := map[string]map[string]eval.TrialOutput{}
	for _, kind := range []string{agentkind.Oracle, agentkind.Nop} {
		byTask, err := waitForOutcomes(ctx, o.ErrOut, cl, ns, runs[kind].Name)
		if err != nil {
			return err
		}
		outcomes[kind] = byTask
	}
	rows := checkRows(args, outcomes[agentkind.Oracle], outcomes[agentkind.Nop])
	if err := clioptions.Write(o.Out, o.Format, rows, func(w io.Writer) error { return writeCheckTable(w, rows) }); err != nil {
		return err
	}
	failed := 0
	for _, r := range rows {
		if !r.OK {
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	var trials []eval.TrialOutput
	for _, kind := range []string{agentkind.Oracle, agentkind.Nop} {
		for _, task := range args {
			trials = append(trials, outcomes[kind][task])
		}
	}
	return errors.Join(append([]error{fmt.Errorf("%d of %d bugs failed the check: fix the task's solution or hidden tests (see `sweep info %s --per-task` and `sweep info %s --per-task`)",
		failed, len(rows), runs[agentkind.Oracle].Name, runs[agentkind.Nop].Name)}, eval.EvalErrors(trials)...)...)
}

// waitForOutcomes follows a run to its end and reads each task's trial result.
func waitForOutcomes(ctx context.Context, errOut io.Writer, cl client.Client, ns, name string) (map[string]eval.TrialOutput, error) {
	_, trials, err := campaigns.FollowQuietly(ctx, errOut, cl, ns, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("stopped waiting; sweeprun %s goes on: read it later with `sweep info %s --per-task -n %s`", name, name, ns)
		}
		return nil, err
	}
	out := map[string]eval.TrialOutput{}
	for i := range trials {
		r, err := eval.TrialResult(ctx, cl, &trials[i])
		if err != nil {
			return nil, err
		}
		out[trials[i].Spec.Task] = r
	}
	return out, nil
}

// checkRow is one bug's verdict; Bug is "-" for a task graded by reward alone.
type checkRow struct {
	Task    string `json:"task"`
	Bug     string `json:"bug"`
	Oracle  string `json:"oracle"`
	Nop     string `json:"nop"`
	OK      bool   `json:"ok"`
	Verdict string `json:"verdict"`
}

// checkRows compares the oracle's and nop's outcome on each bug of each task.
func checkRows(tasks []string, oracle, nop map[string]eval.TrialOutput) []checkRow {
	var rows []checkRow
	for _, task := range tasks {
		o, n := oracle[task], nop[task]
		if problem := unreadable(o) + unreadable(n); problem != "" {
			rows = append(rows, checkRow{Task: task, Bug: "-", Oracle: o.Phase, Nop: n.Phase, Verdict: strings.TrimSuffix(problem, "; ")})
			continue
		}
		if problem := unmeasured(o, agentkind.Oracle) + unmeasured(n, agentkind.Nop); problem != "" {
			rows = append(rows, checkRow{Task: task, Bug: "-", Oracle: clioptions.OrDash(o.Phase), Nop: clioptions.OrDash(n.Phase), Verdict: strings.TrimSuffix(problem, "; ")})
			continue
		}
		if len(o.Bugs) == 0 {
			oracleReward, nopReward := rewardOf(o), rewardOf(n)
			row := checkRow{Task: task, Bug: "-", Oracle: "reward " + o.Rewards[reward.KeyReward], Nop: "reward " + n.Rewards[reward.KeyReward]}
			switch {
			case oracleReward < 1:
				row.Verdict = "the oracle does not score 1: its solution is wrong or the tests are"
			case nopReward >= 1:
				row.Verdict = "nop scores 1: the tests pass without any change"
			default:
				row.OK, row.Verdict = true, "ok"
			}
			rows = append(rows, row)
			continue
		}
		nopBugs := map[string]eval.BugOutput{}
		for _, b := range n.Bugs {
			nopBugs[b.ID] = b
		}
		for _, ob := range o.Bugs {
			nb, graded := nopBugs[ob.ID]
			row := checkRow{Task: task, Bug: ob.ID, Oracle: eval.BugVerdict(ob), Nop: "not graded"}
			if graded {
				row.Nop = eval.BugVerdict(nb)
			}
			switch {
			case !ob.Resolved:
				row.Verdict = "the oracle does not resolve it: check its fix and fail-to-pass tests"
			case !graded:
				row.Verdict = "nop's grading has no such bug: regrade"
			case nb.Resolved:
				row.Verdict = "nop resolves it: its fail-to-pass tests pass without the fix"
			default:
				row.OK, row.Verdict = true, "ok"
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// unreadable is the problem of a trial whose eval.json could not be read, so that its bugs
// cannot be checked.
func unreadable(t eval.TrialOutput) string {
	if t.EvalError == "" {
		return ""
	}
	return t.EvalError + "; "
}

func unmeasured(t eval.TrialOutput, agent string) string {
	if t.Phase == string(evalv1.TrialSucceeded) {
		return ""
	}
	if t.Name == "" {
		return agent + " trial missing; "
	}
	return fmt.Sprintf("%s trial %s ended %s (%s); ", agent, t.Name, t.Phase, clioptions.OrDash(t.Reason))
}

// rewardOf is the trial's reward; a missing one is 0, as Harbor counts it.
func rewardOf(t eval.TrialOutput) float64 {
	f, _ := strconv.ParseFloat(t.Rewards[reward.KeyReward], 64)
	return f
}

func writeCheckTable(w io.Writer, rows []checkRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tBUG\tORACLE\tNOP\tVERDICT")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Task, r.Bug, r.Oracle, r.Nop, r.Verdict)
	}
	return tw.Flush()
}
