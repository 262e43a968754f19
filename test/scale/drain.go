package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

// scaleTaskTOML is the generated catalogue's task.toml: one artifact (the patch), SWE-sweep's
// grader, bugs bugs.
func scaleTaskTOML(name string, bugs int) string {
	var b strings.Builder
	err := toml.NewEncoder(&b).Encode(map[string]any{
		"name":        name,
		"artifacts":   []string{"/logs/artifacts/model.patch"},
		"metadata":    map[string]any{taskdef.MetadataBugsKey: bugs},
		"environment": map[string]any{"workdir": "/repo", "cpus": 1, "memory_mb": 512},
		"agent":       map[string]any{"timeout_sec": 600, "network_mode": "no-network"},
		"verifier": map[string]any{"timeout_sec": 600, "environment_mode": "separate", "network_mode": "no-network",
			"collect": []map[string]any{{"command": "cd /repo && git add -A && git diff --cached --binary baseline > /logs/artifacts/model.patch", "timeout_sec": 30}}},
	})
	if err != nil {
		panic(err) // a map of strings and numbers always encodes
	}
	return b.String()
}

const (
	scaleSuiteLabel    = "scale.sweep.dev/suite"
	scaleSolution      = "scale-solution"
	baselineTrialLabel = "scale.sweep.dev/baseline-trial"
)

// createCatalogue creates tasks task ConfigMaps (and the one solution ConfigMap they share)
// in ns, as `sweep tasks bundle` lays a catalogue out.
func createCatalogue(ctx context.Context, cl client.Client, ns string, tasks int) error {
	sol := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: scaleSolution, Namespace: ns},
		Data: map[string]string{"solve.sh": "#!/bin/sh\ngit apply /sweep/solution/fix.patch\n", "fix.patch": simulatedOraclePatch}}
	if err := cl.Create(ctx, sol); err != nil {
		return err
	}
	for i := range tasks {
		name := fmt.Sprintf("t%05d", i)
		cm := &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "task-" + name, Namespace: ns,
				Labels: map[string]string{evalv1.LabelTask: name, scaleSuiteLabel: "scale"},
				Annotations: map[string]string{
					evalv1.AnnotationAgentImage: "scale/" + name + ":env", evalv1.AnnotationVerifierImage: "scale/" + name + ":verifier",
					evalv1.AnnotationBugs: strconv.Itoa(simulatedBugs), evalv1.AnnotationGrader: pc.GraderSWESweep,
					evalv1.AnnotationSolution: scaleSolution,
				}},
			Data: map[string]string{evalv1.TaskTOMLKey: scaleTaskTOML(name, simulatedBugs), evalv1.InstructionKey: "Fix the bugs."},
		}
		if err := cl.Create(ctx, cm); err != nil {
			return fmt.Errorf("creating task %s: %w", name, err)
		}
	}
	return nil
}

func newSweepRun(ns, name string, attempts, parallelism int) *evalv1.SweepRun {
	return &evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: evalv1.SweepRunSpec{
			Tasks:       evalv1.TaskSelection{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{scaleSuiteLabel: "scale"}}},
			Agent:       evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}},
			Attempts:    int32(attempts),
			Parallelism: int32(parallelism),
		},
	}
}

// observer watches a namespace's Pods and TaskTrials (as the run's own identity, which the
// audit log leaves out) and records, at the moment each change arrives: the first Pod, each
// verifier Pod's end and each trial's score in status.
type observer struct {
	mu        sync.Mutex
	firstPod  time.Time
	podEnd    map[string]time.Time // trial → its verifier Pod's end
	scored    map[string]time.Time // trial → its score in status
	succeeded map[string]bool
	// jobOfPod is every trial Pod seen, by UID, with its Job's name: kube-controller-manager's
	// garbage collector deletes the Pods of the Jobs the manager deleted, so the watch, not a
	// list at the end, counts the Pods each Job had.
	jobOfPod map[types.UID]string
}

func startObserver(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, ns string) (*observer, error) {
	o := &observer{podEnd: map[string]time.Time{}, scored: map[string]time.Time{}, succeeded: map[string]bool{}, jobOfPod: map[types.UID]string{}}
	onPod := func(obj any, seen time.Time) {
		pod, ok := obj.(*corev1.Pod)
		if !ok {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.firstPod.IsZero() {
			o.firstPod = seen
		}
		trial := pod.Labels[evalv1.LabelTrial]
		if trial == "" {
			return
		}
		o.jobOfPod[pod.UID] = pod.Labels[batchv1.JobNameLabel]
		if pod.Labels[evalv1.LabelStage] == string(pc.StageVerifier) && pod.Status.Phase == corev1.PodSucceeded {
			if _, ended := o.podEnd[trial]; !ended {
				o.podEnd[trial] = seen
			}
		}
	}
	onTrial := func(obj any, seen time.Time) {
		tr, ok := obj.(*evalv1.TaskTrial)
		if !ok {
			return
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		if _, scored := o.scored[tr.Name]; !scored && tr.Status.Score != "" {
			o.scored[tr.Name] = seen
		}
		if tr.Status.Phase == evalv1.TrialSucceeded {
			o.succeeded[tr.Name] = true
		}
	}
	_, err := timing.Watch(ctx, cfg, scheme, ns,
		timing.Handler{Object: &corev1.Pod{}, On: onPod}, timing.Handler{Object: &evalv1.TaskTrial{}, On: onTrial})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// podsPerJob counts the trial Pods seen by their Job's name.
func (o *observer) podsPerJob() map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]int{}
	for _, job := range o.jobOfPod {
		out[job]++
	}
	return out
}

func (o *observer) succeededCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.succeeded)
}

// podEndToScore are, per trial, the seconds from its verifier Pod's end to its score in status.
func (o *observer) podEndToScore() []float64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []float64
	for trial, end := range o.podEnd {
		if s, ok := o.scored[trial]; ok {
			out = append(out, s.Sub(end).Seconds())
		}
	}
	return out
}

// waitComplete waits for the SweepRun's Complete condition, reading only the SweepRun.
func waitComplete(ctx context.Context, cl client.Client, ns, name string, timeout time.Duration, progress func(*evalv1.SweepRun) error) (*evalv1.SweepRun, error) {
	deadline := time.Now().Add(timeout)
	for {
		run := &evalv1.SweepRun{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, run); err != nil {
			return nil, err
		}
		if progress != nil {
			if err := progress(run); err != nil {
				return run, err
			}
		}
		if meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.SweepRunComplete) {
			return run, nil
		}
		if meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.SweepRunFailed) {
			return run, fmt.Errorf("sweeprun %s failed: %v", name, run.Status.Conditions)
		}
		if time.Now().After(deadline) {
			return run, fmt.Errorf("sweeprun %s not complete after %s: %d of %d trials succeeded", name, timeout, run.Status.Trials.Succeeded, run.Status.Trials.Total)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// integrity is the check that no trial was lost or run twice: every (task, attempt) has one
// trial, every trial succeeded, each trial's stages ran one Job each (counted from the
// manager's creates in the audit log, since the manager deletes a Job once harvested), and
// each Job one Pod (its Pods stay: no garbage collector runs here).
type integrity struct {
	Expected  int `json:"expected"`
	Trials    int `json:"trials"`
	Succeeded int `json:"succeeded"`
	Lost      int `json:"lost"`
	RunTwice  int `json:"runTwice"`
	// JobsCreated and PodsCreated are the phase's, all trials together.
	JobsCreated int      `json:"jobsCreated"`
	PodsCreated int      `json:"podsCreated"`
	Problems    []string `json:"problems,omitempty"`
	// trials are the phase's trial names; podsPerJob its Pods by Job name.
	trials     []string
	podsPerJob map[string]int
}

func (in integrity) ok() bool { return in.Lost == 0 && in.RunTwice == 0 }

// checkTrials reads the phase's trials, with the Pods each Job had (podsPerJob, as the
// observer saw them); checkJobs completes the check once the audit log has been read.
func checkTrials(ctx context.Context, cl client.Client, ns string, tasks, attempts int, podsPerJob map[string]int) (*integrity, error) {
	in := &integrity{Expected: tasks * attempts, podsPerJob: podsPerJob}
	trials := &evalv1.TaskTrialList{}
	if err := cl.List(ctx, trials, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	in.Trials = len(trials.Items)
	for _, n := range podsPerJob {
		in.PodsCreated += n
	}
	perAttempt := map[string]int{}
	for _, tr := range trials.Items {
		in.trials = append(in.trials, tr.Name)
		perAttempt[fmt.Sprintf("%s/%d", tr.Spec.Task, tr.Spec.Attempt)]++
		if tr.Status.Phase == evalv1.TrialSucceeded {
			in.Succeeded++
		} else {
			in.Problems = append(in.Problems, fmt.Sprintf("trial %s ended %q (%s: %s)", tr.Name, tr.Status.Phase, tr.Status.Reason, tr.Status.Message))
		}
	}
	for key, n := range perAttempt {
		if n > 1 {
			in.RunTwice++
			in.Problems = append(in.Problems, fmt.Sprintf("task/attempt %s has %d trials", key, n))
		}
	}
	in.Lost = in.Expected - len(perAttempt) + (len(trials.Items) - in.Succeeded)
	return in, nil
}

// maxStageRuns bounds the run numbers checkJobs looks for: far above any retry policy's.
const maxStageRuns = 50

// checkJobs counts the Jobs the manager created (created: Job name → successful creates) per
// trial and stage, and the Pods of each.
func (in *integrity) checkJobs(created map[string]int) {
	for _, trial := range in.trials {
		for _, stage := range []pc.Stage{pc.StageAgent, pc.StageVerifier} {
			var jobs []string
			// Runs count from 1; a stage retried runs again under the next number.
			for run := int32(0); run <= maxStageRuns; run++ {
				if name := podbuild.JobName(trial, stage, run); created[name] > 0 {
					jobs = append(jobs, name)
				}
			}
			in.JobsCreated += len(jobs)
			switch {
			case len(jobs) == 0:
				in.Lost++
				in.Problems = append(in.Problems, fmt.Sprintf("trial %s: no %s Job created", trial, stage))
			case len(jobs) > 1:
				in.RunTwice++
				in.Problems = append(in.Problems, fmt.Sprintf("trial %s: %d %s Jobs (%v)", trial, len(jobs), stage, jobs))
			}
			for _, job := range jobs {
				if n := in.podsPerJob[job]; n != 1 {
					in.RunTwice += min(n-1, 1)
					in.Problems = append(in.Problems, fmt.Sprintf("Job %s has %d Pods", job, n))
				}
			}
		}
	}
	sort.Strings(in.Problems)
	if len(in.Problems) > 20 {
		in.Problems = append(in.Problems[:20], fmt.Sprintf("... and %d more", len(in.Problems)-20))
	}
}

// baselineJob is a plain Job shaped as a trial stage's: the same containers (a native-sidecar
// collector and the main container), requests and labels that kwok's stages match, and
// nothing of the operator.
func baselineJob(ns string, trial int, stage pc.Stage) *batchv1.Job {
	name := fmt.Sprintf("b%05d-%s", trial, stage)
	labels := map[string]string{evalv1.LabelStage: string(stage), baselineTrialLabel: strconv.Itoa(trial)}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To[int32](0),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr.To(false),
					InitContainers: []corev1.Container{
						{Name: podbuild.CollectorContainer, Image: "scale/hook", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
							Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
								corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("32Mi")}}},
					},
					Containers: []corev1.Container{{Name: podbuild.MainContainer(stage), Image: "scale/task",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")}}}},
				},
			},
		},
	}
}

// runBaseline drains n "trials" of two plain Jobs in sequence (agent, then verifier), at most
// parallelism at once, as a controller of its own would: it watches the Jobs and creates the
// next when one completes. It returns when every verifier Job completed.
func runBaseline(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, ns string, n, parallelism int, timeout time.Duration) (firstPod time.Duration, elapsed time.Duration, err error) {
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{ns: {}},
		DefaultTransform: cache.TransformStripManagedFields()})
	if err != nil {
		return 0, 0, err
	}
	completed := make(chan *batchv1.Job, n*2)
	var mu sync.Mutex
	seen := map[string]bool{}
	onJob := func(obj any) {
		job, ok := obj.(*batchv1.Job)
		if !ok {
			return
		}
		for _, cond := range job.Status.Conditions {
			if cond.Type == batchv1.JobComplete && cond.Status == corev1.ConditionTrue {
				mu.Lock()
				fresh := !seen[job.Name]
				seen[job.Name] = true
				mu.Unlock()
				if fresh {
					completed <- job
				}
			}
		}
	}
	jobs, err := c.GetInformer(ctx, &batchv1.Job{})
	if err != nil {
		return 0, 0, err
	}
	if _, err := jobs.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: onJob, UpdateFunc: func(_, o any) { onJob(o) }}); err != nil {
		return 0, 0, err
	}
	var firstPodAt time.Time
	var podOnce sync.Once
	pods, err := c.GetInformer(ctx, &corev1.Pod{})
	if err != nil {
		return 0, 0, err
	}
	if _, err := pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(any) { podOnce.Do(func() { firstPodAt = time.Now() }) }}); err != nil {
		return 0, 0, err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return 0, 0, fmt.Errorf("baseline cache did not sync")
	}
	start := time.Now()
	next := 0
	for ; next < min(parallelism, n); next++ {
		if err := cl.Create(ctx, baselineJob(ns, next, pc.StageAgent)); err != nil {
			return 0, 0, err
		}
	}
	for done := 0; done < n; {
		select {
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("baseline: %d of %d done after %s", done, n, timeout)
		case job := <-completed:
			trial, _ := strconv.Atoi(job.Labels[baselineTrialLabel])
			if job.Labels[evalv1.LabelStage] == string(pc.StageAgent) {
				if err := cl.Create(ctx, baselineJob(ns, trial, pc.StageVerifier)); err != nil {
					return 0, 0, err
				}
				continue
			}
			done++
			if next < n {
				if err := cl.Create(ctx, baselineJob(ns, next, pc.StageAgent)); err != nil {
					return 0, 0, err
				}
				next++
			}
		}
	}
	elapsed = time.Since(start)
	podOnce.Do(func() {})
	return firstPodAt.Sub(start), elapsed, nil
}
