package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

func printReport(w io.Writer, rep report) {
	fmt.Fprintf(w, "\nbreakdown: %d trials (%v x %d attempts, parallelism %d, cpu request %s) in %d SweepRuns; %s; %s\n",
		len(rep.Trials), rep.Tasks, rep.Attempts, rep.Parallelism, rep.CPURequest, len(rep.Campaigns), rep.Machine, rep.Date)
	fmt.Fprintln(w, "\nSteps by the watch's clock (seconds; a negative step: seen in the other order):")
	printSteps(w, rep.Seen)
	printSteps(w, rep.Apart)
	fmt.Fprintln(w, "\nEach stage by the recorded timestamps (whole seconds, so each span is ±1 s) and the hook's own clock:")
	printSteps(w, rep.Recorded)
	fmt.Fprintln(w, "\nPer trial (seconds):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tP50\tP90\tMAX\t")
	for _, row := range []struct {
		name string
		d    timing.Dist
	}{{"wall: created → score", rep.Wall}, {"the stages' own work", rep.Work}, {"overhead: wall - work", rep.Overhead}} {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t\n", row.name, row.d.P50, row.d.P90, row.d.Max)
	}
	_ = tw.Flush()
	for _, c := range rep.Campaigns {
		fmt.Fprintf(w, "SweepRun %s: %d trials, created → last score %.1f s, → Complete %.1f s; the node's Pods used %.1f CPU-s; load %s → %s\n",
			c.Name, c.Trials, c.Wall, c.ToComplete, c.PodsCPU, c.Load[0], c.Load[1])
		for _, o := range sortedKeys(c.Outcomes) {
			fmt.Fprintf(w, "  %d trials %s\n", c.Outcomes[o], o)
		}
	}
	if f := rep.Floor; f != nil {
		fmt.Fprintf(w, "\nGrading work on this machine (median of each task's grades, CPU-seconds):\n")
		for _, r := range f.Runs {
			fmt.Fprintf(w, "  %s %s: %.2f CPU-s in %.2f s\n", r.Task, r.Mode, r.CPUSeconds, r.Seconds)
		}
		for _, mode := range sortedKeys(f.ByMode) {
			m := f.ByMode[mode]
			fmt.Fprintf(w, "  %s: %.1f CPU-s for %d attempts of each task = %.1f s at %d cores; campaign wall / that = %.2fx; the Pods' CPU / that work = %.2fx\n",
				mode, m.CPUSeconds, rep.Attempts, m.FloorWall, f.Cores, m.WallToFloor, m.PodsCPUToFloor)
		}
	}
}

func printSteps(w io.Writer, steps []step) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STEP\tN\tP50\tP90\t")
	for _, s := range steps {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t\n", s.Name, s.Count, s.P50, s.P90)
	}
	_ = tw.Flush()
}
