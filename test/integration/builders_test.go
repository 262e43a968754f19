package integration

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

const taskTOML = `
name = "%s"
artifacts = ["/logs/artifacts/model.patch"]
[metadata]
n_subtasks = %d
[environment]
workdir = "/repo"
cpus = 1
memory_mb = 256
[agent]
timeout_sec = 60
network_mode = "no-network"
[verifier]
timeout_sec = 60
environment_mode = "separate"
network_mode = "no-network"
[[verifier.collect]]
command = "cd /repo && git add -A && git diff --cached --binary baseline > /logs/artifacts/model.patch"
timeout_sec = 30
`

// taskWrapper builds task ConfigMaps fluently.
type taskWrapper struct{ corev1.ConfigMap }

func makeTask(ns, name string, bugs int) *taskWrapper {
	return &taskWrapper{corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "task-" + name, Namespace: ns,
			Labels: map[string]string{evalv1.LabelTask: name, "suite": "it"},
			Annotations: map[string]string{
				evalv1.AnnotationAgentImage: "tasks/" + name + ":env", evalv1.AnnotationVerifierImage: "tasks/" + name + ":verifier",
				evalv1.AnnotationBugs: strconv.Itoa(bugs), evalv1.AnnotationGrader: "swesweep",
			}},
		Data: map[string]string{evalv1.TaskTOMLKey: fmt.Sprintf(taskTOML, name, bugs), evalv1.InstructionKey: "Fix the bugs."},
	}}
}

func (w *taskWrapper) definition(toml string) *taskWrapper {
	w.Data[evalv1.TaskTOMLKey] = toml
	return w
}

func (w *taskWrapper) grader(name string) *taskWrapper {
	w.Annotations[evalv1.AnnotationGrader] = name
	return w
}

// bugIDs lists the task's bug ids, as the catalogue does for a task with a bundle.
func (w *taskWrapper) bugIDs(ids ...string) *taskWrapper {
	w.Annotations[evalv1.AnnotationBugIDs] = strings.Join(ids, ",")
	return w
}

func (w *taskWrapper) create() *corev1.ConfigMap {
	ExpectWithOffset(1, k8s.Create(context.Background(), &w.ConfigMap)).To(Succeed())
	return &w.ConfigMap
}

// runWrapper builds SweepRuns fluently.
type runWrapper struct{ evalv1.SweepRun }

func makeRun(ns, name string) *runWrapper {
	return &runWrapper{evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: evalv1.SweepRunSpec{
			Tasks:       evalv1.TaskSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"suite": "it"}}},
			Agent:       evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}},
			Attempts:    1,
			Parallelism: 10,
			RetryPolicy: evalv1.RetryPolicy{InfrastructureRetries: 2},
		},
	}}
}

func (w *runWrapper) names(n ...string) *runWrapper {
	w.Spec.Tasks = evalv1.TaskSelection{Names: n}
	return w
}
func (w *runWrapper) attempts(n int32) *runWrapper    { w.Spec.Attempts = n; return w }
func (w *runWrapper) parallelism(n int32) *runWrapper { w.Spec.Parallelism = n; return w }
func (w *runWrapper) ttl(seconds int32) *runWrapper {
	w.Spec.TTLSecondsAfterFinished = &seconds
	return w
}
func (w *runWrapper) maxWallSeconds(n int64) *runWrapper {
	w.budget().MaxWallSeconds = &n
	return w
}
func (w *runWrapper) maxTokens(n int64) *runWrapper {
	w.budget().MaxTokens = &n
	return w
}
func (w *runWrapper) maxCostUSD(dollars string) *runWrapper {
	w.budget().MaxCostUSD = dollars
	return w
}
func (w *runWrapper) budget() *evalv1.BudgetPolicy {
	if w.Spec.Budget == nil {
		w.Spec.Budget = &evalv1.BudgetPolicy{}
	}
	return w.Spec.Budget
}
func (w *runWrapper) guard(n int32) *runWrapper {
	w.Spec.Guard = &evalv1.GuardPolicy{InfrastructureFailures: &n}
	return w
}
func (w *runWrapper) flakeRechecks(n int32) *runWrapper {
	w.Spec.Grading = &evalv1.GradingPolicy{FlakeRechecks: n}
	return w
}
func (w *runWrapper) retries(n int32) *runWrapper {
	w.Spec.RetryPolicy.InfrastructureRetries = n
	return w
}

// bugs gives task a bug subset; no ids is an empty list, not a null one.
func (w *runWrapper) bugs(task string, ids ...string) *runWrapper {
	w.Spec.Tasks.Bugs = map[string][]string{task: append([]string{}, ids...)}
	return w
}

// exclusions applies the exclusion list of ConfigMap name.
func (w *runWrapper) exclusions(name string) *runWrapper {
	w.Spec.Tasks.Exclusions = &evalv1.TaskExclusions{ConfigMapName: name}
	return w
}
func (w *runWrapper) obj() *evalv1.SweepRun { return &w.SweepRun }

func (w *runWrapper) create() *evalv1.SweepRun {
	ExpectWithOffset(1, k8s.Create(context.Background(), &w.SweepRun)).To(Succeed())
	return &w.SweepRun
}

var nsCount int

// newNamespace gives each scenario its own namespace.
func newNamespace() string {
	nsCount++
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("it-%d", nsCount)}}
	ExpectWithOffset(1, k8s.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// exclusionList is an exclusion list's ConfigMap holding entries, encoded as
// `sweep tasks check` writes them.
func exclusionList(ns, name string, entries ...exclusions.Entry) *corev1.ConfigMap {
	data, err := exclusions.List{Entries: entries}.Encode()
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Data: map[string]string{exclusions.ConfigMapKey: string(data)}}
}
