// Command breakdown measures where one trial's time goes on a real cluster (docs/scale.md,
// "On the local cluster: one trial's time"). It runs SweepRuns of the sample tasks with the
// oracle agent against the operator already deployed there, watches the TaskTrials, Jobs and
// Pods, and from the timestamps the system records and the moments its own watch saw each
// change prints, per step of a trial, the median and p90 over trials, and each trial's
// overhead: its wall time less its two stages' own work. With -floor it also measures the
// grading work on this machine (`sweep-hook grade swesweep`) and compares the campaign's wall
// time with it. It writes the figures as JSON (-out). Nothing is asserted.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

type config struct {
	kubeconfig, namespace string
	tasks                 []string
	attempts, parallelism int
	repeat                int
	cpuRequest            string
	timeout               time.Duration
	floor                 bool
	floorRepeat, cores    int
	hook, tasksDir, out   string
	label                 string
	podsCPU               string
}

func main() {
	var c config
	var tasks string
	var load bool
	flag.StringVar(&c.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "the cluster's kubeconfig (default $KUBECONFIG)")
	flag.StringVar(&c.namespace, "n", "sweep-breakdown", "namespace holding the sample catalogue (hack/breakdown.sh applies it)")
	flag.StringVar(&tasks, "tasks", "sweep-samples__calc-engine,sweep-samples__textkit,sweep-samples__semverlite", "tasks of the campaign (the sample tasks graded by sweep-hook grade swesweep)")
	flag.IntVar(&c.attempts, "attempts", 1, "attempts per task")
	flag.IntVar(&c.parallelism, "parallelism", 1, "the SweepRun's parallelism")
	flag.BoolVar(&load, "load", false, "the campaign of issue 14: 10 attempts, parallelism 10, with -floor")
	flag.IntVar(&c.repeat, "repeat", 1, "SweepRuns to run one after the other (the trials of all are pooled)")
	flag.StringVar(&c.cpuRequest, "cpu-request", "100m", "the main containers' CPU request (resources mode Override), so that -parallelism Pods fit on the node")
	flag.DurationVar(&c.timeout, "timeout", 15*time.Minute, "how long one SweepRun may take")
	flag.BoolVar(&c.floor, "floor", false, "also measure the grading work on this machine and compare the campaign's wall time with it")
	flag.IntVar(&c.floorRepeat, "floor-repeat", 3, "grades per task and mode for -floor (the median is taken)")
	flag.IntVar(&c.cores, "cores", goruntime.NumCPU(), "cores the grading work is divided by")
	flag.StringVar(&c.hook, "hook", "bin/sweep-hook", "the sweep-hook binary -floor runs")
	flag.StringVar(&c.tasksDir, "tasks-dir", "tasks", "the task directories -floor grades")
	flag.StringVar(&c.out, "out", "", "write the figures here as JSON (default .cache/breakdown/<time>.json)")
	flag.StringVar(&c.label, "label", "", "a word saying what was measured (e.g. before, after), kept in the JSON")
	flag.StringVar(&c.podsCPU, "pods-cpuacct", "/sys/fs/cgroup/cpuacct/sweep-k8s/kubepods/cpuacct.usage",
		"the cgroup v1 cpuacct.usage of the node's Pods (hack/cluster.sh's cgroupRoot), read before and after each SweepRun; skipped when unreadable")
	flag.Parse()
	c.tasks = strings.Split(tasks, ",")
	if load {
		c.attempts, c.parallelism, c.floor = 10, 10, true
	}
	if c.out == "" {
		c.out = fmt.Sprintf(".cache/breakdown/%s.json", time.Now().UTC().Format("20060102-150405"))
	}
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "breakdown:", err)
		os.Exit(1)
	}
}

// campaign is one SweepRun as measured.
type campaign struct {
	Name   string `json:"name"`
	Trials int    `json:"trials"`
	// Wall is the SweepRun created → its last trial's score in status, by the watch's clock;
	// ToComplete to its Complete condition.
	Wall       float64 `json:"wallSeconds"`
	ToComplete float64 `json:"toCompleteSeconds"`
	// PodsCPU is the CPU time every Pod of the node used meanwhile (the trials' and the
	// manager's), from the Pods' cgroup; 0 when it could not be read.
	PodsCPU float64 `json:"podsCPUSeconds,omitempty"`
	// Load is /proc/loadavg when the SweepRun was created and when it ended.
	Load [2]string `json:"loadavg"`
	// Outcomes counts the trials by phase, reason and score.
	Outcomes map[string]int `json:"outcomes"`
}

type report struct {
	Date        string         `json:"date"`
	Label       string         `json:"label,omitempty"`
	Machine     string         `json:"machine"`
	Tasks       []string       `json:"tasks"`
	Attempts    int            `json:"attempts"`
	Parallelism int            `json:"parallelism"`
	CPURequest  string         `json:"cpuRequest"`
	Campaigns   []campaign     `json:"campaigns"`
	Seen        []step         `json:"seenSteps"`
	Apart       []step         `json:"apartSteps"`
	Recorded    []step         `json:"recordedSteps"`
	Wall        timing.Dist    `json:"trialWallSeconds"`
	Work        timing.Dist    `json:"trialWorkSeconds"`
	Overhead    timing.Dist    `json:"trialOverheadSeconds"`
	Trials      []trialFigures `json:"trials"`
	Floor       *floor         `json:"floor,omitempty"`
}

// floor compares the campaigns' wall time with the grading work they hold.
type floor struct {
	Cores int        `json:"cores"`
	Runs  []floorRun `json:"runs"`
	// ByMode: the grading work of all the campaigns' trials, in CPU-seconds; its time at
	// Cores cores; the mean campaign wall time over that.
	ByMode map[string]floorFigure `json:"byMode"`
}

type floorFigure struct {
	CPUSeconds  float64 `json:"cpuSeconds"`
	FloorWall   float64 `json:"floorSeconds"`
	WallToFloor float64 `json:"wallToFloor"`
	// PodsCPUToFloor is the mean campaign's Pods' CPU time over CPUSeconds.
	PodsCPUToFloor float64 `json:"podsCPUToFloor,omitempty"`
}

func run(ctx context.Context, c config) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
	if err != nil {
		return fmt.Errorf("kubeconfig %q: %w (set -kubeconfig or KUBECONFIG, e.g. .cache/cluster/kubeconfig)", c.kubeconfig, err)
	}
	scheme := evalv1.NewScheme()
	cl, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	for _, task := range c.tasks {
		cms := &corev1.ConfigMapList{}
		if err := cl.List(ctx, cms, client.InNamespace(c.namespace), client.MatchingLabels{evalv1.LabelTask: task}); err != nil {
			return err
		}
		if len(cms.Items) == 0 {
			return fmt.Errorf("namespace %s has no task %s: apply the sample catalogue there (bin/k8s/kubectl apply -k .cache/demo/catalogue -n %s, as hack/breakdown.sh does)", c.namespace, task, c.namespace)
		}
	}
	obs, err := startObserver(ctx, cfg, scheme, c.namespace)
	if err != nil {
		return err
	}
	rep := report{Date: time.Now().UTC().Format(time.RFC3339), Label: c.label, Machine: machine(), Tasks: c.tasks,
		Attempts: c.attempts, Parallelism: c.parallelism, CPURequest: c.cpuRequest}
	var trials []trialSeen
	for i := range c.repeat {
		name := fmt.Sprintf("breakdown-%d-%d", time.Now().Unix(), i)
		fmt.Printf("SweepRun %s: %d tasks x %d attempts, parallelism %d\n", name, len(c.tasks), c.attempts, c.parallelism)
		got, camp, err := runCampaign(ctx, c, cl, obs, name)
		if err != nil {
			return err
		}
		fmt.Printf("  %d trials, %.1f s to the last score\n", camp.Trials, camp.Wall)
		rep.Campaigns = append(rep.Campaigns, camp)
		trials = append(trials, got...)
	}
	rep.Seen, rep.Apart, rep.Recorded = seenSteps(trials), apartSteps(trials), recordedSteps(trials)
	var walls, works, overheads []float64
	for i := range trials {
		if f, ok := figuresOf(&trials[i]); ok {
			rep.Trials = append(rep.Trials, f)
			walls, works, overheads = append(walls, f.Wall), append(works, f.Work), append(overheads, f.Overhead)
		}
	}
	rep.Wall, rep.Work, rep.Overhead = timing.Distribution(walls), timing.Distribution(works), timing.Distribution(overheads)
	if c.floor {
		if rep.Floor, err = measureFloor(c, rep.Campaigns); err != nil {
			return err
		}
	}
	printReport(os.Stdout, rep)
	if err := os.MkdirAll(dirOf(c.out), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	fmt.Printf("\nfigures: %s\n", c.out)
	return os.WriteFile(c.out, b, 0o644)
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return "."
}

func machine() string {
	return fmt.Sprintf("%d cores, %s, load %s", goruntime.NumCPU(), goruntime.Version(), loadavg())
}

// loadavg is the machine's load average over 1, 5 and 15 minutes.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// cpuacct reads a cgroup v1 cpuacct.usage (nanoseconds).
func cpuacct(path string) (time.Duration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return time.Duration(ns), err
}

func newSweepRun(c config, ns, name string) *evalv1.SweepRun {
	return &evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: evalv1.SweepRunSpec{
			Tasks:       evalv1.TaskSelection{Names: c.tasks},
			Agent:       evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}},
			Attempts:    int32(c.attempts),
			Parallelism: int32(c.parallelism),
			Resources: &evalv1.ResourcePolicy{Mode: evalv1.ResourcesOverride, Override: &corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.cpuRequest), corev1.ResourceMemory: resource.MustParse("256Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")},
			}},
		},
	}
}

// runCampaign creates the SweepRun, waits until every trial is scored and the SweepRun
// complete, takes the trials as seen, then deletes the SweepRun and waits for its trials and
// Pods to be gone, so that the next one starts on an idle node.
func runCampaign(ctx context.Context, c config, cl client.Client, obs *observer, name string) ([]trialSeen, campaign, error) {
	want := len(c.tasks) * c.attempts
	camp := campaign{Name: name}
	camp.Load[0] = loadavg()
	cpuBefore, cpuErr := cpuacct(c.podsCPU)
	if err := cl.Create(ctx, newSweepRun(c, c.namespace, name)); err != nil {
		return nil, camp, err
	}
	deadline := time.Now().Add(c.timeout)
	var trials []trialSeen
	for {
		run := &evalv1.SweepRun{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: c.namespace, Name: name}, run); err != nil {
			return nil, camp, err
		}
		if meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.SweepRunFailed) {
			return nil, camp, fmt.Errorf("sweeprun %s failed: %v", name, run.Status.Conditions)
		}
		trials = obs.snapshot(name)
		ended := 0
		for _, t := range trials {
			if t.last.Status.Phase.Finished() {
				ended++
			}
		}
		if ended == want && meta.IsStatusConditionTrue(run.Status.Conditions, evalv1.SweepRunComplete) {
			break
		}
		if time.Now().After(deadline) {
			return nil, camp, fmt.Errorf("sweeprun %s: %d of %d trials ended after %s", name, ended, want, c.timeout)
		}
		select {
		case <-ctx.Done():
			return nil, camp, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	camp.Load[1] = loadavg()
	if cpuAfter, err := cpuacct(c.podsCPU); err == nil && cpuErr == nil {
		camp.PodsCPU = (cpuAfter - cpuBefore).Seconds()
	}
	// The last copies of the Jobs and Pods: the manager deletes them once the trial ended,
	// and their final status may arrive just before.
	time.Sleep(time.Second)
	trials = obs.snapshot(name)
	obs.mu.Lock()
	created, complete := obs.runCreated[name], obs.runComplete[name]
	obs.mu.Unlock()
	var last time.Time
	for _, t := range trials {
		if t.Scored.After(last) {
			last = t.Scored
		}
	}
	camp.Trials, camp.Wall, camp.ToComplete = len(trials), last.Sub(created).Seconds(), complete.Sub(created).Seconds()
	// The oracle resolves every bug: a trial that did not score 1 ended on something else,
	// which the figures should be read with (a loaded machine can make tests look hung).
	camp.Outcomes = map[string]int{}
	for _, t := range trials {
		st := t.last.Status
		camp.Outcomes[fmt.Sprintf("%s %s score %s", st.Phase, st.Reason, st.Score)]++
	}
	if err := cl.Delete(ctx, &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: name}}); err != nil {
		return nil, camp, err
	}
	return trials, camp, waitGone(ctx, cl, c.namespace, name)
}

// waitGone waits until the SweepRun's trials and their Pods are gone.
func waitGone(ctx context.Context, cl client.Client, ns, run string) error {
	ofRun := client.MatchingLabels{evalv1.LabelSweepRun: run}
	for range 300 {
		trials, pods := &evalv1.TaskTrialList{}, &corev1.PodList{}
		if err := cl.List(ctx, trials, client.InNamespace(ns), ofRun); err != nil {
			return err
		}
		if err := cl.List(ctx, pods, client.InNamespace(ns), ofRun); err != nil {
			return err
		}
		if len(trials.Items) == 0 && len(pods.Items) == 0 {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("namespace %s still holds trials or Pods of SweepRun %s a minute after it was deleted", ns, run)
}

// measureFloor grades each task on this machine and compares the campaigns' mean wall time
// with the grading work of their trials at c.cores cores.
func measureFloor(c config, camps []campaign) (*floor, error) {
	f := &floor{Cores: c.cores, ByMode: map[string]floorFigure{}}
	for _, task := range c.tasks {
		dirName := task[strings.LastIndex(task, "__")+len("__"):]
		runs, err := gradingFloor(c.hook, c.tasksDir, dirName, c.floorRepeat)
		if err != nil {
			return nil, err
		}
		f.Runs = append(f.Runs, runs...)
	}
	var wall, podsCPU float64
	for _, camp := range camps {
		wall += camp.Wall
		podsCPU += camp.PodsCPU
	}
	wall /= float64(len(camps))
	podsCPU /= float64(len(camps))
	for _, mode := range []string{"oracle", "patch"} {
		var cpu float64
		for _, r := range f.Runs {
			if r.Mode == mode {
				cpu += r.CPUSeconds * float64(c.attempts)
			}
		}
		fl := cpu / float64(c.cores)
		f.ByMode[mode] = floorFigure{CPUSeconds: cpu, FloorWall: fl, WallToFloor: wall / fl, PodsCPUToFloor: podsCPU / cpu}
	}
	return f, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
