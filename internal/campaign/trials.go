// Package campaign holds the SweepRun controller's pure decisions: which trials a campaign
// has, what each trial's snapshot is, which to create next, and the campaign's status,
// phase, conditions and expiry. Each decision has its own file and table test.
package campaign

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// MaxTrialNameLength leaves room in 63-character names for "-verify-NN" and similar suffixes.
const MaxTrialNameLength = 48

var notNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// TrialName is the deterministic name of a campaign's trial, so that a repeated create is
// harmless. Names that had to be shortened or cleaned get a hash of the original.
func TrialName(run, task string, attempt int32) string {
	return boundedName(run + "-" + task + "-" + strconv.Itoa(int(attempt)))
}

// boundedName is raw as a name of at most MaxTrialNameLength characters.
func boundedName(raw string) string {
	// Most names need nothing done, and the campaign names every trial it plans at each
	// reconcile: those skip the regular expression.
	if isCleanName(raw) {
		return raw
	}
	clean := strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(raw), "-"), "-")
	if clean == raw && len(clean) <= MaxTrialNameLength {
		return clean
	}
	sum := sha256.Sum256([]byte(raw))
	suffix := "-" + hex.EncodeToString(sum[:])[:8]
	if len(clean) > MaxTrialNameLength-len(suffix) {
		clean = strings.TrimRight(clean[:MaxTrialNameLength-len(suffix)], "-")
	}
	return clean + suffix
}

// isCleanName says whether boundedName would return raw unchanged: lower-case letters, digits
// and inner hyphens, at most MaxTrialNameLength of them.
func isCleanName(raw string) bool {
	if raw == "" || len(raw) > MaxTrialNameLength || raw[0] == '-' || raw[len(raw)-1] == '-' {
		return false
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}

// Task is a selected task ConfigMap.
type Task struct {
	Name      string
	ConfigMap *corev1.ConfigMap
	// Bugs are the bugs its trials grade once an exclusion list is applied (ApplyExclusions);
	// nil grades spec.tasks.bugs' subset of it, or all its bugs.
	Bugs []string
}

// SelectTasks picks the task ConfigMaps a selection names, sorted by task name, and reports the
// names it asked for that no ConfigMap carries.
func SelectTasks(sel evalv1.TaskSelection, configMaps []corev1.ConfigMap, matchesSelector func(*corev1.ConfigMap) bool) (tasks []Task, missing []string) {
	byName := map[string]*corev1.ConfigMap{}
	for i := range configMaps {
		cm := &configMaps[i]
		name := cm.Labels[evalv1.LabelTask]
		if name == "" {
			continue
		}
		if prev, dup := byName[name]; !dup || cm.Name < prev.Name {
			byName[name] = cm
		}
	}
	chosen := map[string]bool{}
	for _, n := range sel.Names {
		if _, ok := byName[n]; ok {
			chosen[n] = true
		} else {
			missing = append(missing, n)
		}
	}
	if sel.Selector != nil {
		for n, cm := range byName {
			if matchesSelector(cm) {
				chosen[n] = true
			}
		}
	}
	for n := range chosen {
		tasks = append(tasks, Task{Name: n, ConfigMap: byName[n]})
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].Name < tasks[j].Name })
	sort.Strings(missing)
	return tasks, missing
}

// SelectorMatcher is the test SelectTasks applies for a selection's label selector (none:
// nothing matches it).
func SelectorMatcher(sel *metav1.LabelSelector) (func(*corev1.ConfigMap) bool, error) {
	if sel == nil {
		return func(*corev1.ConfigMap) bool { return false }, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil, fmt.Errorf("spec.tasks.selector: %w", err)
	}
	return func(cm *corev1.ConfigMap) bool { return selector.Matches(labels.Set(cm.Labels)) }, nil
}

// BugCount is the task's bug count from its annotation, else from task.toml, else 0.
func BugCount(cm *corev1.ConfigMap) int32 {
	if n, err := strconv.Atoi(cm.Annotations[evalv1.AnnotationBugs]); err == nil && n >= 0 {
		return int32(n)
	}
	if t, err := taskdef.Parse("task.toml", []byte(cm.Data[evalv1.TaskTOMLKey])); err == nil {
		return int32(t.Bugs)
	}
	return 0
}

// TrialSpec is the snapshot of one trial: the task ConfigMap's definition and images, and the
// run's agent and policies.
func TrialSpec(run *evalv1.SweepRun, task Task, attempt int32) evalv1.TaskTrialSpec {
	cm := task.ConfigMap
	spec := evalv1.TaskTrialSpec{
		SweepRun: run.Name,
		Task:     task.Name,
		Attempt:  attempt,
		Images: evalv1.TrialImages{
			Agent:    cm.Annotations[evalv1.AnnotationAgentImage],
			Verifier: cm.Annotations[evalv1.AnnotationVerifierImage],
		},
		Definition:              cm.Data[evalv1.TaskTOMLKey],
		Grader:                  cm.Annotations[evalv1.AnnotationGrader],
		GraderConfigMap:         cm.Annotations[evalv1.AnnotationGraderConfig],
		Agent:                   *run.Spec.Agent.DeepCopy(),
		BugsTotal:               BugCount(cm),
		RetryPolicy:             run.Spec.RetryPolicy,
		Timeouts:                run.Spec.Timeouts.DeepCopy(),
		Resources:               run.Spec.Resources.DeepCopy(),
		Placement:               *run.Spec.Placement.DeepCopy(),
		PodSecurity:             run.Spec.PodSecurity.DeepCopy(),
		Grading:                 run.Spec.Grading.DeepCopy(),
		QueueName:               run.Spec.QueueName,
		WorkloadPriorityClasses: run.Spec.WorkloadPriorityClasses.DeepCopy(),
	}
	if _, ok := cm.Data[evalv1.InstructionKey]; ok {
		spec.InstructionConfigMap = cm.Name
	}
	if kind, _ := agentkind.Lookup(run.Spec.Agent.Kind()); kind.NeedsSolution {
		spec.SolutionConfigMap = cm.Annotations[evalv1.AnnotationSolution]
	}
	// The trial names the Secret its patch agent reads: the task's own, when it has one.
	if secret := cm.Annotations[evalv1.AnnotationPatchSecret]; spec.Agent.Patch != nil && secret != "" {
		spec.Agent.Patch.SecretName = secret
	}
	// Each bug once, as SWE-sweep's harness takes a subset: BugsTotal bounds n_subtasks.
	bugs := task.Bugs
	if bugs == nil {
		bugs = sweepbundle.Unique(run.Spec.Tasks.Bugs[task.Name])
	}
	if len(bugs) > 0 {
		spec.Bugs = bugs
		spec.BugsTotal = int32(len(bugs))
	}
	return spec
}

// Planned is one trial the campaign has.
type Planned struct {
	Name    string
	Task    Task
	Attempt int32
	// Rerun numbers a rerun of the attempt (RerunName); 0 for its first trial.
	Rerun int32
	// RegradeOf is the trial whose artifacts a regrade rerun grades (spec.regradeOf); empty
	// for a trial that runs its agent.
	RegradeOf string
}

// Spec is the planned trial's snapshot (TrialSpec), a regrade's naming the trial it grades.
func (p Planned) Spec(run *evalv1.SweepRun) evalv1.TaskTrialSpec {
	spec := TrialSpec(run, p.Task, p.Attempt)
	spec.RegradeOf = p.RegradeOf
	return spec
}

// Plan lists every trial of the campaign in creation order: task by task, attempt by attempt.
func Plan(run *evalv1.SweepRun, tasks []Task) []Planned {
	attempts := max(run.Spec.Attempts, 1)
	out := make([]Planned, 0, len(tasks)*int(attempts))
	for _, t := range tasks {
		for a := int32(1); a <= attempts; a++ {
			out = append(out, Planned{Name: TrialName(run.Name, t.Name, a), Task: t, Attempt: a})
		}
	}
	return out
}
