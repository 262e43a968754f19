// Package eval is `sweep eval`: grade one patch on one task in the cluster.
package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/report"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/sweepbundle"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
	"github.com/swe-sweep/sweep-operator/internal/trialrecord"
)

// Options of `sweep eval TASK PATCH`.
type Options struct {
	// Bugs, when set, are the only bugs graded.
	Bugs []string
	// Timeout, when set, is the verifier's timeout instead of the task's.
	Timeout  time.Duration
	Attempts int32
	// NoWait prints the SweepRun's name and returns.
	NoWait bool
	Format string

	Cluster *clioptions.Cluster
	Task    string
	// PatchFile is a file, or - for In.
	PatchFile string
	clioptions.IOStreams
}

func (o *Options) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Task, o.PatchFile = streams, args[0], args[1]
	return nil
}

func (o *Options) Validate() error {
	if err := clioptions.CheckOutput(o.Format); err != nil {
		return err
	}
	if o.Attempts < 1 || o.Attempts > 100 {
		return fmt.Errorf("flag --attempts: want 1 to 100, got %d", o.Attempts)
	}
	// As SWE-sweep's `sweep eval --bugs` reads the list: ids trimmed, empty ones dropped.
	var ids []string
	for _, id := range o.Bugs {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(o.Bugs) > 0 && len(ids) == 0 {
		return fmt.Errorf("flag --bugs: name at least one bug id, comma-separated, or leave the flag out to grade every bug")
	}
	o.Bugs = ids
	return nil
}

func (o *Options) Run(ctx context.Context) error {
	patch, err := o.readPatch()
	if err != nil {
		return err
	}
	cl, ns, err := o.Cluster.Client()
	if err != nil {
		return err
	}
	cm, err := campaigns.FindTask(ctx, cl, ns, o.Task)
	if err != nil {
		return err
	}
	spec := evalv1.SweepRunSpec{
		Tasks:       evalv1.TaskSelection{Names: []string{o.Task}},
		Attempts:    o.Attempts,
		Parallelism: o.Attempts,
	}
	if len(o.Bugs) > 0 {
		spec.Tasks.Bugs = map[string][]string{o.Task: o.Bugs}
		// Refused here as the controller would refuse the SweepRun, before anything is created.
		if refusal := campaign.CheckBugs(spec.Tasks.Bugs, []campaign.Task{{Name: o.Task, ConfigMap: cm}}); refusal != nil {
			return fmt.Errorf("flag --bugs %s (spec.tasks.bugs of the SweepRun it would create): %s: %s", strings.Join(o.Bugs, ","), refusal.Reason, refusal.Message)
		}
	}
	if o.Timeout > 0 {
		multiplier, err := verifierMultiplier(cm, o.Timeout)
		if err != nil {
			return err
		}
		spec.Timeouts = &evalv1.TimeoutPolicy{VerifierMultiplier: multiplier}
	}
	run, err := startPatchEval(ctx, cl, ns, o.Task, patch, spec)
	if err != nil {
		return err
	}
	if o.NoWait {
		fmt.Fprintln(o.Out, run.Name)
		return nil
	}
	return o.waitAndPrint(ctx, cl, ns, run.Name)
}

func (o *Options) readPatch() ([]byte, error) {
	data, err := clioptions.ReadFileOrStdin(o.In, o.PatchFile)
	if err != nil {
		return nil, fmt.Errorf("reading the patch: %w", err)
	}
	if len(data) > podbuild.MaxSecretPayload {
		return nil, fmt.Errorf("patch %s has %d bytes, more than the %d a Secret holds: leave build products and data files out of the diff", o.PatchFile, len(data), podbuild.MaxSecretPayload)
	}
	return data, nil
}

// verifierMultiplier turns a verifier timeout into the multiplier of the task's own timeout
// that TimeoutPolicy holds, rounded up to its three decimals.
func verifierMultiplier(cm *corev1.ConfigMap, timeout time.Duration) (string, error) {
	t, err := taskdef.Parse("configmap "+cm.Name+" task.toml", []byte(cm.Data[evalv1.TaskTOMLKey]))
	if err != nil {
		return "", err
	}
	m := math.Ceil(timeout.Seconds()/t.Verifier.TimeoutSec*1000) / 1000
	if m > 999.999 {
		return "", fmt.Errorf("flag --timeout %s is more than 999.999 times the task's verifier timeout of %gs: give a shorter one", timeout, t.Verifier.TimeoutSec)
	}
	return strconv.FormatFloat(m, 'f', -1, 64), nil
}

// startPatchEval creates the patch Secret, then the SweepRun reading it, then makes the
// SweepRun the Secret's owner so that deleting the run deletes the patch. The Secret comes
// first so that no trial ever waits for it.
func startPatchEval(ctx context.Context, cl client.Client, ns, task string, patch []byte, spec evalv1.SweepRunSpec) (*evalv1.SweepRun, error) {
	prefix := "eval-" + truncate(catalogue.ResourceName(task), 40) + "-"
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: prefix},
		Data:       map[string][]byte{task: patch},
	}
	if err := cl.Create(ctx, secret); err != nil {
		return nil, fmt.Errorf("creating the patch secret in namespace %s: %w", ns, campaigns.CreateHint(err))
	}
	spec.Agent = evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: secret.Name}}
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: prefix}, Spec: spec}
	if err := campaigns.CreateSweepRun(ctx, cl, run); err != nil {
		// Best effort: the SweepRun's error is the one to report, and a Secret left behind
		// holds only the patch the user has.
		_ = cl.Delete(ctx, secret)
		return nil, fmt.Errorf("creating the sweeprun in namespace %s: %w", ns, campaigns.CreateHint(err))
	}
	if err := controllerutil.SetOwnerReference(run, secret, cl.Scheme()); err != nil {
		return nil, err
	}
	if err := cl.Update(ctx, secret); err != nil {
		return nil, fmt.Errorf("making sweeprun %s the owner of secret %s: %w", run.Name, secret.Name, err)
	}
	return run, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return strings.TrimRight(s[:n], "-")
	}
	return s
}

// evalOutput is what eval prints with -o json|yaml.
type evalOutput struct {
	SweepRun string          `json:"sweepRun"`
	Task     string          `json:"task"`
	Trials   []TrialOutput   `json:"trials"`
	Report   report.Document `json:"report"`
}

// TrialOutput is a finished trial as eval and tasks check print it.
type TrialOutput struct {
	Name        string            `json:"name"`
	Attempt     int32             `json:"attempt"`
	Phase       string            `json:"phase"`
	Reason      string            `json:"reason,omitempty"`
	Message     string            `json:"message,omitempty"`
	Rewards     map[string]string `json:"rewards,omitempty"`
	Bugs        []BugOutput       `json:"bugs,omitempty"`
	Regressions []string          `json:"regressions,omitempty"`
	// VisibleTests is each visible test's outcome in the trial's tree (SWE-sweep's eval.json);
	// InstanceTests each FAIL_TO_PASS and PASS_TO_PASS test's of a SWE-bench instance
	// (report.json), "passed" or "failed". `sweep tasks check --repeat` compares them between
	// runs; eval's own output leaves them out.
	VisibleTests  map[string]string `json:"-"`
	InstanceTests map[string]string `json:"-"`
	// EvalError says why the trial's eval.json could not be read: its bugs are left out and
	// the command fails after printing the rest.
	EvalError string `json:"evalError,omitempty"`
}

// BugOutput is one bug's outcome in a trial.
type BugOutput struct {
	ID       string `json:"id"`
	Resolved bool   `json:"resolved"`
	Partial  bool   `json:"partial"`
	// Tests is each test's outcome in the bug's targeted run (sweepbundle.SubtaskOutcome.Tests),
	// which `sweep tasks check --repeat` compares between runs.
	Tests map[string]string `json:"-"`
}

// waitAndPrint waits for the evaluation and prints it; it fails when no trial was measured or
// an eval.json could not be read, after printing the rest.
func (o *Options) waitAndPrint(ctx context.Context, cl client.Client, ns, name string) error {
	run, trials, err := campaigns.FollowQuietly(ctx, o.ErrOut, cl, ns, name)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("stopped waiting; the evaluation goes on: follow it with `sweep watch %s -n %s` and read it with `sweep info %s -n %s`", name, ns, name, ns)
		}
		return err
	}
	if len(trials) == 0 {
		return fmt.Errorf("sweeprun %s ended %s with no trial: %s; see `kubectl describe sweeprun %s -n %s`", name, clioptions.OrDash(string(run.Status.Phase)), failedCondition(run), name, ns)
	}
	out := evalOutput{SweepRun: name, Task: o.Task}
	var scored []scoring.Trial
	for i := range trials {
		tr := trials[i]
		to, err := TrialResult(ctx, cl, tr)
		if err != nil {
			return err
		}
		out.Trials = append(out.Trials, to)
		scored = append(scored, campaign.ScoringTrial(tr))
	}
	rep := scoring.Score(scored)
	out.Report = report.NewDocument(rep)
	if err := clioptions.Write(o.Out, o.Format, out, func(w io.Writer) error { return writeEvalTable(w, out, rep) }); err != nil {
		return err
	}
	var errs []error
	if rep.GradedTasks == 0 {
		first := out.Trials[0]
		errs = append(errs, fmt.Errorf("sweeprun %s measured nothing: trial %s ended %s (%s: %s); see `kubectl describe tasktrial %s -n %s`",
			name, first.Name, first.Phase, clioptions.OrDash(first.Reason), clioptions.OrDash(first.Message), first.Name, ns))
	}
	return errors.Join(append(errs, EvalErrors(out.Trials)...)...)
}

// EvalErrors are the trials' unreadable eval.json files, one error each.
func EvalErrors(trials []TrialOutput) []error {
	var errs []error
	for _, t := range trials {
		if t.EvalError != "" {
			errs = append(errs, errors.New(t.EvalError))
		}
	}
	return errs
}

// failedCondition is the reason and message of a campaign's Failed condition.
func failedCondition(run *evalv1.SweepRun) string {
	if c := meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunFailed); c != nil {
		return c.Reason + ": " + c.Message
	}
	return "no reason recorded"
}

// TrialResult reads a finished trial's per-bug outcome from the eval.json its verifier left. An
// eval.json that cannot be read is named in the output's EvalError; the error is the cluster's.
func TrialResult(ctx context.Context, cl client.Client, tr *evalv1.TaskTrial) (TrialOutput, error) {
	out := TrialOutput{Name: tr.Name, Attempt: tr.Spec.Attempt, Phase: string(tr.Status.Phase), Reason: tr.Status.Reason,
		Message: tr.Status.Message, Rewards: tr.Status.Rewards}
	results, _, err := trialrecord.VerifierFiles(ctx, cl, tr)
	if err != nil {
		return out, err
	}
	if rep, ok := results[podcontract.RecordSWEBenchReport]; ok {
		out.InstanceTests = instanceTests(rep)
	}
	raw, ok := results[podcontract.RecordEval]
	if !ok {
		return out, nil
	}
	if out.Bugs, out.Regressions, out.VisibleTests, err = BugRows(raw); err != nil {
		secret := podbuild.ResultsSecretName(tr.Name)
		out.EvalError = fmt.Sprintf("trial %s: secret %s/%s key %s: %v, so its bugs are not shown: the verifier wrote something else; "+
			"read it with `kubectl get secret %s -n %s -o jsonpath='{.data.eval\\.json}' | base64 -d`", tr.Name, tr.Namespace, secret, podcontract.RecordEval, err, secret, tr.Namespace)
	}
	return out, nil
}

// instanceTests are the tests of a SWE-bench report.json by outcome; nil when it cannot be
// read or graded no test (swebenchcli reports an unreadable one).
func instanceTests(report []byte) map[string]string {
	var rep swebench.InstanceReport
	if json.Unmarshal(report, &rep) != nil || rep.TestsStatus == nil {
		return nil
	}
	tests := map[string]string{}
	for _, list := range []swebench.TestOutcomes{rep.TestsStatus.FailToPass, rep.TestsStatus.PassToPass} {
		for _, id := range list.Success {
			tests[id] = sweepbundle.TestPassed
		}
		for _, id := range list.Failure {
			tests[id] = sweepbundle.TestFailed
		}
	}
	return tests
}

// BugRows are the bugs, regressions and visible tests of an eval.json in SWE-sweep's schema
// (sweepbundle.ReadOutcome), which SWE-sweep's own grader (a task's tests/test.sh) and the
// built-in bundle grader both write.
func BugRows(evalJSON []byte) ([]BugOutput, []string, map[string]string, error) {
	outcome, err := sweepbundle.ReadOutcome(evalJSON)
	if err != nil {
		return nil, nil, nil, err
	}
	var bugs []BugOutput
	for _, b := range outcome.Subtasks {
		bugs = append(bugs, BugOutput{ID: b.ID, Resolved: b.Resolved, Partial: b.Partial, Tests: b.Tests})
	}
	return bugs, outcome.Regressions, outcome.VisibleTests, nil
}

// BugVerdict is a bug's outcome in a word.
func BugVerdict(b BugOutput) string {
	switch {
	case b.Resolved:
		return "resolved"
	case b.Partial:
		return "partial"
	}
	return "unresolved"
}

func writeEvalTable(w io.Writer, out evalOutput, rep scoring.Report) error {
	fmt.Fprintf(w, "sweeprun %s, task %s\n\n", out.SweepRun, out.Task)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ATTEMPT\tPHASE\tREWARD\tRESOLVED\tREGRESSIONS\tREASON")
	for _, t := range out.Trials {
		resolved := "-"
		if n, ok := t.Rewards[reward.KeySubtasks]; ok {
			resolved = trimZeros(t.Rewards[reward.KeyResolved]) + "/" + trimZeros(n)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", t.Attempt, t.Phase, clioptions.OrDash(t.Rewards[reward.KeyReward]), resolved, len(t.Regressions), clioptions.OrDash(t.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var rows []string
	for _, t := range out.Trials {
		for _, b := range t.Bugs {
			rows = append(rows, fmt.Sprintf("%s\t%d\t%s", b.ID, t.Attempt, BugVerdict(b)))
		}
	}
	if len(rows) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BUG\tATTEMPT\tRESULT")
		for _, r := range rows {
			fmt.Fprintln(tw, r)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	return report.WriteText(w, rep, false)
}

// trimZeros prints a fixed-precision count ("3.0000") as the integer it is.
func trimZeros(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}
