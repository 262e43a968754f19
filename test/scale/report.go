package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// printTable prints the run's figures, one row a phase, then each phase's requests by verb.
func printTable(w io.Writer, rep report) {
	fmt.Fprintf(w, "scale: %d trials a phase (%d attempts), parallelism %d, %d kwok nodes, Pods start %d ms and run %d ms; %s; %s\n\n",
		rep.N, rep.Attempts, rep.Parallelism, rep.Nodes, rep.PodStartMs, rep.PodRunMs, rep.Machine, rep.Date)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tFLAGS\tTRIALS\tSECONDS\tTRIALS/S\tVS BASELINE\tFIRST POD\tREQ/TRIAL\tWRITES/TRIAL\tEVENTS/TRIAL\tRSS (LIVE HEAP) MiB\tCPU s\tRECONCILE P50/P99\tPOD END→SCORE P50/P99\tLOST\tTWICE")
	for _, ph := range rep.Phases {
		ratio, reqs, writes, events, rss, cpu, rec, p2s, lost, twice := "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"
		if ph.Kind == "sweep" {
			if r, ok := rep.Ratios[ph.Profile]; ok {
				ratio = fmt.Sprintf("%.2f×", r)
			}
		}
		if ph.Requests != nil && ph.Trials > 0 {
			n := float64(ph.Trials)
			reqs = fmt.Sprintf("%.1f", float64(ph.Requests.Total)/n)
			writes = fmt.Sprintf("%.1f", float64(ph.Requests.Writes)/n)
			events = fmt.Sprintf("%.2f", float64(ph.Requests.Events)/n)
		}
		if ph.Manager != nil {
			rss, cpu = fmt.Sprintf("%.0f (%.0f)", ph.Manager.PeakRSSMiB, ph.Manager.LiveHeapMiB), fmt.Sprintf("%.1f", ph.Manager.CPUSeconds)
		}
		if l, ok := ph.Reconcile["tasktrial"]; ok {
			rec = fmt.Sprintf("%.3f/%.3f", l.P50, l.P99)
		}
		if ph.PodEndToScore != nil && ph.PodEndToScore.Count > 0 {
			p2s = fmt.Sprintf("%.3f/%.3f", ph.PodEndToScore.P50, ph.PodEndToScore.P99)
		}
		if ph.Integrity != nil {
			lost, twice = fmt.Sprint(ph.Integrity.Lost), fmt.Sprint(ph.Integrity.RunTwice)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ph.Kind, ph.Profile, ph.Trials, ph.Seconds,
			ph.TrialsPerSecond, ratio, ph.FirstPodSeconds, reqs, writes, events, rss, cpu, rec, p2s, lost, twice)
	}
	_ = tw.Flush()
	for _, ph := range rep.Phases {
		if ph.Kind == "restart" {
			fmt.Fprintf(w, "\nrestart: manager killed (SIGKILL) at %d of %d trials succeeded; the new one ready %.2f s later, the next trial scored %.2f s after the kill\n",
				ph.KilledAt, ph.Trials, ph.ReadySeconds, ph.ResumeSeconds)
		}
	}
	for _, ph := range rep.Phases {
		if m := ph.Manager; m != nil {
			fmt.Fprintf(w, "\n%s (%s) manager memory: peak RSS %.0f MiB; at the drain's end RSS %.0f MiB anonymous + %.0f MiB of files (the binary), live heap %.0f MiB\n",
				ph.Kind, ph.Profile, m.PeakRSSMiB, m.AnonMiB, m.FileMiB, m.LiveHeapMiB)
		}
	}
	for _, ph := range rep.Phases {
		if len(ph.CPUPerTrial) > 0 {
			fmt.Fprintf(w, "\n%s (%s) CPU-seconds a trial by process: %s\n", ph.Kind, ph.Profile, cpuByProcess(ph.CPUPerTrial))
		}
	}
	for _, ph := range rep.Phases {
		if ph.Requests == nil || ph.Trials == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%s) requests per trial by verb and resource:\n", ph.Kind, ph.Profile)
		printRequests(w, ph.Requests, float64(ph.Trials))
	}
	var names []string
	for _, ph := range rep.Phases {
		for name := range ph.CLI {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, ph := range rep.Phases {
		for _, name := range names {
			r, ok := ph.CLI[name]
			if !ok {
				continue
			}
			total := 0
			var verbs []string
			if r.Requests != nil {
				total = r.Requests.Total
				for k, v := range r.Requests.ByVerbResource {
					verbs = append(verbs, fmt.Sprintf("%s %d", k, v))
				}
				sort.Strings(verbs)
			}
			fmt.Fprintf(w, "\n%s over %d trials: %.2f s, %d requests (%s), peak RSS %.0f MiB, CPU %.2f s",
				name, ph.Trials, r.Seconds, total, strings.Join(verbs, ", "), r.PeakRSSMiB, r.CPUSeconds)
			if r.AfterCompleteSeconds > 0 {
				fmt.Fprintf(w, ", ended %.2f s after the campaign completed", r.AfterCompleteSeconds)
			}
			fmt.Fprintln(w)
		}
	}
}

func printRequests(w io.Writer, c *requestCounts, n float64) {
	keys := make([]string, 0, len(c.ByVerbResource))
	for k := range c.ByVerbResource {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return c.ByVerbResource[keys[i]] > c.ByVerbResource[keys[j]] })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s\t%.2f\t(%d)\n", k, float64(c.ByVerbResource[k])/n, c.ByVerbResource[k])
	}
	_ = tw.Flush()
}

// cpuByProcess lists the processes from the one that used the most, then their total.
func cpuByProcess(perTrial map[string]float64) string {
	names := make([]string, 0, len(perTrial))
	total := 0.0
	for name, cpu := range perTrial {
		names = append(names, name)
		total += cpu
	}
	sort.Slice(names, func(i, j int) bool { return perTrial[names[i]] > perTrial[names[j]] })
	parts := make([]string, 0, len(names)+1)
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %.3f", name, perTrial[name]))
	}
	return strings.Join(append(parts, fmt.Sprintf("total %.3f", total)), ", ")
}
