package main

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
)

// createRun creates a SweepRun of the nop agent over tasks.
func createRun(t *testing.T, cl client.Client, ns, name string, tasks ...string) *evalv1.SweepRun {
	t.Helper()
	run := &evalv1.SweepRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: evalv1.SweepRunSpec{
			Tasks: evalv1.TaskSelection{Names: tasks},
			Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}},
			// The Go types send zeros, which the CRD's defaults do not replace.
			Attempts: 1, Parallelism: 1,
		},
	}
	if err := cl.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return run
}

// trialOutcome is the status a test gives a trial, playing the trial controller.
type trialOutcome struct {
	task    string
	attempt int32
	phase   evalv1.TrialPhase
	reason  string
	message string
	rewards map[string]string
}

// createTrial creates a campaign's trial and writes its status.
func createTrial(t *testing.T, cl client.Client, run *evalv1.SweepRun, o trialOutcome) *evalv1.TaskTrial {
	t.Helper()
	ctx := context.Background()
	tr := &evalv1.TaskTrial{
		ObjectMeta: metav1.ObjectMeta{Namespace: run.Namespace, Name: campaign.TrialName(run.Name, o.task, o.attempt),
			Labels: map[string]string{evalv1.LabelSweepRun: run.Name, evalv1.LabelTask: o.task}},
		Spec: evalv1.TaskTrialSpec{SweepRun: run.Name, Task: o.task, Attempt: o.attempt,
			Images: evalv1.TrialImages{Agent: "reg/" + o.task + "-env:1", Verifier: "reg/" + o.task + "-verifier:1"},
			Agent:  run.Spec.Agent},
	}
	if err := cl.Create(ctx, tr); err != nil {
		t.Fatal(err)
	}
	setTrialStatus(t, cl, tr, o)
	return tr
}

func setTrialStatus(t *testing.T, cl client.Client, tr *evalv1.TaskTrial, o trialOutcome) {
	t.Helper()
	tr.Status.Phase, tr.Status.Reason, tr.Status.Message, tr.Status.Rewards = o.phase, o.reason, o.message, o.rewards
	if err := cl.Status().Update(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
}

// sweepRewards are the rewards a SWE-sweep verifier reports, as the trial status holds them.
func sweepRewards(bugs, resolved int, visibleOK bool) map[string]string {
	r := map[string]string{"n_subtasks": itoa(bugs), "n_resolved": itoa(resolved), "visible_ok": "1", "grader_failed": "0"}
	r["reward"] = fraction(resolved, bugs)
	if !visibleOK {
		r["visible_ok"], r["reward"] = "0", "0"
	}
	return r
}
