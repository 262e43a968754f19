package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Exclusions is what a campaign's exclusion list left out (an extension beyond SWE-sweep's
// report): the bugs and tasks its score's denominator does not count.
type Exclusions struct {
	SweepRun  string `json:"sweeprun"`
	ConfigMap string `json:"configmap"`
	SHA256    string `json:"sha256"`
	// Tasks are the tasks left out whole; Bugs every bug left out, theirs included.
	Tasks    int           `json:"tasks_excluded"`
	Bugs     int           `json:"bugs_excluded"`
	ByReason []ReasonCount `json:"by_reason"`
}

// ReasonCount is how many tasks and bugs were left out for one reason of the list.
type ReasonCount struct {
	Reason string `json:"reason"`
	Tasks  int    `json:"tasks"`
	Bugs   int    `json:"bugs"`
}

// WriteExclusions prints, for each campaign that applied a list, what it left out and why.
func WriteExclusions(w io.Writer, all []Exclusions) error {
	for _, e := range all {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		digest := e.SHA256
		if len(digest) > 12 {
			digest = digest[:12]
		}
		tasks, bugs := byReason(e.ByReason)
		fmt.Fprintf(tw, "excluded by sweeprun %s:\tconfigmap %s (sha256 %s), not in the score\n", e.SweepRun, e.ConfigMap, digest)
		fmt.Fprintf(tw, "tasks excluded:\t%d%s\n", e.Tasks, tasks)
		fmt.Fprintf(tw, "bugs excluded:\t%d%s\n", e.Bugs, bugs)
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// byReason renders the counts as " (flaky 2, trivial 1)", leaving out reasons without any.
func byReason(counts []ReasonCount) (tasks, bugs string) {
	var t, b []string
	for _, c := range counts {
		if c.Tasks > 0 {
			t = append(t, fmt.Sprintf("%s %d", c.Reason, c.Tasks))
		}
		if c.Bugs > 0 {
			b = append(b, fmt.Sprintf("%s %d", c.Reason, c.Bugs))
		}
	}
	wrap := func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return " (" + strings.Join(s, ", ") + ")"
	}
	return wrap(t), wrap(b)
}
