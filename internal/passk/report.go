package passk

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

// Units pass@k is computed over.
const (
	// UnitBug: each bug of a task, an attempt succeeding when its eval.json lists the bug
	// resolved and the attempt did not regress.
	UnitBug = "bug"
	// UnitTask: the task itself, an attempt succeeding when it resolved every bug it graded
	// without a regression (reward 1: a SWE-bench instance resolved).
	UnitTask = "task"
)

// Trial is a scoring input with what its verifier said of each bug.
type Trial struct {
	scoring.Trial
	// Source names the trial in notes: its reward.json, or its TaskTrial.
	Source string
	// Subtasks are the bugs its eval.json lists, when NoSubtasks is empty (a failed build
	// lists none). NoSubtasks says why the trial has no per-bug results: its task is then
	// scored per task.
	Subtasks   []sweepbundle.SubtaskOutcome
	NoSubtasks string
}

// Value is pass@k for one k.
type Value struct {
	K int `json:"k"`
	// PassAtK is the mean pass@k of the units with at least k attempts; null when none has.
	PassAtK *float64 `json:"pass_at_k"`
	// Units counts the units it is the mean of; NotComputable those with fewer than k
	// attempts, left out.
	Units         int `json:"units"`
	NotComputable int `json:"not_computable"`
}

// Spread is the per-attempt score's spread: Scores[j] is the score of the j-th counted
// attempts alone (resolved bugs in regression-free trials over the graded bugs of the tasks
// that have a j-th attempt); StdDev is the population standard deviation.
type Spread struct {
	Scores []float64 `json:"scores"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	StdDev float64   `json:"stddev"`
}

// UnitResult is one unit's successes over its task's attempts.
type UnitResult struct {
	ID        string `json:"id"`
	Successes int    `json:"successes"`
}

// Task is one task's pass@k.
type Task struct {
	Task string `json:"task"`
	Unit string `json:"unit"`
	// Note says why a task is scored per task.
	Note     string       `json:"note,omitempty"`
	Attempts int          `json:"attempts"`
	Units    []UnitResult `json:"units"`
	PassAtK  []Value      `json:"pass_at_k"`
	Spread   Spread       `json:"spread"`
}

// Report is pass@k of a campaign: over every unit of every task, each unit weighing one, so
// that pass@1 over bugs is the score when every trial lists its bugs.
type Report struct {
	K       []int   `json:"k"`
	PassAtK []Value `json:"summary"`
	Spread  Spread  `json:"spread"`
	// UnevenAttempts is set when tasks have different numbers of counted attempts: a later
	// attempt's score is then over fewer tasks.
	UnevenAttempts bool   `json:"uneven_attempts"`
	Tasks          []Task `json:"tasks"`
}

// unlisted names the bugs a task's n_subtasks counts beyond those its trials list by id (a
// build failure lists none): never resolved.
func unlisted(i int) string { return fmt.Sprintf("(unlisted %d)", i) }

// Compute is pass@k for each of ks over the counted trials (scoring.Counted), in their order:
// the j-th counted trial of a task is its attempt j.
func Compute(trials []Trial, ks []int) Report {
	type attempt struct {
		counted  int // resolved bugs, 0 when regressed
		bugs     int
		complete bool // every bug it graded resolved, no regression
		resolved map[string]bool
	}
	type acc struct {
		attempts []attempt
		ids      map[string]bool
		maxBugs  int
		note     string
	}
	byTask := map[string]*acc{}
	var names []string
	subtasks := map[string]int{}
	for _, st := range scoring.Score(scoringTrials(trials)).Tasks {
		subtasks[st.Task] = st.Subtasks
	}
	for _, t := range trials {
		o, ok := scoring.Counted(t.Trial)
		if !ok {
			continue
		}
		a := byTask[t.Task]
		if a == nil {
			a = &acc{ids: map[string]bool{}}
			byTask[t.Task] = a
			names = append(names, t.Task)
		}
		resolved := int(o.Resolved)
		at := attempt{bugs: o.Bugs, complete: !o.Regressed && o.Bugs >= 1 && resolved >= o.Bugs, resolved: map[string]bool{}}
		if !o.Regressed {
			at.counted = resolved
		}
		a.maxBugs = max(a.maxBugs, o.Bugs)
		if a.note == "" {
			a.note = perBugProblem(t, o.Bugs, resolved)
		}
		for _, s := range t.Subtasks {
			a.ids[s.ID] = true
			if s.Resolved && !o.Regressed {
				at.resolved[s.ID] = true
			}
		}
		a.attempts = append(a.attempts, at)
	}
	sort.Strings(names)
	ks = slices.Compact(slices.Sorted(slices.Values(ks)))
	rep := Report{K: ks}
	successes := map[int][]int{} // attempts → the successes of each unit with that many
	maxAttempts, minAttempts := 0, math.MaxInt
	for _, name := range names {
		a := byTask[name]
		n := len(a.attempts)
		maxAttempts, minAttempts = max(maxAttempts, n), min(minAttempts, n)
		task := Task{Task: name, Unit: UnitBug, Attempts: n, Units: []UnitResult{}}
		if a.note != "" {
			task.Unit, task.Note = UnitTask, a.note
			c := 0
			for _, at := range a.attempts {
				if at.complete {
					c++
				}
			}
			task.Units = append(task.Units, UnitResult{ID: name, Successes: c})
		} else {
			ids := slices.Sorted(func(yield func(string) bool) {
				for id := range a.ids {
					if !yield(id) {
						return
					}
				}
			})
			for i := 1; i <= a.maxBugs-len(a.ids); i++ {
				ids = append(ids, unlisted(i))
			}
			for _, id := range ids {
				c := 0
				for _, at := range a.attempts {
					if at.resolved[id] {
						c++
					}
				}
				task.Units = append(task.Units, UnitResult{ID: id, Successes: c})
			}
		}
		var cs []int
		for _, u := range task.Units {
			cs = append(cs, u.Successes)
		}
		successes[n] = append(successes[n], cs...)
		task.PassAtK = values(map[int][]int{n: cs}, ks)
		scores := make([]float64, n)
		for j, at := range a.attempts {
			scores[j] = ratio(at.counted, subtasks[name])
		}
		task.Spread = spreadOf(scores)
		rep.Tasks = append(rep.Tasks, task)
	}
	rep.PassAtK = values(successes, ks)
	rep.UnevenAttempts = len(names) > 0 && minAttempts != maxAttempts
	scores := make([]float64, maxAttempts)
	for j := range maxAttempts {
		resolved, bugs := 0, 0
		for _, name := range names {
			if a := byTask[name]; j < len(a.attempts) {
				resolved += a.attempts[j].counted
				bugs += subtasks[name]
			}
		}
		scores[j] = ratio(resolved, bugs)
	}
	rep.Spread = spreadOf(scores)
	return rep
}

// perBugProblem says why a trial's per-bug results cannot stand for its bugs; empty when they
// can.
func perBugProblem(t Trial, bugs, resolved int) string {
	if t.NoSubtasks != "" {
		return t.Source + ": " + t.NoSubtasks
	}
	if len(t.Subtasks) > bugs {
		return fmt.Sprintf("%s: eval.json lists %d subtasks, reward.json's n_subtasks is %d", t.Source, len(t.Subtasks), bugs)
	}
	listed, seen := 0, map[string]bool{}
	for _, s := range t.Subtasks {
		if seen[s.ID] {
			return fmt.Sprintf("%s: eval.json lists subtask %q twice", t.Source, s.ID)
		}
		seen[s.ID] = true
		if s.Resolved {
			listed++
		}
	}
	if listed != resolved {
		return fmt.Sprintf("%s: eval.json lists %d subtasks resolved, reward.json's n_resolved is %d", t.Source, listed, resolved)
	}
	return ""
}

func scoringTrials(trials []Trial) []scoring.Trial {
	out := make([]scoring.Trial, len(trials))
	for i, t := range trials {
		out[i] = t.Trial
	}
	return out
}

// ratio is a/b, 0 when b is 0, as the score is for no graded bug.
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// values is pass@k for each k over units grouped by their number of attempts, in the order of
// the groups' attempts so that sums do not depend on map order.
func values(byAttempts map[int][]int, ks []int) []Value {
	ns := slices.Sorted(func(yield func(int) bool) {
		for n := range byAttempts {
			if !yield(n) {
				return
			}
		}
	})
	out := make([]Value, 0, len(ks))
	for _, k := range ks {
		v := Value{K: k}
		sum := 0.0
		for _, n := range ns {
			for _, c := range byAttempts[n] {
				p, ok := Estimate(n, c, k)
				if !ok {
					v.NotComputable++
					continue
				}
				v.Units++
				sum += p
			}
		}
		if v.Units > 0 {
			mean := sum / float64(v.Units)
			v.PassAtK = &mean
		}
		out = append(out, v)
	}
	return out
}

func spreadOf(scores []float64) Spread {
	s := Spread{Scores: scores}
	if len(scores) == 0 {
		s.Scores = []float64{}
		return s
	}
	s.Min, s.Max = slices.Min(scores), slices.Max(scores)
	mean := 0.0
	for _, x := range scores {
		mean += x
	}
	mean /= float64(len(scores))
	variance := 0.0
	for _, x := range scores {
		variance += (x - mean) * (x - mean)
	}
	s.StdDev = math.Sqrt(variance / float64(len(scores)))
	return s
}
