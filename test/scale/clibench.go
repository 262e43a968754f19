package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

// cliBench measures `sweep watch` and `sweep info` on a campaign of n trials without
// draining one: the trials are written as the controller leaves them (all but one
// Succeeded, the campaign Running), each CLI's `sweep watch` follows it for followFor, then
// the last trial and the campaign finish and `sweep info` reads it.
func cliBench(ctx context.Context, c config, cp *controlPlane, cl client.Client, n int, followFor time.Duration) (*phaseResult, error) {
	ns, name := "cli", "cli"
	ph := &phaseResult{Kind: "cli", Profile: "-", Trials: n}
	if err := cl.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return nil, err
	}
	run := newSweepRun(ns, name, c.attempts, c.parallelism)
	if err := cl.Create(ctx, run); err != nil {
		return nil, err
	}
	start := time.Now()
	trials, err := createFinishedTrials(ctx, cl, run, n, c.attempts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "scale: cli phase: %d trials written in %.0f s\n", n, time.Since(start).Seconds())
	run.Status.Phase = evalv1.SweepRunRunning
	run.Status.Trials = evalv1.TrialCounts{Total: int32(n), Succeeded: int32(n - 1), Running: 1}
	if err := cl.Status().Update(ctx, run); err != nil {
		return nil, err
	}
	watches, err := startWatches(c, cp, ns, name)
	if err != nil {
		return nil, err
	}
	time.Sleep(followFor)
	last := trials[len(trials)-1]
	last.Status.Phase = evalv1.TrialSucceeded
	if err := cl.Status().Update(ctx, last); err != nil {
		return nil, err
	}
	run.Status.Phase = evalv1.SweepRunSucceeded
	run.Status.Trials = evalv1.TrialCounts{Total: int32(n), Succeeded: int32(n)}
	if err := cl.Status().Update(ctx, run); err != nil {
		return nil, err
	}
	ph.CLI, err = finishCLI(c, cp, ns, name, watches)
	ph.Seconds = followFor.Seconds()
	return ph, err
}

// createFinishedTrials writes n trials of run, all Succeeded and scored but the last, which
// is left verifying; 20 writers at once.
func createFinishedTrials(ctx context.Context, cl client.Client, run *evalv1.SweepRun, n, attempts int) ([]*evalv1.TaskTrial, error) {
	trials := make([]*evalv1.TaskTrial, n)
	rewards := map[string]string{
		reward.KeyReward: "1", reward.KeySubtasks: strconv.Itoa(simulatedBugs), reward.KeyResolved: strconv.Itoa(simulatedBugs),
		reward.KeyVisibleOK: "1", reward.KeyGraderFailed: "0",
	}
	for i := range trials {
		task, attempt := fmt.Sprintf("t%05d", i/attempts), int32(i%attempts+1)
		trials[i] = &evalv1.TaskTrial{
			ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: campaign.TrialName(run.Name, task, attempt),
				Labels: map[string]string{evalv1.LabelSweepRun: run.Name, evalv1.LabelTask: task}},
			Spec: evalv1.TaskTrialSpec{SweepRun: run.Name, Task: task, Attempt: attempt, BugsTotal: simulatedBugs,
				Definition: scaleTaskTOML(task, simulatedBugs),
				Images:     evalv1.TrialImages{Agent: "scale/" + task + ":env", Verifier: "scale/" + task + ":verifier"},
				Agent:      run.Spec.Agent},
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 20 {
		wg.Go(func() {
			for i := range next {
				tr := trials[i]
				if err := cl.Create(ctx, tr); err != nil {
					errs <- err
					continue
				}
				tr.Status.Phase = evalv1.TrialVerifying
				if i < n-1 {
					finishedStatus(tr, rewards)
				}
				if err := cl.Status().Update(ctx, tr); err != nil {
					errs <- err
				}
			}
		})
	}
	for i := range trials {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, fmt.Errorf("writing the cli phase's trials: %w", err)
	}
	return trials, nil
}

// runCLIBench is the -cli-trials mode: the control plane alone, and cliBench.
func runCLIBench(ctx context.Context, c config, n int, followFor time.Duration) error {
	cp, err := startControlPlane(c.root, c.dir, cliUsers())
	if err != nil {
		return err
	}
	defer func() {
		if err := cp.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "scale: stopping etcd and kube-apiserver: %v\n", err)
		}
	}()
	harnessCfg, _, err := cp.user("scale-harness")
	if err != nil {
		return err
	}
	harnessCfg.QPS, harnessCfg.Burst = 1000, 2000
	cl, err := client.New(harnessCfg, client.Options{Scheme: evalv1.NewScheme()})
	if err != nil {
		return err
	}
	ph, err := cliBench(ctx, c, cp, cl, n, followFor)
	if err != nil {
		return err
	}
	counts, err := countRequests(cp.AuditLog, cliUsers())
	if err != nil {
		return err
	}
	for _, r := range ph.CLI {
		r.Requests = counts[r.user]
	}
	rep, err := writeReport(c, []*phaseResult{ph})
	if err != nil {
		return err
	}
	printTable(os.Stdout, rep)
	fmt.Fprintf(os.Stdout, "\nwritten: %s\n", filepath.Join(c.dir, "scale.json"))
	return nil
}

// finishedStatus gives tr the status the controller leaves on a trial the simulated stages
// graded: both stages, the patch, the record, the provenance and the conditions, as a drain
// writes them, so that the CLIs read trials of a drained campaign's size.
func finishedStatus(tr *evalv1.TaskTrial, rewards map[string]string) {
	now := metav1.Now()
	stage := func(job string) *evalv1.StageStatus {
		exit := int32(0)
		return &evalv1.StageStatus{JobName: job, Run: 1, StartTime: &now, ContainerStartTime: &now,
			JobFinishTime: &now, CompletionTime: &now, ExitCode: &exit, Reason: reasons.Completed}
	}
	condition := func(typ, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: now, ObservedGeneration: 1,
			Message: "simulated: as the controller words it for a graded trial"}
	}
	digest := "@sha256:" + strings.Repeat("0123456789abcdef", 4)
	tr.Status = evalv1.TaskTrialStatus{ObservedGeneration: 1, Phase: evalv1.TrialSucceeded, Reason: reasons.Graded,
		Message: "graded: 3 of 3 bugs resolved", Score: scoring.Format(1), Rewards: rewards,
		BugsTotal: simulatedBugs, BugsResolved: simulatedBugs, StartTime: &now, CompletionTime: &now,
		Agent: stage(tr.Name + "-agent-1"), Verifier: stage(tr.Name + "-verifier-1"),
		Patch:  &evalv1.PatchStatus{SHA256: strings.Repeat("ab", 32), Bytes: 1024, FilesChanged: 2, SecretName: tr.Name + "-agent-1"},
		Record: &evalv1.TrialRecordStatus{Store: "file:///var/lib/sweep-operator/store", Folder: tr.Spec.SweepRun + "/" + tr.Name, Files: 9, Bytes: 40960, StoredTime: &now},
		Provenance: &evalv1.Provenance{AgentImage: tr.Spec.Images.Agent + digest, VerifierImage: tr.Spec.Images.Verifier + digest,
			AgentImageID: "sha256:" + strings.Repeat("12", 32), VerifierImageID: "sha256:" + strings.Repeat("34", 32),
			HookImage: "scale/sweep-hook:v1" + digest, OperatorVersion: "v0.0.0-scale", Grader: "swesweep/1", Parser: "pytest/1",
			TaskDefinitionSHA256: strings.Repeat("cd", 32), Agent: map[string]string{"kind": "oracle"}},
		Conditions: []metav1.Condition{condition(evalv1.TrialAgentCompleted, reasons.Completed),
			condition(evalv1.TrialVerified, reasons.Graded), condition(evalv1.TrialRecorded, reasons.RecordWritten),
			condition(evalv1.TrialComplete, reasons.Graded)},
	}
}
