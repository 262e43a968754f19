package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// cliResult is one run of a `sweep` verb against the campaign.
type cliResult struct {
	Seconds float64 `json:"seconds"`
	// AfterCompleteSeconds is, for `sweep watch`, how long it went on after the run saw the
	// campaign complete: how late it noticed the end.
	AfterCompleteSeconds float64        `json:"afterCompleteSeconds,omitempty"`
	PeakRSSMiB           float64        `json:"peakRSSMiB"`
	CPUSeconds           float64        `json:"cpuSeconds"`
	Requests             *requestCounts `json:"requests,omitempty"`
	Output               string         `json:"outputLastLines"`
	user                 string
}

// runningCLI is a `sweep watch` following the campaign.
type runningCLI struct {
	cmd   *exec.Cmd
	start time.Time
	out   string
	usage string // what the launcher wrote
	user  string
	done  chan error
}

// cliUsers are the identities each measured CLI verb runs as: this tree's and, with
// -sweep-before, an older build's.
func cliUsers() []string {
	return []string{"sweep-cli-watch", "sweep-cli-info", "sweep-cli-before-watch", "sweep-cli-before-info"}
}

func (c config) clis() map[string]string {
	out := map[string]string{"sweep-cli": c.sweepBin}
	if c.sweepBefore != "" {
		out["sweep-cli-before"] = c.sweepBefore
	}
	return out
}

// startWatches starts `sweep watch NAME` of every measured CLI, as the campaign starts.
func startWatches(c config, cp *controlPlane, ns, name string) (map[string]*runningCLI, error) {
	out := map[string]*runningCLI{}
	for prefix, bin := range c.clis() {
		user := prefix + "-watch"
		_, kubeconfig, err := cp.user(user)
		if err != nil {
			return nil, err
		}
		logPath := filepath.Join(c.dir, user+".out")
		logf, err := os.Create(logPath)
		if err != nil {
			return nil, err
		}
		usage := filepath.Join(c.dir, user+".usage")
		cmd, err := measuredCommand(usage, bin, "watch", name, "-n", ns, "--kubeconfig", kubeconfig)
		if err != nil {
			_ = logf.Close()
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			_ = logf.Close()
			return nil, err
		}
		r := &runningCLI{cmd: cmd, start: time.Now(), out: logPath, usage: usage, user: user, done: make(chan error, 1)}
		go func() { r.done <- cmd.Wait(); _ = logf.Close() }()
		out[prefix] = r
	}
	return out, nil
}

func lastLines(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// finishCLI waits for the watches to end (the campaign has completed), then runs
// `sweep info NAME` of every measured CLI.
func finishCLI(c config, cp *controlPlane, ns, name string, watches map[string]*runningCLI) (map[string]*cliResult, error) {
	completed := time.Now()
	out := map[string]*cliResult{}
	for prefix, w := range watches {
		select {
		case err := <-w.done:
			if err != nil {
				return nil, fmt.Errorf("%s: %w: %s", w.user, err, lastLines(w.out, 5))
			}
		case <-time.After(2 * time.Minute):
			_ = w.cmd.Process.Kill()
			return nil, fmt.Errorf("%s did not end 2 minutes after the campaign completed", w.user)
		}
		end := time.Now()
		rss, cpu, err := readLaunched(w.usage)
		if err != nil {
			return nil, err
		}
		out[prefix+" watch"] = &cliResult{Seconds: end.Sub(w.start).Seconds(), AfterCompleteSeconds: end.Sub(completed).Seconds(),
			PeakRSSMiB: rss, CPUSeconds: cpu, Output: lastLines(w.out, 3), user: w.user}
	}
	prefixes := make([]string, 0, len(c.clis()))
	for p := range c.clis() {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)
	for _, prefix := range prefixes {
		user := prefix + "-info"
		_, kubeconfig, err := cp.user(user)
		if err != nil {
			return nil, err
		}
		logPath := filepath.Join(c.dir, user+".out")
		logf, err := os.Create(logPath)
		if err != nil {
			return nil, err
		}
		usage := filepath.Join(c.dir, user+".usage")
		cmd, err := measuredCommand(usage, c.clis()[prefix], "info", name, "-n", ns, "--kubeconfig", kubeconfig)
		if err != nil {
			_ = logf.Close()
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = logf, logf
		start := time.Now()
		err = cmd.Run()
		_ = logf.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %s", user, err, lastLines(logPath, 5))
		}
		rss, cpu, err := readLaunched(usage)
		if err != nil {
			return nil, err
		}
		out[prefix+" info"] = &cliResult{Seconds: time.Since(start).Seconds(), PeakRSSMiB: rss, CPUSeconds: cpu, Output: lastLines(logPath, 3), user: user}
	}
	return out, nil
}
