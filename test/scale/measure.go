package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// requestCounts are one identity's API requests, from the audit log.
type requestCounts struct {
	Total int `json:"total"`
	// Writes are create, update, patch and delete, Events left out.
	Writes int `json:"writes"`
	// Events are the Events written (core and events.k8s.io), counted apart.
	Events int `json:"events"`
	// ByVerbResource is "verb resource[/subresource]" → requests.
	ByVerbResource map[string]int `json:"byVerbResource"`
	// jobsCreated are the Jobs this identity created, by name.
	jobsCreated map[string]int
}

type auditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

func isWrite(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// countRequests reads the audit log once and counts the requests of each of users. A watch
// counts when it starts (its end comes only when it closes), anything else when it ends.
func countRequests(path string, users []string) (map[string]*requestCounts, error) {
	out := map[string]*requestCounts{}
	for _, u := range users {
		out[u] = &requestCounts{ByVerbResource: map[string]int{}, jobsCreated: map[string]int{}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("audit log %s: %w", path, err)
		}
		c, ok := out[ev.User.Username]
		if !ok {
			continue
		}
		if ev.Verb == "watch" && ev.Stage != "ResponseStarted" || ev.Verb != "watch" && ev.Stage != "ResponseComplete" {
			continue
		}
		res := "(non-resource)"
		if ev.ObjectRef != nil {
			res = ev.ObjectRef.Resource
			if ev.ObjectRef.Subresource != "" {
				res += "/" + ev.ObjectRef.Subresource
			}
		}
		c.Total++
		if ev.Verb == "create" && res == "jobs" && ev.ResponseStatus != nil && ev.ResponseStatus.Code == 201 {
			c.jobsCreated[ev.ObjectRef.Name]++
		}
		c.ByVerbResource[ev.Verb+" "+res]++
		switch {
		case res == "events":
			c.Events++
		case isWrite(ev.Verb):
			c.Writes++
		}
	}
	return out, sc.Err()
}

// procUsage is a process's peak resident memory and CPU time, from /proc, and for the
// manager its live heap at the drain's end.
type procUsage struct {
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	// AnonMiB and FileMiB split the RSS at the drain's end: the heap and stacks, and the pages
	// of the binary (and other files) in memory.
	AnonMiB    float64 `json:"anonMiB"`
	FileMiB    float64 `json:"fileMiB"`
	CPUSeconds float64 `json:"cpuSeconds"`
	// LiveHeapMiB is the manager's heap after a collection, once the drain ended: what its
	// caches and controllers hold (go_memstats_heap_alloc_bytes read after the heap profile's
	// collection).
	LiveHeapMiB float64 `json:"liveHeapMiB,omitempty"`
}

// readProc reads VmHWM (the peak RSS) and utime+stime of pid; call it before the process ends.
func readProc(pid int) (procUsage, error) {
	var u procUsage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	fromStatus := map[string]*float64{"VmHWM:": &u.PeakRSSMiB, "RssAnon:": &u.AnonMiB, "RssFile:": &u.FileMiB}
	for _, line := range strings.Split(string(status), "\n") {
		for prefix, into := range fromStatus {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
				if err != nil {
					return u, err
				}
				*into = kb / 1024
			}
		}
	}
	u.CPUSeconds, _, err = procStat(pid)
	return u, err
}

// procStat reads a process's CPU time (user and system) and its parent from /proc.
func procStat(pid int) (cpuSeconds float64, ppid int, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	const clockTicks = 100 // USER_HZ on Linux
	ppid, _ = strconv.Atoi(fields[1])
	utime, _ := strconv.ParseFloat(fields[11], 64)
	stime, _ := strconv.ParseFloat(fields[12], 64)
	return (utime + stime) / clockTicks, ppid, nil
}

// processCPU is the CPU time of this program ("harness": the baseline's driver, the run's
// watches, and the launchers of the measured CLIs) and of each process it started, directly
// or through a launcher, summed by executable name (kube-apiserver, etcd, kwok,
// kube-controller-manager, kube-scheduler, manager, sweep).
func processCPU() (map[string]float64, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	type proc struct {
		ppid int
		cpu  float64
		exe  string
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// A process may end between the listing and the reads: it is then left out.
		cpu, ppid, err := procStat(pid)
		if err != nil {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			continue
		}
		procs[pid] = proc{ppid: ppid, cpu: cpu, exe: exe}
	}
	ours := func(pid int) bool {
		for ; pid > 1; pid = procs[pid].ppid {
			if pid == os.Getpid() {
				return true
			}
		}
		return false
	}
	byName := map[string]float64{}
	for pid, p := range procs {
		if !ours(pid) {
			continue
		}
		name := filepath.Base(p.exe)
		if p.exe == self {
			name = "harness"
		}
		byName[name] += p.cpu
	}
	if _, ok := byName["harness"]; !ok {
		return nil, fmt.Errorf("reading /proc: this process (%d) is not there", os.Getpid())
	}
	return byName, nil
}

// cpuPerTrial is the CPU each process used between two readings of processCPU, a trial.
// A process that started between them counts from zero.
func cpuPerTrial(before, after map[string]float64, trials int) map[string]float64 {
	per := map[string]float64{}
	for name, cpu := range after {
		per[name] = (cpu - before[name]) / float64(trials)
	}
	return per
}

// latency are a histogram's percentiles, in seconds, as estimated from its buckets.
type latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
}

// saveHeapProfile writes the manager's heap profile, taken after a collection, to path (read
// it with go tool pprof), and returns the heap then in use.
func saveHeapProfile(mgr *managerProcess, path string) (float64, error) {
	hc := &http.Client{Timeout: time.Minute}
	resp, err := hc.Get(mgr.pprofURL + "heap?gc=1")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%sheap: %s", mgr.pprofURL, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	families, err := readMetrics(mgr.metricsURL)
	if err != nil {
		return 0, err
	}
	fam, ok := families["go_memstats_heap_alloc_bytes"]
	if !ok || len(fam.GetMetric()) == 0 {
		return 0, fmt.Errorf("%s has no go_memstats_heap_alloc_bytes", mgr.metricsURL)
	}
	return fam.GetMetric()[0].GetGauge().GetValue() / (1 << 20), nil
}

func readMetrics(metricsURL string) (map[string]*dto.MetricFamily, error) {
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(metricsURL)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(resp.Body)
}

// reconcileLatency reads controller-runtime's controller_runtime_reconcile_time_seconds of
// each controller from the manager's metrics endpoint and estimates p50 and p99 from its
// buckets, as Prometheus's histogram_quantile does (linear within a bucket).
func reconcileLatency(metricsURL string) (map[string]latency, error) {
	families, err := readMetrics(metricsURL)
	if err != nil {
		return nil, err
	}
	fam, ok := families["controller_runtime_reconcile_time_seconds"]
	if !ok {
		return nil, fmt.Errorf("%s has no controller_runtime_reconcile_time_seconds", metricsURL)
	}
	out := map[string]latency{}
	for _, m := range fam.GetMetric() {
		controller := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "controller" {
				controller = l.GetValue()
			}
		}
		h := m.GetHistogram()
		out[controller] = latency{Count: int(h.GetSampleCount()), P50: bucketQuantile(0.5, h), P99: bucketQuantile(0.99, h)}
	}
	return out, nil
}

func bucketQuantile(q float64, h *dto.Histogram) float64 {
	total := float64(h.GetSampleCount())
	if total == 0 {
		return 0
	}
	rank := q * total
	lower, below := 0.0, 0.0
	for _, b := range h.GetBucket() {
		upper, count := b.GetUpperBound(), float64(b.GetCumulativeCount())
		if count >= rank {
			if math.IsInf(upper, 1) {
				return lower
			}
			return lower + (upper-lower)*(rank-below)/math.Max(count-below, 1)
		}
		lower, below = upper, count
	}
	return lower
}
