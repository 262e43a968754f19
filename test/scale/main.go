// Command scale drains N trials through the real manager on simulated nodes and measures it
// against a baseline of plain Jobs (docs/scale.md). It starts etcd and kube-apiserver
// (envtest's, on free loopback ports, never 6443), the real kube-controller-manager (its Job
// controller only) and kube-scheduler, kwok (hack/kwok.sh) with Stages that run every Pod
// through its lifecycle, and the manager built from this tree as a process. kwok runs no
// containers: the collector's termination message is the SIMULATED collector's
// (simulatedCollector), what the real one reports for a passing oracle trial.
//
// It prints a table, writes scale.json in the run directory and exits non-zero only when a
// trial was lost or run twice (or the run could not be made): the figures are never asserted.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/test/internal/timing"
)

// profile is one set of client rate flags for every component.
type profile struct {
	Name string `json:"name"`
	// Flags are each component's flags, as given.
	Manager           []string `json:"manager"`
	ControllerManager []string `json:"kubeControllerManager"`
	Scheduler         []string `json:"kubeScheduler"`
	// BaselineQPS and BaselineBurst are the baseline driver's client's, the manager's own.
	BaselineQPS   float32 `json:"baselineQPS"`
	BaselineBurst int     `json:"baselineBurst"`
}

var profiles = map[string]profile{
	// Every component's own default: the manager's --kube-api-qps=100 --kube-api-burst=200,
	// kube-controller-manager's 20/30, kube-scheduler's 50/100.
	"default": {Name: "default", BaselineQPS: 100, BaselineBurst: 200},
	"raised": {Name: "raised",
		Manager:           []string{"--kube-api-qps=1000", "--kube-api-burst=2000"},
		ControllerManager: []string{"--kube-api-qps=1000", "--kube-api-burst=2000"},
		Scheduler:         []string{"--kube-api-qps=1000", "--kube-api-burst=2000"},
		BaselineQPS:       1000, BaselineBurst: 2000},
}

type config struct {
	root, dir                string
	n, attempts, parallelism int
	nodes                    int
	startMillis, runMillis   int
	profiles                 []string
	restartN                 int
	timeout                  time.Duration
	kwok, sweepBefore        string
	managerBin, sweepBin     string
	trialConcurrency         int
	noBaseline               bool
	cliTrials                int
	cliFollow                time.Duration
}

func main() {
	serveLaunch()
	var c config
	var profileList string
	flag.IntVar(&c.n, "n", 1000, "trials to drain in each phase (0: the restart phase alone)")
	flag.IntVar(&c.attempts, "attempts", 10, "attempts per task (the catalogue has n/attempts tasks)")
	flag.IntVar(&c.parallelism, "parallelism", 500, "the SweepRun's parallelism, and the baseline's")
	flag.IntVar(&c.nodes, "nodes", 10, "simulated nodes")
	flag.IntVar(&c.startMillis, "pod-start-ms", 100, "simulated time from a Pod's binding to its containers running")
	flag.IntVar(&c.runMillis, "pod-run-ms", 500, "simulated time the stage's main container runs")
	flag.StringVar(&profileList, "profiles", "default,raised", "client rate profiles to measure (default, raised)")
	flag.IntVar(&c.restartN, "restart-n", -1, "trials of the restart phase, the manager killed half-way (0 skips it; -1: n)")
	flag.IntVar(&c.cliTrials, "cli-trials", 0, "measure only `sweep watch` and `sweep info` on a campaign of this many trials, written as the controller leaves them (no drain)")
	flag.DurationVar(&c.cliFollow, "cli-follow", time.Minute, "with -cli-trials, how long `sweep watch` follows the running campaign")
	flag.BoolVar(&c.noBaseline, "no-baseline", false, "skip the baseline phases (no ratio is reported)")
	flag.IntVar(&c.trialConcurrency, "trial-concurrency", 0, "the manager's --trial-concurrency (0: its default)")
	flag.DurationVar(&c.timeout, "timeout", 2*time.Hour, "how long one phase may take")
	flag.StringVar(&c.dir, "dir", "", "run directory (default .cache/scale/<time>)")
	flag.StringVar(&c.kwok, "kwok", "", "the kwok binary (hack/kwok.sh prints it)")
	flag.StringVar(&c.sweepBefore, "sweep-before", "", "an older sweep CLI to measure `sweep watch` and `sweep info` with too")
	flag.Parse()
	c.profiles = strings.Split(profileList, ",")
	if c.restartN < 0 {
		c.restartN = c.n
	}
	// Quiet controller-runtime's own logging in this program (its caches); the components
	// log to their files in the run directory.
	ctrllog.SetLogger(logr.Discard())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// phaseResult is one drain.
type phaseResult struct {
	Kind            string                `json:"kind"` // baseline | sweep | restart
	Profile         string                `json:"profile"`
	Trials          int                   `json:"trials"`
	Seconds         float64               `json:"seconds"`
	TrialsPerSecond float64               `json:"trialsPerSecond"`
	FirstPodSeconds float64               `json:"firstPodSeconds"`
	Requests        *requestCounts        `json:"requests,omitempty"`
	Manager         *procUsage            `json:"manager,omitempty"`
	CPUPerTrial     map[string]float64    `json:"cpuSecondsPerTrialByProcess,omitempty"` // processCPU over the phase
	Reconcile       map[string]latency    `json:"reconcileSeconds,omitempty"`
	PodEndToScore   *timing.Dist          `json:"podEndToScoreSeconds,omitempty"`
	Integrity       *integrity            `json:"integrity,omitempty"`
	ResumeSeconds   float64               `json:"resumeSeconds,omitempty"`
	ReadySeconds    float64               `json:"managerReadySeconds,omitempty"`
	KilledAt        int                   `json:"killedAtSucceeded,omitempty"`
	CLI             map[string]*cliResult `json:"cli,omitempty"`
	user            string
	followed        bool
}

// setCPU reads the processes' CPU at the phase's end and keeps what each used over the phase,
// a trial; killedManager is the CPU of a manager killed within it, which is no longer there.
func (ph *phaseResult) setCPU(before map[string]float64, killedManager float64) error {
	after, err := processCPU()
	if err != nil {
		return err
	}
	if killedManager > 0 {
		after["manager"] += killedManager
	}
	ph.CPUPerTrial = cpuPerTrial(before, after, ph.Trials)
	return nil
}

type report struct {
	Date        string             `json:"date"`
	Machine     string             `json:"machine"`
	N           int                `json:"n"`
	Attempts    int                `json:"attempts"`
	Parallelism int                `json:"parallelism"`
	Nodes       int                `json:"nodes"`
	PodStartMs  int                `json:"podStartMillis"`
	PodRunMs    int                `json:"podRunMillis"`
	Profiles    []profile          `json:"profiles"`
	Phases      []*phaseResult     `json:"phases"`
	Ratios      map[string]float64 `json:"sweepToBaselineRate"`
}

func run(ctx context.Context, c config) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	c.root = root
	if c.dir == "" {
		c.dir = filepath.Join(root, ".cache", "scale", time.Now().UTC().Format("20060102-150405"))
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	if c.kwok == "" {
		return fmt.Errorf("-kwok: give the kwok binary (bash hack/kwok.sh builds it and prints its path)")
	}
	if c.n%c.attempts != 0 || (c.restartN > 0 && c.restartN%c.attempts != 0) {
		return fmt.Errorf("-n %d and -restart-n %d must be multiples of -attempts %d", c.n, c.restartN, c.attempts)
	}
	if err := buildBinaries(&c); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scale: run directory %s\n", c.dir)
	if c.cliTrials > 0 {
		return runCLIBench(ctx, c, c.cliTrials, c.cliFollow)
	}

	phases, err := planPhases(c)
	if err != nil {
		return err
	}
	audited := cliUsers()
	for _, ph := range phases {
		audited = append(audited, ph.user)
	}
	cp, err := startControlPlane(root, c.dir, audited)
	if err != nil {
		return err
	}
	// The harness's own watches end first: kube-apiserver waits for open requests to end
	// before it stops.
	ctx, endWatches := context.WithCancel(ctx)
	defer func() {
		endWatches()
		if err := cp.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "scale: stopping etcd and kube-apiserver: %v\n", err)
		}
	}()
	harnessCfg, _, err := cp.user("scale-harness")
	if err != nil {
		return err
	}
	harnessCfg.QPS, harnessCfg.Burst = 1000, 2000
	scheme := evalv1.NewScheme()
	cl, err := client.New(harnessCfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	kwok, kcmKubeconfig, schedKubeconfig, err := startNodes(ctx, c, cp, cl)
	if err != nil {
		return err
	}
	defer kwok.stop()
	for i := 0; i < len(phases); i++ {
		ph := phases[i]
		p := profiles[ph.Profile]
		kcm, err := startProcess(c.dir, "kube-controller-manager-"+ph.Kind+"-"+p.Name, filepath.Join(root, "bin", "k8s", "kube-controller-manager"), nil,
			append([]string{"--kubeconfig=" + kcmKubeconfig, "--controllers=job,garbagecollector", "--leader-elect=false", "--secure-port=0"}, p.ControllerManager...)...)
		if err != nil {
			return err
		}
		sched, err := startProcess(c.dir, "kube-scheduler-"+ph.Kind+"-"+p.Name, filepath.Join(root, "bin", "k8s", "kube-scheduler"), nil,
			append([]string{"--kubeconfig=" + schedKubeconfig, "--leader-elect=false", "--secure-port=0"}, p.Scheduler...)...)
		if err != nil {
			kcm.stop()
			return err
		}
		err = runPhase(ctx, c, cp, cl, harnessCfg, scheme, ph, p)
		sched.stop()
		kcm.stop()
		if err != nil {
			return fmt.Errorf("%s phase (%s): %w", ph.Kind, ph.Profile, err)
		}
	}
	// The audit log is written as requests end (the log backend blocks), and watches count
	// at their start, so it is complete while the API server still runs.
	counts, err := countRequests(cp.AuditLog, audited)
	if err != nil {
		return err
	}
	for _, ph := range phases {
		ph.Requests = counts[ph.user]
		if ph.Integrity != nil {
			ph.Integrity.checkJobs(ph.Requests.jobsCreated)
		}
		for _, r := range ph.CLI {
			r.Requests = counts[r.user]
		}
	}
	rep, err := writeReport(c, phases)
	if err != nil {
		return err
	}
	printTable(os.Stdout, rep)
	fmt.Fprintf(os.Stdout, "\nwritten: %s\n", filepath.Join(c.dir, "scale.json"))
	var broken []string
	for _, ph := range phases {
		if ph.Integrity != nil && !ph.Integrity.ok() {
			broken = append(broken, fmt.Sprintf("%s (%s): %d lost, %d run twice: %s", ph.Kind, ph.Profile, ph.Integrity.Lost, ph.Integrity.RunTwice, strings.Join(ph.Integrity.Problems, "; ")))
		}
	}
	if len(broken) > 0 {
		return fmt.Errorf("trials lost or run twice:\n  %s", strings.Join(broken, "\n  "))
	}
	return nil
}

// buildBinaries builds cmd/manager and cmd/sweep of this tree into the run directory.
func buildBinaries(c *config) error {
	bins := filepath.Join(c.dir, "bin")
	for _, cmd := range []string{"manager", "sweep"} {
		build := exec.Command("go", "build", "-o", filepath.Join(bins, cmd), "./cmd/"+cmd)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building cmd/%s: %w", cmd, err)
		}
	}
	c.managerBin, c.sweepBin = filepath.Join(bins, "manager"), filepath.Join(bins, "sweep")
	return nil
}

// planPhases are a baseline and a campaign for each profile, then the restart phase.
func planPhases(c config) ([]*phaseResult, error) {
	var phases []*phaseResult
	for _, p := range c.profiles {
		if _, ok := profiles[p]; !ok {
			return nil, fmt.Errorf("-profiles: no profile %q: give default, raised or both", p)
		}
		if c.n == 0 {
			continue
		}
		if !c.noBaseline {
			phases = append(phases, &phaseResult{Kind: "baseline", Profile: p, Trials: c.n, user: "scale-baseline-" + p})
		}
		phases = append(phases, &phaseResult{Kind: "sweep", Profile: p, Trials: c.n, user: "sweep-manager-" + p})
	}
	if c.restartN > 0 {
		last := c.profiles[len(c.profiles)-1]
		phases = append(phases, &phaseResult{Kind: "restart", Profile: last, Trials: c.restartN, user: "sweep-manager-restart"})
	}
	// The CLI follows the run's last campaign.
	for i := len(phases) - 1; i >= 0; i-- {
		if phases[i].Kind != "baseline" {
			phases[i].followed = true
			break
		}
	}
	return phases, nil
}

// startNodes starts kwok with the simulated collector's Stages, creates its Nodes, and
// makes the identities of kube-controller-manager and kube-scheduler.
func startNodes(ctx context.Context, c config, cp *controlPlane, cl client.Client) (kwok *process, kcmKubeconfig, schedKubeconfig string, err error) {
	sim, err := newSimulatedCollector(filepath.Join(c.dir, "simulated-collector"))
	if err != nil {
		return nil, "", "", err
	}
	stages, err := kwokStages(sim, c.startMillis, c.runMillis)
	if err != nil {
		return nil, "", "", err
	}
	_, kwokKubeconfig, err := cp.user("kwok")
	if err != nil {
		return nil, "", "", err
	}
	kwok, err = startKwok(c.dir, c.kwok, kwokKubeconfig, stages)
	if err != nil {
		return nil, "", "", err
	}
	if err := createNodes(ctx, cl, c.nodes); err != nil {
		kwok.stop()
		return nil, "", "", err
	}
	_, kcmKubeconfig, err = cp.user("kube-controller-manager")
	if err != nil {
		return nil, "", "", err
	}
	_, schedKubeconfig, err = cp.user("kube-scheduler")
	if err != nil {
		return nil, "", "", err
	}
	return kwok, kcmKubeconfig, schedKubeconfig, nil
}

// writeReport writes scale.json of the phases, with each profile's ratio to its baseline.
func writeReport(c config, phases []*phaseResult) (report, error) {
	rep := report{Date: time.Now().UTC().Format(time.RFC3339), Machine: machine(), N: c.n, Attempts: c.attempts,
		Parallelism: c.parallelism, Nodes: c.nodes, PodStartMs: c.startMillis, PodRunMs: c.runMillis, Phases: phases, Ratios: map[string]float64{}}
	for _, name := range c.profiles {
		rep.Profiles = append(rep.Profiles, profiles[name])
		var base, ours float64
		for _, ph := range phases {
			if ph.Profile == name && ph.Kind == "baseline" {
				base = ph.TrialsPerSecond
			}
			if ph.Profile == name && ph.Kind == "sweep" {
				ours = ph.TrialsPerSecond
			}
		}
		if base > 0 {
			rep.Ratios[name] = ours / base
		}
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return rep, err
	}
	return rep, os.WriteFile(filepath.Join(c.dir, "scale.json"), b, 0o644)
}

func runPhase(ctx context.Context, c config, cp *controlPlane, cl client.Client, harnessCfg *rest.Config, scheme *runtime.Scheme, ph *phaseResult, p profile) error {
	ns := ph.Kind + "-" + p.Name
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return err
	}
	cfg, kubeconfig, err := cp.user(ph.user)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "scale: %s phase, %s flags, %d trials\n", ph.Kind, p.Name, ph.Trials)
	cpuBefore, err := processCPU()
	if err != nil {
		return err
	}
	if ph.Kind == "baseline" {
		cfg.QPS, cfg.Burst = p.BaselineQPS, p.BaselineBurst
		firstPod, elapsed, err := runBaseline(ctx, cfg, scheme, ns, ph.Trials, c.parallelism, c.timeout)
		if err != nil {
			return err
		}
		ph.FirstPodSeconds, ph.Seconds = firstPod.Seconds(), elapsed.Seconds()
		ph.TrialsPerSecond = float64(ph.Trials) / ph.Seconds
		return ph.setCPU(cpuBefore, 0)
	}
	if err := createCatalogue(ctx, cl, ns, ph.Trials/c.attempts); err != nil {
		return err
	}
	obs, err := startObserver(ctx, harnessCfg, scheme, ns)
	if err != nil {
		return err
	}
	mgr, err := startManager(c, ns, kubeconfig, p, "manager-"+ph.Kind+"-"+p.Name)
	if err != nil {
		return err
	}
	defer func() { mgr.stop() }()
	if _, err := waitReady(mgr.readyURL, mgr.process, time.Minute); err != nil {
		return err
	}
	name := "scale"
	start := time.Now()
	if err := cl.Create(ctx, newSweepRun(ns, name, c.attempts, c.parallelism)); err != nil {
		return err
	}
	var follow map[string]*runningCLI
	if ph.followed {
		follow, err = startWatches(c, cp, ns, name)
		if err != nil {
			return err
		}
	}
	killed := false
	// The killed manager's CPU, read just before the kill: it is no longer a process at the end.
	var killedCPU float64
	// In the restart phase, the manager is killed (SIGKILL) once half the trials succeeded and
	// a new one started at once: resumed is when the next trial is scored.
	progress := func(*evalv1.SweepRun) error {
		if ph.Kind != "restart" || killed || obs.succeededCount() < ph.Trials/2 {
			return nil
		}
		killed, ph.KilledAt = true, obs.succeededCount()
		var err error
		if killedCPU, _, err = procStat(mgr.pid()); err != nil {
			return fmt.Errorf("reading the manager's CPU before killing it: %w", err)
		}
		mgr.kill()
		killedAt := time.Now()
		fmt.Fprintf(os.Stderr, "scale: killed the manager at %d trials succeeded\n", ph.KilledAt)
		if mgr, err = startManager(c, ns, kubeconfig, p, "manager-restart-2"); err != nil {
			return fmt.Errorf("restarting the manager: %w", err)
		}
		ready, err := waitReady(mgr.readyURL, mgr.process, time.Minute)
		if err != nil {
			return fmt.Errorf("restarting the manager: %w", err)
		}
		ph.ReadySeconds = ready.Sub(killedAt).Seconds()
		for obs.succeededCount() <= ph.KilledAt {
			time.Sleep(20 * time.Millisecond)
		}
		ph.ResumeSeconds = time.Since(killedAt).Seconds()
		return nil
	}
	_, err = waitComplete(ctx, cl, ns, name, c.timeout, progress)
	elapsed := time.Since(start)
	if err != nil {
		return err
	}

	ph.Seconds = elapsed.Seconds()
	ph.TrialsPerSecond = float64(ph.Trials) / ph.Seconds
	if err := ph.setCPU(cpuBefore, killedCPU); err != nil {
		return err
	}
	obs.mu.Lock()
	ph.FirstPodSeconds = obs.firstPod.Sub(start).Seconds()
	obs.mu.Unlock()
	if usage, err := readProc(mgr.pid()); err == nil {
		ph.Manager = &usage
		// The heap that holds the drained campaign, after a collection: what the RSS is made of.
		if ph.Manager.LiveHeapMiB, err = saveHeapProfile(mgr, filepath.Join(c.dir, mgr.name+"-heap.pb.gz")); err != nil {
			return err
		}
	}
	if ph.Kind == "sweep" || ph.Kind == "restart" {
		// After a restart, the second manager's alone.
		ph.Reconcile, err = reconcileLatency(mgr.metricsURL)
		if err != nil {
			return err
		}
	}
	l := timing.Distribution(obs.podEndToScore())
	ph.PodEndToScore = &l
	if ph.Integrity, err = checkTrials(ctx, cl, ns, ph.Trials/c.attempts, c.attempts, obs.podsPerJob()); err != nil {
		return err
	}
	if follow != nil {
		ph.CLI, err = finishCLI(c, cp, ns, name, follow)
		if err != nil {
			return err
		}
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// managerProcess is a running manager and its loopback endpoints.
type managerProcess struct {
	*process
	metricsURL, readyURL, pprofURL string
}

// startManager runs cmd/manager as built from this tree, for ns alone, with no artifact store
// and plain-HTTP metrics and profiling on loopback.
func startManager(c config, ns, kubeconfig string, p profile, logName string) (*managerProcess, error) {
	var ports [3]int
	for i := range ports {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		ports[i] = port
	}
	metricsPort, probePort, pprofPort := ports[0], ports[1], ports[2]
	args := append([]string{
		"--hook-image=scale/hook", "--leader-elect=false", "--watch-namespaces=" + ns,
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort), "--metrics-secure=false",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probePort),
		"--pprof-bind-address=127.0.0.1:" + strconv.Itoa(pprofPort),
	}, p.Manager...)
	if c.trialConcurrency > 0 {
		args = append(args, "--trial-concurrency="+strconv.Itoa(c.trialConcurrency))
	}
	proc, err := startProcess(c.dir, logName, c.managerBin, []string{"KUBECONFIG=" + kubeconfig}, args...)
	if err != nil {
		return nil, err
	}
	return &managerProcess{process: proc,
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
		readyURL:   fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort),
		pprofURL:   fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", pprofPort)}, nil
}

func waitReady(url string, p *process, timeout time.Duration) (time.Time, error) {
	hc := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if ended, err := p.exited(); ended {
			return time.Time{}, fmt.Errorf("%s ended before it was ready: %v (see its log in the run directory)", p.name, err)
		}
		if resp, err := hc.Get(url); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Now(), nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Time{}, fmt.Errorf("%s not ready after %s", p.name, timeout)
}

func machine() string {
	var uts syscall.Utsname
	_ = syscall.Uname(&uts)
	release := make([]byte, 0, len(uts.Release))
	for _, ch := range uts.Release {
		if ch == 0 {
			break
		}
		release = append(release, byte(ch))
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		mem = strings.Fields(strings.SplitN(string(b), "\n", 2)[0])[1] + " kB"
	}
	return fmt.Sprintf("%d cores, %s memory, Linux %s, %s", goruntime.NumCPU(), mem, release, goruntime.Version())
}
