package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// WritePassAtK prints pass@k (an extension beyond SWE-sweep's report) and, with perTask, a
// line per task.
func WritePassAtK(w io.Writer, rep passk.Report, perTask bool) error {
	bugs, tasks := 0, 0
	for _, t := range rep.Tasks {
		if t.Unit == passk.UnitBug {
			bugs += len(t.Units)
		} else {
			tasks++
		}
	}
	fmt.Fprintf(w, "pass@k over attempts (beyond SWE-sweep's report): %s of %s with per-bug results, %s scored whole\n",
		count(bugs, "bug"), count(len(rep.Tasks)-tasks, "task"), count(tasks, "task"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "K\tPASS@K\tUNITS\tNOT COMPUTABLE")
	for _, v := range rep.PassAtK {
		missing := "0"
		if v.NotComputable > 0 {
			missing = fmt.Sprintf("%d (fewer than %d attempts)", v.NotComputable, v.K)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\n", v.K, passAt(v), v.Units, missing)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := rep.Spread
	fmt.Fprintf(w, "per-attempt score over %d attempts: min %s  max %s  stddev %s\n", len(s.Scores), scoring.Format(s.Min), scoring.Format(s.Max), scoring.Format(s.StdDev))
	if rep.UnevenAttempts {
		fmt.Fprintln(w, "tasks have different numbers of attempts: a later attempt's score is over the tasks that have it")
	}
	if !perTask {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := []string{"TASK", "UNIT", "UNITS", "ATTEMPTS"}
	for _, k := range rep.K {
		head = append(head, "PASS@"+strconv.Itoa(k))
	}
	fmt.Fprintln(tw, strings.Join(append(head, "MIN", "MAX", "STDDEV"), "\t"))
	for _, t := range rep.Tasks {
		row := []string{t.Task, t.Unit, strconv.Itoa(len(t.Units)), strconv.Itoa(t.Attempts)}
		for _, v := range t.PassAtK {
			row = append(row, passAt(v))
		}
		row = append(row, scoring.Format(t.Spread.Min), scoring.Format(t.Spread.Max), scoring.Format(t.Spread.StdDev))
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

// passAt is a pass@k value, or "-" when no unit has k attempts.
func passAt(v passk.Value) string {
	if v.PassAtK == nil {
		return "-"
	}
	return scoring.Format(*v.PassAtK)
}

// count is n and noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
