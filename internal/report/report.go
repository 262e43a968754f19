// Package report renders SWE-sweep's benchmark report (internal/scoring) as a table or as the
// JSON document SWE-sweep's own `sweep info --json` prints, with its key names, so that tools
// written for SWE-sweep read ours.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// Document is `sweep info --json`: SWE-sweep's report, with its keys, types and full float
// precision, so that tools written for SWE-sweep read ours and the numbers compare exactly.
type Document struct {
	Summary Summary `json:"summary"`
	Tasks   []Task  `json:"tasks"`
}

// Summary is the campaign's line of the report.
type Summary struct {
	GradedTasks int `json:"graded_tasks"`
	GradedBugs  int `json:"graded_bugs"`
	// ResolvedBugs are bugs resolved in regression-free trials: the score's numerator. It is
	// the integer 0 when no task is graded, as SWE-sweep's empty sum is.
	ResolvedBugs             Number   `json:"resolved_bugs"`
	Score                    Float    `json:"score"`
	ScoreIgnoringRegressions Float    `json:"score_ignoring_regressions"`
	EvaluationFailures       []string `json:"evaluation_failures"`
}

// Task is one task's line: n_resolved ignores regressions, resolved_counted counts a regressed
// trial as 0; both are means over the task's graded trials.
type Task struct {
	Task            string `json:"task"`
	Trials          int    `json:"trials"`
	Subtasks        int    `json:"n_subtasks"`
	Resolved        Float  `json:"n_resolved"`
	ResolvedCounted Float  `json:"resolved_counted"`
	Regressed       int    `json:"regressed"`
	Reward          Float  `json:"reward"`
}

// NewDocument turns a report into the JSON document.
func NewDocument(rep scoring.Report) Document {
	resolved := Number{Float: Float(rep.ResolvedBugs), Integer: len(rep.Tasks) == 0}
	doc := Document{Summary: Summary{
		GradedTasks:              rep.GradedTasks,
		GradedBugs:               rep.GradedBugs,
		ResolvedBugs:             resolved,
		Score:                    Float(rep.Score),
		ScoreIgnoringRegressions: Float(rep.ScoreIgnoringRegressions),
		EvaluationFailures:       append([]string{}, rep.EvaluationFailures...),
	}}
	doc.Tasks = make([]Task, 0, len(rep.Tasks))
	for _, t := range rep.Tasks {
		doc.Tasks = append(doc.Tasks, Task{Task: t.Task, Trials: t.Trials, Subtasks: t.Subtasks,
			Resolved: Float(t.Resolved), ResolvedCounted: Float(t.ResolvedCounted), Regressed: t.Regressed, Reward: Float(t.Reward)})
	}
	return doc
}

// Float is a JSON float written as Python writes one (repr): the shortest digits that read
// back to the same float, always with a point or an exponent, so 1 is 1.0 and 1e-05 stays a
// float, never an integer.
type Float float64

// MarshalJSON writes f as Python's repr does.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("%v is not a JSON number", x)
	}
	return []byte(pythonRepr(x)), nil
}

// Number is a float that is an integer in the JSON when Integer is set.
type Number struct {
	Float   Float
	Integer bool
}

// MarshalJSON writes n as an integer or as a Float.
func (n Number) MarshalJSON() ([]byte, error) {
	if n.Integer {
		return []byte(strconv.FormatFloat(float64(n.Float), 'f', 0, 64)), nil
	}
	return n.Float.MarshalJSON()
}

// pythonRepr formats x as Python's float repr: positional from 1e-4 up to below 1e16,
// else an exponent of at least two digits with its sign.
func pythonRepr(x float64) string {
	if x == 0 {
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // d.ddde±XX
	mantissa, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	n, _ := strconv.Atoi(exp)
	point := n + 1 // digits before the decimal point
	switch {
	case point <= -4 || point > 16:
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		expSign := "+"
		if n < 0 {
			expSign, n = "-", -n
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, expSign, n)
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	default:
		return sign + digits[:point] + "." + digits[point:]
	}
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
		{"evaluation failures", evaluationFailures(rep.EvaluationFailures)},
	}
	if rep.UnmeasuredTrials > 0 {
		// The cluster's trials that ended without a measurement (docs/design.md §10), which
		// SWE-sweep's report does not count.
		rows = append(rows, [2]string{"trials not measured", strconv.Itoa(rep.UnmeasuredTrials)})
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

func evaluationFailures(names []string) string {
	if len(names) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", len(names), strings.Join(names, ", "))
}

func decimal(x float64, places int) string { return strconv.FormatFloat(x, 'f', places, 64) }
