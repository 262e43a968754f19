// Package report renders SWE-sweep's benchmark report (internal/scoring) as a table or as the
// JSON document SWE-sweep's own `sweep info --json` prints, with its key names, so that tools
// written for SWE-sweep read ours.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// Document is `sweep info --json`.
type Document struct {
	Summary Summary `json:"summary"`
	// Tasks is present only with --per-task.
	Tasks []Task `json:"tasks,omitzero"`
}

// Summary is the campaign's line of the report.
type Summary struct {
	GradedTasks int `json:"graded_tasks"`
	GradedBugs  int `json:"graded_bugs"`
	// ResolvedBugs are bugs resolved in regression-free trials: the score's numerator.
	ResolvedBugs             float64 `json:"resolved_bugs"`
	Score                    float64 `json:"score"`
	ScoreIgnoringRegressions float64 `json:"score_ignoring_regressions"`
	EvaluationFailures       int     `json:"evaluation_failures"`
}

// Task is one task's line: n_resolved ignores regressions, resolved_counted counts a regressed
// trial as 0; both are means over the task's graded trials.
type Task struct {
	Task            string  `json:"task"`
	Trials          int     `json:"trials"`
	Subtasks        int     `json:"n_subtasks"`
	Resolved        float64 `json:"n_resolved"`
	ResolvedCounted float64 `json:"resolved_counted"`
	Regressed       int     `json:"regressed"`
	Reward          float64 `json:"reward"`
}

// jsonDecimals bounds the digits of JSON numbers: means such as 2/3 would otherwise print
// float noise that makes reports differ between machines.
const jsonDecimals = 6

func round(x float64) float64 {
	p := math.Pow10(jsonDecimals)
	return math.Round(x*p) / p
}

// NewDocument turns a report into the JSON document; perTask adds the task lines.
func NewDocument(rep scoring.Report, perTask bool) Document {
	doc := Document{Summary: Summary{
		GradedTasks:              rep.GradedTasks,
		GradedBugs:               rep.GradedBugs,
		ResolvedBugs:             round(rep.ResolvedBugs),
		Score:                    round(rep.Score),
		ScoreIgnoringRegressions: round(rep.ScoreIgnoringRegressions),
		EvaluationFailures:       rep.EvaluationFailures,
	}}
	if !perTask {
		return doc
	}
	doc.Tasks = make([]Task, 0, len(rep.Tasks))
	for _, t := range rep.Tasks {
		doc.Tasks = append(doc.Tasks, Task{Task: t.Task, Trials: t.Trials, Subtasks: t.Subtasks,
			Resolved: round(t.Resolved), ResolvedCounted: round(t.ResolvedCounted), Regressed: t.Regressed, Reward: round(t.Reward)})
	}
	return doc
}

// WriteText prints the summary and, with perTask, a table of tasks.
func WriteText(w io.Writer, rep scoring.Report, perTask bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	rows := [][2]string{
		{"graded tasks", strconv.Itoa(rep.GradedTasks)},
		{"graded bugs", strconv.Itoa(rep.GradedBugs)},
		{"bugs resolved in regression-free tasks", decimal(rep.ResolvedBugs, 2)},
		{"score", scoring.Format(rep.Score)},
		{"score ignoring regressions", scoring.Format(rep.ScoreIgnoringRegressions)},
		{"mean task reward", scoring.Format(rep.MeanReward)},
		{"evaluation failures", strconv.Itoa(rep.EvaluationFailures)},
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !perTask {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tTRIALS\tBUGS\tRESOLVED\tCOUNTED\tREWARD\tREGRESSED")
	for _, t := range rep.Tasks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%d\n", t.Task, t.Trials, t.Subtasks,
			decimal(t.Resolved, 2), decimal(t.ResolvedCounted, 2), scoring.Format(t.Reward), t.Regressed)
	}
	return tw.Flush()
}

func decimal(x float64, places int) string { return strconv.FormatFloat(x, 'f', places, 64) }
