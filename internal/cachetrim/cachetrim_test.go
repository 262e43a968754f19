package cachetrim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

const taskTOML = `
name = "calc"
artifacts = ["/logs/artifacts/model.patch"]
[metadata]
n_subtasks = 3
[environment]
workdir = "/repo"
cpus = 2
memory_mb = 1024
[agent]
timeout_sec = 120
[verifier]
timeout_sec = 60
`

var created = metav1.NewTime(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))

// stageJob is a stage's Job as the manager creates it, with the status the Job controller
// gives it once it ran.
func stageJob(t *testing.T, stage podcontract.Stage, queue string) *batchv1.Job {
	t.Helper()
	task, err := taskdef.Parse("task.toml", []byte(taskTOML))
	if err != nil {
		t.Fatal(err)
	}
	trial := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Name: "run-calc-1", Namespace: "ns"},
		Spec: evalv1.TaskTrialSpec{
			SweepRun: "run", Task: "calc", Attempt: 1, QueueName: queue, Grader: podcontract.GraderSWESweep,
			Images: evalv1.TrialImages{Agent: "tasks/calc:env", Verifier: "tasks/calc:verifier"},
			Agent:  evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}, SolutionConfigMap: "calc-solution",
		},
	}
	timeouts, err := podbuild.StageTimeouts(trial, task)
	if err != nil {
		t.Fatal(err)
	}
	res, err := podbuild.Resources(nil, task.Environment)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := podbuild.StageSpec(trial, task, stage, timeouts)
	if err != nil {
		t.Fatal(err)
	}
	job := podbuild.Job(podbuild.JobInput{Trial: trial, Task: task, Stage: stage, Run: 1, HookImage: "sweep/hook:v1",
		Timeouts: timeouts, Resources: res, StageSpec: spec})
	job.UID, job.ResourceVersion, job.CreationTimestamp = "job-uid", "7", created
	job.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "sweep-operator", Operation: metav1.ManagedFieldsOperationUpdate}}
	job.Status = batchv1.JobStatus{
		StartTime: &created, Active: 1, Ready: ptr.To[int32](1),
		Conditions: []batchv1.JobCondition{{Type: batchv1.JobSuspended, Status: corev1.ConditionFalse}},
	}
	return job
}

// stagePod is the Pod the Job controller makes from job's template, once its containers ended
// and the collector reported.
func stagePod(job *batchv1.Job, summary string) *corev1.Pod {
	tmpl := job.Spec.Template.DeepCopy()
	tmpl.Labels[batchv1.JobNameLabel] = job.Name
	started := metav1.NewTime(created.Add(2 * time.Second))
	ended := metav1.NewTime(created.Add(9 * time.Second))
	status := func(name string, message string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, ImageID: "sha256:" + name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 0, Reason: "Completed", Message: message, StartedAt: started, FinishedAt: ended}}}
	}
	pod := &corev1.Pod{
		ObjectMeta: tmpl.ObjectMeta,
		Spec:       tmpl.Spec,
		Status: corev1.PodStatus{
			Phase:      corev1.PodSucceeded,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}},
		},
	}
	pod.Name, pod.Namespace, pod.UID, pod.CreationTimestamp = job.Name+"-x7k2p", job.Namespace, "pod-uid", created
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}}
	pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate}}
	pod.Spec.NodeName = "node-1"
	for _, c := range pod.Spec.InitContainers {
		msg := ""
		if c.Name == podbuild.CollectorContainer {
			msg = summary
		}
		pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, status(c.Name, msg))
	}
	for _, c := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, status(c.Name, ""))
	}
	return pod
}

// TestTrimmedObjectsObserveTheSame: what the manager concludes from a stage's Job and Pod
// (failure.ObserveJob, Stage.ObservePod) is the same from their trimmed copies.
func TestTrimmedObjectsObserveTheSame(t *testing.T) {
	encoded, err := podcontract.EncodeSummary(podcontract.Summary{Stage: podcontract.StageVerifier, StreamID: "s-1", Done: true,
		Rewards: map[string]float64{"reward": 1}})
	if err != nil {
		t.Fatal(err)
	}
	summary := string(encoded)
	now := created.Add(10 * time.Second)
	cases := map[string]struct {
		stage  podcontract.Stage
		queue  string
		mutate func(*corev1.Pod)
	}{
		"agent, succeeded":                 {stage: podcontract.StageAgent},
		"verifier, succeeded":              {stage: podcontract.StageVerifier},
		"agent in a queue (suspended Job)": {stage: podcontract.StageAgent, queue: "benchmarks"},
		"verifier, main container OOM-killed under a memory limit": {stage: podcontract.StageVerifier, mutate: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodFailed
			for i := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[i].State.Terminated.Reason = "OOMKilled"
				p.Status.ContainerStatuses[i].State.Terminated.ExitCode = 137
			}
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := stageJob(t, tc.stage, tc.queue)
			pod := stagePod(job, summary)
			if tc.mutate != nil {
				tc.mutate(pod)
			}
			want := failure.ObserveJob(tc.stage, job.DeepCopy(), now, time.Minute)
			want.ObservePod(pod.DeepCopy())

			trimmedJob, err := Job(job.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			trimmedPod, err := Pod(pod.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			got := failure.ObserveJob(tc.stage, trimmedJob.(*batchv1.Job), now, time.Minute)
			got.ObservePod(trimmedPod.(*corev1.Pod))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("observation of the trimmed Job and Pod (-full +trimmed):\n%s", diff)
			}
			if want.Summary == nil {
				t.Error("the collector's summary was not read: the case checks nothing of it")
			}
		})
	}
}

// TestTrimKeepsAndDrops lists what a trimmed Job and Pod keep, and checks that the bulk is gone.
func TestTrimKeepsAndDrops(t *testing.T) {
	job := stageJob(t, podcontract.StageVerifier, "benchmarks")
	pod := stagePod(job, "")
	fullJob, fullPod := job.Size(), pod.Size()

	out, err := Job(job.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	j := out.(*batchv1.Job)
	wantJob := batchv1.Job{
		ObjectMeta: *job.ObjectMeta.DeepCopy(),
		Spec: batchv1.JobSpec{
			Suspend: ptr.To(true), ActiveDeadlineSeconds: job.Spec.ActiveDeadlineSeconds, BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: job.Spec.Template.Labels}},
		},
		Status: *job.Status.DeepCopy(),
	}
	wantJob.ManagedFields = nil
	if diff := cmp.Diff(wantJob, *j); diff != "" {
		t.Errorf("trimmed Job (-want +got):\n%s", diff)
	}

	out, err = Pod(pod.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	p := out.(*corev1.Pod)
	if p.ManagedFields != nil {
		t.Error("the Pod's managed fields were kept")
	}
	if _, ok := p.Annotations[podbuild.StageSpecAnnotation]; ok {
		t.Error("the Pod's stage spec annotation was kept")
	}
	if diff := cmp.Diff(pod.Status, p.Status); diff != "" {
		t.Errorf("the Pod's status changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(pod.Labels, p.Labels); diff != "" {
		t.Errorf("the Pod's labels changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(pod.OwnerReferences, p.OwnerReferences); diff != "" {
		t.Errorf("the Pod's owner references changed (-want +got):\n%s", diff)
	}
	type container struct{ Name, Image, Memory string }
	shape := func(cs []corev1.Container) []container {
		var out []container
		for _, c := range cs {
			mem := c.Resources.Limits[corev1.ResourceMemory]
			out = append(out, container{c.Name, c.Image, mem.String()})
		}
		return out
	}
	if diff := cmp.Diff(shape(pod.Spec.InitContainers), shape(p.Spec.InitContainers)); diff != "" {
		t.Errorf("the Pod's init containers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(shape(pod.Spec.Containers), shape(p.Spec.Containers)); diff != "" {
		t.Errorf("the Pod's containers (-want +got):\n%s", diff)
	}
	if p.Spec.NodeName != "node-1" || p.Spec.Volumes != nil || p.Spec.Containers[0].Env != nil || p.Spec.Containers[0].VolumeMounts != nil {
		t.Errorf("the Pod's spec kept more or less than names, images, limits and its node: %+v", p.Spec)
	}
	if _, ok := pod.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]; !ok {
		t.Fatal("the fixture's main container has no memory limit: the case checks nothing of the limits")
	}
	if j.Size()*3 > fullJob || p.Size()*2 > fullPod {
		t.Errorf("trimmed sizes: Job %d of %d bytes, Pod %d of %d: expected at most a third and a half", j.Size(), fullJob, p.Size(), fullPod)
	}
}

func TestOtherObjectsPassUnchanged(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "task-calc", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	for name, trim := range map[string]func(any) (any, error){"Job": Job, "Pod": Pod} {
		out, err := trim(cm)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(cm, out); diff != "" {
			t.Errorf("%s changed a ConfigMap (-want +got):\n%s", name, diff)
		}
	}
}
