package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
)

// ExclusionsProblem is why a campaign's exclusion list cannot be applied: the campaign waits,
// creating no trial, until the ConfigMap is fixed.
type ExclusionsProblem struct {
	Reason, Message string
}

// ExclusionsRecheck is how often a campaign held by its exclusion list reads it again: the
// manager caches and watches only task ConfigMaps, so fixing the list wakes nothing.
const ExclusionsRecheck = 5 * time.Second

// Decision is the phase and conditions of campaign run while its list cannot be applied:
// Pending, reading it again after ExclusionsRecheck.
func (p *ExclusionsProblem) Decision(run *evalv1.SweepRun) Decision {
	return Decision{Phase: evalv1.SweepRunPending, WaitForTasks: true, Set: []metav1.Condition{{
		Type: evalv1.SweepRunProgressing, Status: metav1.ConditionFalse, Reason: p.Reason, ObservedGeneration: run.Generation,
		Message: fmt.Sprintf("sweeprun %s/%s: %s", run.Namespace, run.Name, p.Message),
	}}}
}

// ExclusionsSnapshotName is the name of the immutable copy of run's exclusion list, which the
// SweepRun owns.
func ExclusionsSnapshotName(run string) string { return boundedName(run + "-exclusions") }

// ExclusionsSource names a list's ConfigMap in messages and in Parse's errors.
func ExclusionsSource(namespace, name string) string {
	return fmt.Sprintf("configmap %s/%s", namespace, name)
}

// ReadExclusions reads the list in cm (nil: not found), which spec.tasks.exclusions of a
// SweepRun in namespace names, and the digest of its bytes.
func ReadExclusions(namespace, name string, cm *corev1.ConfigMap) (list exclusions.List, digest string, problem *ExclusionsProblem) {
	source := ExclusionsSource(namespace, name)
	field := "spec.tasks.exclusions.configMapName"
	if cm == nil {
		return exclusions.List{}, "", &ExclusionsProblem{Reason: reasons.ExclusionsNotFound, Message: fmt.Sprintf(
			"%s names %s, which does not exist: apply the exclusion list (key %s) to namespace %s, or create a SweepRun without it",
			field, source, exclusions.ConfigMapKey, namespace)}
	}
	data, ok := cm.Data[exclusions.ConfigMapKey]
	if !ok {
		return exclusions.List{}, "", &ExclusionsProblem{Reason: reasons.ExclusionsNotFound, Message: fmt.Sprintf(
			"%s has no key %s (keys: %s): put the exclusion list under key %s", source, exclusions.ConfigMapKey, keysOf(cm), exclusions.ConfigMapKey)}
	}
	list, err := exclusions.Parse(source, []byte(data))
	if err != nil {
		return exclusions.List{}, "", &ExclusionsProblem{Reason: reasons.InvalidExclusions, Message: fmt.Sprintf(
			"%v; fix key %s of the ConfigMap (`sweep tasks check --repeat N` writes a valid list)", err, exclusions.ConfigMapKey)}
	}
	sum := sha256.Sum256([]byte(data))
	return list, hex.EncodeToString(sum[:]), nil
}

func keysOf(cm *corev1.ConfigMap) string {
	keys := make([]string, 0, len(cm.Data)+len(cm.BinaryData))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	for k := range cm.BinaryData {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return orNone(strings.Join(keys, ", "))
}

// ApplyExclusions applies list to the selected tasks, whose bug subsets are asked
// (spec.tasks.bugs): it returns the tasks left, each with the bugs it grades (Task.Bugs), and
// what was left out, counted for status.exclusions (its ConfigMap, snapshot and digest are the
// caller's). Entries for tasks not selected, or bugs not asked for, do not apply. A bug entry
// for a selected task whose ConfigMap lists no bug ids (AnnotationBugIDs) cannot be applied
// unless the campaign grades a subset of it: that is a problem, never silently ignored.
func ApplyExclusions(list exclusions.List, tasks []Task, asked map[string][]string) ([]Task, evalv1.ExclusionsStatus, *ExclusionsProblem) {
	var st evalv1.ExclusionsStatus
	byReason := map[exclusions.Reason]*evalv1.ExclusionCount{}
	count := func(r exclusions.Reason) *evalv1.ExclusionCount {
		if byReason[r] == nil {
			byReason[r] = &evalv1.ExclusionCount{Reason: string(r)}
		}
		return byReason[r]
	}
	var problems []string
	left := make([]Task, 0, len(tasks))
	for _, t := range tasks {
		subset := sweepbundle.Unique(asked[t.Name])
		ids := BugIDs(t.ConfigMap)
		a := list.Apply(t.Name, ids, subset)
		if !a.WholeTask && len(ids) == 0 && len(subset) == 0 && hasBugEntries(list, t.Name) {
			problems = append(problems, fmt.Sprintf("the list excludes bugs of task %s, but its configmap %s lists no bug ids (annotation %s), so they cannot be left out: bundle the catalogue again with `sweep tasks bundle`, or exclude the whole task (an entry without bug)",
				t.Name, t.ConfigMap.Name, evalv1.AnnotationBugIDs))
			continue
		}
		if !a.WholeTask {
			st.BugsExcluded += int32(len(a.Excluded))
			for _, e := range a.Excluded {
				count(e.Reason).Bugs++
			}
			t.Bugs = a.Bugs
			left = append(left, t)
			continue
		}
		st.TasksExcluded++
		graded := int32(len(subset))
		if graded == 0 {
			graded = BugCount(t.ConfigMap)
		}
		st.BugsExcluded += graded
		if len(a.Excluded) == 1 && a.Excluded[0].Bug == "" {
			c := count(a.Excluded[0].Reason)
			c.Tasks++
			c.Bugs += graded
			continue
		}
		for _, e := range a.Excluded {
			count(e.Reason).Bugs++
		}
		count(mostCommonReason(a.Excluded)).Tasks++
	}
	if len(problems) > 0 {
		return nil, evalv1.ExclusionsStatus{}, &ExclusionsProblem{Reason: reasons.InvalidExclusions, Message: strings.Join(problems, "; ")}
	}
	for _, r := range exclusions.Reasons {
		if c := byReason[r]; c != nil {
			st.ByReason = append(st.ByReason, *c)
		}
	}
	return left, st, nil
}

func hasBugEntries(list exclusions.List, task string) bool {
	return slices.ContainsFunc(list.Entries, func(e exclusions.Entry) bool { return e.Task == task && e.Bug != "" })
}

// mostCommonReason is the reason most entries have, the first of exclusions.Reasons on a tie.
func mostCommonReason(entries []exclusions.Entry) exclusions.Reason {
	n := map[exclusions.Reason]int{}
	for _, e := range entries {
		n[e.Reason]++
	}
	best := exclusions.Reasons[0]
	for _, r := range exclusions.Reasons {
		if n[r] > n[best] {
			best = r
		}
	}
	return best
}
