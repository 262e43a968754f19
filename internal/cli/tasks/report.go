package tasks

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// ReportSchema is the value of the validation report's "schema" field.
const ReportSchema = "sweep-validation/1"

// validationReport is what `sweep tasks check` prints with -o json|yaml.
type validationReport struct {
	Schema    string      `json:"schema"`
	Namespace string      `json:"namespace"`
	OracleRun string      `json:"oracleRun"`
	NopRun    string      `json:"nopRun"`
	Bugs      []bugReport `json:"bugs"`
	// Exclusions is the list --exclusions wrote.
	Exclusions *writtenList `json:"exclusions,omitempty"`
}

// writtenList is the exclusion list's ConfigMap and how many entries this run put in it.
type writtenList struct {
	ConfigMap string `json:"configMap"`
	Key       string `json:"key"`
	Entries   int    `json:"entries"`
}

// bugReport is one bug's validation; Bug is empty for a task graded whole (by reward alone,
// or a SWE-bench instance), as an exclusion entry for the whole task has it.
type bugReport struct {
	Task        string     `json:"task"`
	Bug         string     `json:"bug,omitempty"`
	Verdict     Verdict    `json:"verdict"`
	Oracle      Count      `json:"oracle"`
	Nop         Count      `json:"nop"`
	Regressions []TestRuns `json:"regressions"`
	Flaky       []TestRuns `json:"flaky"`
	// Problems say why runs were not measured.
	Problems []string `json:"problems,omitempty"`
	Detail   string   `json:"detail"`
}

// agentRuns are one agent's trials of one task, and how many it was asked to run.
type agentRuns struct {
	agent  string
	trials []eval.TrialOutput
	runs   int
}

// validate is each task's bugs' reports, from the trials of the oracle and nop runs (by task)
// and the attempts each run asked for.
func validate(tasks []string, oracle, nop map[string][]eval.TrialOutput, oracleRuns, nopRuns int) []bugReport {
	var out []bugReport
	for _, task := range tasks {
		o := agentRuns{agent: agentkind.Oracle, trials: oracle[task], runs: oracleRuns}
		n := agentRuns{agent: agentkind.Nop, trials: nop[task], runs: nopRuns}
		bugs := bugIDs(o.trials, n.trials)
		if len(bugs) == 0 {
			out = append(out, report(task, "", o, n))
			continue
		}
		for _, b := range bugs {
			out = append(out, report(task, b, o, n))
		}
	}
	return out
}

// bugIDs are the bugs the measured trials graded, in the oracle's order, each once.
func bugIDs(trialSets ...[]eval.TrialOutput) []string {
	var ids []string
	for _, trials := range trialSets {
		for _, t := range trials {
			if measured(t) {
				for _, b := range t.Bugs {
					if !slices.Contains(ids, b.ID) {
						ids = append(ids, b.ID)
					}
				}
			}
		}
	}
	return ids
}

func measured(t eval.TrialOutput) bool {
	return t.Phase == string(evalv1.TrialSucceeded) && t.EvalError == ""
}

// report is one bug's (bug "": the task's) report over both agents' runs.
func report(task, bug string, oracle, nop agentRuns) bugReport {
	r := bugReport{Task: task, Bug: bug, Regressions: []TestRuns{}, Flaky: []TestRuns{}}
	var ev Evidence
	for _, a := range []agentRuns{oracle, nop} {
		count, regressions, flaky, problems := a.evidence(bug)
		if a.agent == agentkind.Oracle {
			ev.Oracle = count
		} else {
			ev.Nop = count
		}
		ev.Regressions = append(ev.Regressions, regressions...)
		ev.Flaky = append(ev.Flaky, flaky...)
		r.Problems = append(r.Problems, problems...)
	}
	r.Verdict, r.Detail, r.Oracle, r.Nop = Decide(ev), ev.Detail(), ev.Oracle, ev.Nop
	r.Regressions = append(r.Regressions, ev.Regressions...)
	r.Flaky = append(r.Flaky, ev.Flaky...)
	return r
}

// evidence is what one agent's runs showed of the bug (bug "": the task graded whole, resolved
// when its reward is 1): how many resolved it, the visible tests that regressed, the tests
// whose outcome differed between runs, and why runs were not measured.
func (a agentRuns) evidence(bug string) (Count, []TestRuns, []TestRuns, []string) {
	c := Count{Runs: a.runs}
	tests, regressions := outcomeTally{}, regressionTally{}
	var problems []string
	for _, t := range a.trials {
		if !measured(t) {
			problems = append(problems, unmeasured(t, a.agent))
			continue
		}
		resolved, graded := false, true
		switch {
		case bug == "":
			resolved = rewardOf(t) >= 1
			tests.add(SuiteInstance, t.InstanceTests)
		case len(t.Bugs) == 0: // a build that failed grades no bug: none resolved
		default:
			i := slices.IndexFunc(t.Bugs, func(b eval.BugOutput) bool { return b.ID == bug })
			if graded = i >= 0; graded {
				resolved = t.Bugs[i].Resolved
				tests.add(SuiteBug, t.Bugs[i].Tests)
			}
		}
		if !graded {
			problems = append(problems, fmt.Sprintf("%s trial %s graded no bug %s: regrade it", a.agent, t.Name, bug))
			continue
		}
		c.Measured++
		if resolved {
			c.Resolved++
		}
		tests.add(SuiteVisible, t.VisibleTests)
		for _, test := range t.Regressions {
			regressions[test]++
		}
	}
	if missing := a.runs - len(a.trials); missing > 0 {
		problems = append(problems, fmt.Sprintf("%s: %d of %d trials missing", a.agent, missing, a.runs))
	}
	return c, regressions.runs(a.agent), tests.flaky(a.agent), problems
}

// unmeasured says why a trial's result is not a measurement.
func unmeasured(t eval.TrialOutput, agent string) string {
	if t.EvalError != "" {
		return t.EvalError
	}
	return fmt.Sprintf("%s trial %s ended %s (%s)", agent, t.Name, t.Phase, clioptions.OrDash(t.Reason))
}

// rewardOf is the trial's reward; a missing one is 0, as Harbor counts it.
func rewardOf(t eval.TrialOutput) float64 {
	f, _ := strconv.ParseFloat(t.Rewards[reward.KeyReward], 64)
	return f
}

// taskUnion are the tasks of the trial sets, sorted.
func taskUnion(sets ...map[string][]eval.TrialOutput) []string {
	seen := map[string]bool{}
	for _, s := range sets {
		for task := range s {
			seen[task] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// failure is the command's error when a bug is not valid, naming the verdicts and the runs.
func (r validationReport) failure() error {
	counts := map[Verdict]int{}
	bad := 0
	for _, b := range r.Bugs {
		if b.Verdict != Valid {
			counts[b.Verdict]++
			bad++
		}
	}
	if bad == 0 {
		return nil
	}
	var parts []string
	for _, v := range []Verdict{Flaky, Broken, Trivial, Unmeasured} {
		if counts[v] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", v, counts[v]))
		}
	}
	written := "; no exclusion list was written (--exclusions NAME writes one)"
	if r.Exclusions != nil {
		written = fmt.Sprintf("; the exclusion list in configmap %s/%s (key %s) now holds them", r.Namespace, r.Exclusions.ConfigMap, r.Exclusions.Key)
	}
	return fmt.Errorf("%d of %d bugs are not valid (%s)%s: fix the tasks' solutions or hidden tests, or leave the bugs out of campaigns (see `sweep info %s --per-task` and `sweep info %s --per-task`)",
		bad, len(r.Bugs), strings.Join(parts, ", "), written, r.OracleRun, r.NopRun)
}

func writeValidationTable(w io.Writer, r validationReport) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tBUG\tORACLE\tNOP\tREGRESSIONS\tFLAKY\tVERDICT")
	for _, b := range r.Bugs {
		var regressions []string
		for _, t := range b.Regressions {
			regressions = append(regressions, fmt.Sprintf("%s (%s %d)", t.Test, t.Agent, t.Runs))
		}
		verdict := string(b.Verdict)
		if len(b.Problems) > 0 {
			verdict += ": " + strings.Join(b.Problems, "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", b.Task, clioptions.OrDash(b.Bug), b.Oracle, b.Nop,
			clioptions.OrDash(strings.Join(regressions, ", ")), clioptions.OrDash(strings.Join(flakyCells(b.Flaky), ", ")), verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Exclusions != nil {
		fmt.Fprintf(w, "\nwrote %d entries to the exclusion list in configmap %s/%s, key %s\n", r.Exclusions.Entries, r.Namespace, r.Exclusions.ConfigMap, r.Exclusions.Key)
	}
	return nil
}

// flakyCells are the flaky tests with their runs by outcome: "t (oracle: 3 passed, 2 failed)".
func flakyCells(ts []TestRuns) []string {
	var out []string
	for _, t := range ts {
		var counts []string
		for _, outcome := range slices.Sorted(maps.Keys(t.Outcomes)) {
			counts = append(counts, fmt.Sprintf("%d %s", t.Outcomes[outcome], outcome))
		}
		out = append(out, fmt.Sprintf("%s (%s: %s)", t.Test, t.Agent, strings.Join(counts, ", ")))
	}
	return out
}

// exclusionEntries are the non-valid bugs as exclusion entries, the verdict as the reason.
func exclusionEntries(bugs []bugReport) []exclusions.Entry {
	var out []exclusions.Entry
	for _, b := range bugs {
		if b.Verdict.Excluded() {
			out = append(out, exclusions.Entry{Task: b.Task, Bug: b.Bug, Reason: exclusions.Reason(b.Verdict), Detail: b.Detail})
		}
	}
	return out
}

// writeExclusions creates the ConfigMap name holding the report's non-valid bugs, or merges
// them into the list it holds (exclusions.List.Merge: an entry for the same bug is replaced).
// A ConfigMap whose list does not parse is left as it is. It returns the entries written.
func writeExclusions(ctx context.Context, cl client.Client, r validationReport, name string) (int, error) {
	ns, entries := r.Namespace, exclusionEntries(r.Bugs)
	again := fmt.Sprintf("`sweep tasks check --from-runs %s,%s --exclusions %s -n %s`", r.OracleRun, r.NopRun, name, ns)
	fresh := exclusions.List{Schema: exclusions.Schema, Entries: entries}
	cm := &corev1.ConfigMap{}
	err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm)
	switch {
	case apierrors.IsNotFound(err):
		data, err := fresh.Encode()
		if err != nil {
			return 0, err
		}
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{exclusions.ConfigMapKey: string(data)}}
		if err := cl.Create(ctx, cm); err != nil {
			return 0, fmt.Errorf("flag --exclusions: creating configmap %s/%s: %w; the report is complete: write the list later with %s", ns, name, err, again)
		}
		return len(entries), nil
	case err != nil:
		return 0, fmt.Errorf("flag --exclusions: reading configmap %s/%s: %w; the report is complete: write the list later with %s", ns, name, err, again)
	}
	list := exclusions.List{Schema: exclusions.Schema}
	if raw, ok := cm.Data[exclusions.ConfigMapKey]; ok {
		source := fmt.Sprintf("configmap %s/%s", ns, name)
		if list, err = exclusions.Parse(source, []byte(raw)); err != nil {
			return 0, fmt.Errorf("flag --exclusions: %w; nothing was written to it: fix its key %s (`kubectl edit configmap %s -n %s`) or delete it, then write the list with %s",
				err, exclusions.ConfigMapKey, name, ns, again)
		}
	}
	data, err := list.Merge(fresh).Encode()
	if err != nil {
		return 0, err
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[exclusions.ConfigMapKey] = string(data)
	if err := cl.Update(ctx, cm); err != nil {
		return 0, fmt.Errorf("flag --exclusions: updating configmap %s/%s: %w; write the list again with %s", ns, name, err, again)
	}
	return len(entries), nil
}
