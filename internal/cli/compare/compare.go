// Package compare is `sweep compare A B`: how one campaign or Harbor job directory scores
// against another, task by task, by SWE-sweep's scoring (internal/scoring).
package compare

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/info"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// Options of `sweep compare A B`.
type Options struct {
	Format string

	Cluster *clioptions.Cluster
	// A and B are each a SweepRun name or a Harbor job directory, as `sweep info` takes them.
	A, B string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("want two arguments, A and B (sweepruns or job directories), got %d: for example `sweep compare run1 run2`", len(args))
	}
	o.IOStreams, o.A, o.B = streams, args[0], args[1]
	return nil
}

func (o *Options) Validate() error {
	if o.A == o.B {
		return fmt.Errorf("arguments A and B are both %q: give two different sweepruns or job directories", o.A)
	}
	return clioptions.CheckOutput(o.Format)
}

func (o *Options) Run(ctx context.Context) error {
	a, err := o.score(ctx, "A", o.A)
	if err != nil {
		return err
	}
	b, err := o.score(ctx, "B", o.B)
	if err != nil {
		return err
	}
	c := scoring.Compare(a, b)
	doc := newDocument(o.A, o.B, a, b, c)
	return clioptions.Write(o.Out, o.Format, doc, func(w io.Writer) error { return writeTable(w, doc, a, b, c) })
}

// score is the report of one side, its errors naming the argument.
func (o *Options) score(ctx context.Context, which, source string) (scoring.Report, error) {
	trials, err := info.CollectTrials(ctx, o.Cluster, o.ErrOut, []string{source}, false)
	if err != nil {
		return scoring.Report{}, fmt.Errorf("argument %s: %w", which, err)
	}
	return scoring.Score(info.ScoringTrials(trials)), nil
}

// document is `sweep compare -o json`: each side's SWE-sweep summary, their difference
// (B − A), the tasks graded on both sides and those graded on one.
type document struct {
	A          side         `json:"a"`
	B          side         `json:"b"`
	Difference summaryDelta `json:"difference"`
	Tasks      []taskRow    `json:"tasks"`
	OnlyInA    []string     `json:"only_in_a"`
	OnlyInB    []string     `json:"only_in_b"`
}

type side struct {
	Source         string         `json:"source"`
	Summary        report.Summary `json:"summary"`
	MeanTaskReward report.Float   `json:"mean_task_reward"`
}

type summaryDelta struct {
	GradedTasks              int          `json:"graded_tasks"`
	GradedBugs               int          `json:"graded_bugs"`
	ResolvedBugs             report.Float `json:"resolved_bugs"`
	Score                    report.Float `json:"score"`
	ScoreIgnoringRegressions report.Float `json:"score_ignoring_regressions"`
	MeanTaskReward           report.Float `json:"mean_task_reward"`
	EvaluationFailures       int          `json:"evaluation_failures"`
}

// taskRow is a task graded on both sides: its bugs, the bugs resolved in regression-free
// trials (mean over attempts) and its score on each, and B − A.
type taskRow struct {
	Task          string       `json:"task"`
	SubtasksA     int          `json:"n_subtasks_a"`
	SubtasksB     int          `json:"n_subtasks_b"`
	ResolvedA     report.Float `json:"resolved_counted_a"`
	ResolvedB     report.Float `json:"resolved_counted_b"`
	ResolvedDelta report.Float `json:"resolved_counted_delta"`
	ScoreA        report.Float `json:"score_a"`
	ScoreB        report.Float `json:"score_b"`
	ScoreDelta    report.Float `json:"score_delta"`
}

func newDocument(sourceA, sourceB string, a, b scoring.Report, c scoring.Comparison) document {
	d := c.Difference
	doc := document{
		A: side{Source: sourceA, Summary: report.NewDocument(a).Summary, MeanTaskReward: report.Float(a.MeanReward)},
		B: side{Source: sourceB, Summary: report.NewDocument(b).Summary, MeanTaskReward: report.Float(b.MeanReward)},
		Difference: summaryDelta{GradedTasks: d.GradedTasks, GradedBugs: d.GradedBugs, ResolvedBugs: report.Float(d.ResolvedBugs),
			Score: report.Float(d.Score), ScoreIgnoringRegressions: report.Float(d.ScoreIgnoringRegressions),
			MeanTaskReward: report.Float(d.MeanReward), EvaluationFailures: d.EvaluationFailures},
		Tasks: []taskRow{}, OnlyInA: c.OnlyInA, OnlyInB: c.OnlyInB,
	}
	for _, t := range c.Tasks {
		doc.Tasks = append(doc.Tasks, taskRow{Task: t.Task, SubtasksA: t.A.Subtasks, SubtasksB: t.B.Subtasks,
			ResolvedA: report.Float(t.A.ResolvedCounted), ResolvedB: report.Float(t.B.ResolvedCounted), ResolvedDelta: report.Float(t.ResolvedDelta),
			ScoreA: report.Float(t.A.Score()), ScoreB: report.Float(t.B.Score()), ScoreDelta: report.Float(t.ScoreDelta)})
	}
	return doc
}

func writeTable(w io.Writer, doc document, a, b scoring.Report, c scoring.Comparison) error {
	fmt.Fprintf(w, "A is %s\nB is %s\n\n", doc.A.Source, doc.B.Source)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\tA\tB\tB-A")
	d := c.Difference
	rows := [][4]string{
		{"graded tasks", strconv.Itoa(a.GradedTasks), strconv.Itoa(b.GradedTasks), signedInt(d.GradedTasks)},
		{"graded bugs", strconv.Itoa(a.GradedBugs), strconv.Itoa(b.GradedBugs), signedInt(d.GradedBugs)},
		{"bugs resolved in regression-free tasks", fixed(a.ResolvedBugs, 2), fixed(b.ResolvedBugs, 2), signed(d.ResolvedBugs, 2)},
		{"score", scoring.Format(a.Score), scoring.Format(b.Score), signed(d.Score, scoring.Precision)},
		{"score ignoring regressions", scoring.Format(a.ScoreIgnoringRegressions), scoring.Format(b.ScoreIgnoringRegressions), signed(d.ScoreIgnoringRegressions, scoring.Precision)},
		{"mean task reward", scoring.Format(a.MeanReward), scoring.Format(b.MeanReward), signed(d.MeanReward, scoring.Precision)},
		{"evaluation failures", strconv.Itoa(len(a.EvaluationFailures)), strconv.Itoa(len(b.EvaluationFailures)), signedInt(d.EvaluationFailures)},
	}
	if a.UnmeasuredTrials > 0 || b.UnmeasuredTrials > 0 {
		rows = append(rows, [4]string{"trials not measured", strconv.Itoa(a.UnmeasuredTrials), strconv.Itoa(b.UnmeasuredTrials), signedInt(d.UnmeasuredTrials)})
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s:\t%s\t%s\t%s\n", r[0], r[1], r[2], r[3])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tBUGS A\tBUGS B\tRESOLVED A\tRESOLVED B\tB-A\tSCORE A\tSCORE B\tB-A")
	for _, t := range c.Tasks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Task, t.A.Subtasks, t.B.Subtasks,
			fixed(t.A.ResolvedCounted, 2), fixed(t.B.ResolvedCounted, 2), signed(t.ResolvedDelta, 2),
			scoring.Format(t.A.Score()), scoring.Format(t.B.Score()), signed(t.ScoreDelta, scoring.Precision))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nonly in A: %s\nonly in B: %s\n", names(c.OnlyInA), names(c.OnlyInB))
	return nil
}

func names(tasks []string) string {
	if len(tasks) == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%s)", len(tasks), strings.Join(tasks, ", "))
}

func fixed(x float64, places int) string { return strconv.FormatFloat(x, 'f', places, 64) }

// signed is a difference with its sign, +0.0000 when it rounds to nothing.
func signed(x float64, places int) string {
	s := fixed(x, places)
	if !strings.HasPrefix(s, "-") || strings.Trim(s, "-0.") == "" {
		return "+" + strings.TrimPrefix(s, "-")
	}
	return s
}

func signedInt(n int) string {
	if n < 0 {
		return strconv.Itoa(n)
	}
	return "+" + strconv.Itoa(n)
}
