package eval_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/eval"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// evalOptions are the flags' defaults.
func evalOptions(cluster *clioptions.Cluster) *eval.Options {
	return &eval.Options{Cluster: cluster, Attempts: 1, Format: clioptions.OutputTable}
}

func TestEvalNoWait(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	o := evalOptions(srv.Cluster(ns))
	o.NoWait, o.Bugs, o.Timeout, o.Attempts = true, []string{"b1", "b2"}, 20*time.Minute, 2
	out, _, err := clitest.Execute(context.Background(), o, "demo", "testdata/fix.patch")
	if err != nil {
		t.Fatal(err)
	}
	run := clitest.OnlyRun(t, cl, ns)
	if out != run.Name+"\n" || !strings.HasPrefix(run.Name, "eval-demo-") {
		t.Errorf("stdout = %q, want the SweepRun's name %s", out, run.Name)
	}
	s := run.Spec
	if s.Tasks.Names[0] != "demo" || strings.Join(s.Tasks.Bugs["demo"], ",") != "b1,b2" || s.Attempts != 2 || s.Parallelism != 2 ||
		s.Timeouts == nil || s.Timeouts.VerifierMultiplier != "2" || s.RetryPolicy.InfrastructureRetries != 3 || s.Agent.Patch == nil {
		t.Errorf("spec = %+v: want demo, bugs b1,b2, 2 attempts at once, verifier multiplier 2 (20m of 600s), default retries, the patch agent", s)
	}
	secret := &corev1.Secret{}
	if err := cl.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: s.Agent.Patch.SecretName}, secret); err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile("testdata/fix.patch")
	if err != nil {
		t.Fatal(err)
	}
	if string(secret.Data["demo"]) != string(patch) || len(secret.OwnerReferences) != 1 || secret.OwnerReferences[0].Name != run.Name {
		t.Errorf("patch secret: data %q, owners %+v; want the patch under key demo, owned by %s", secret.Data["demo"], secret.OwnerReferences, run.Name)
	}
}

func TestEvalWaitsAndPrints(t *testing.T) {
	srv := clitest.APIServer(t)
	cl := srv.Client
	for _, tc := range []struct{ golden, format string }{{"eval.txt", "table"}, {"eval.json", "json"}} {
		t.Run(tc.format, func(t *testing.T) {
			ns := srv.Namespace(t)
			clitest.InstallCatalogue(t, cl, ns)
			o := evalOptions(srv.Cluster(ns))
			o.Format = tc.format
			stdout, _, done := clitest.Start(context.Background(), o, "demo", "testdata/fix.patch")
			run := clitest.OnlyRun(t, cl, ns)
			// The eval.json of SWE-sweep's own grader, as a real task's tests/test.sh writes it.
			clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(3, 1, false)).FinishWithEval(t, cl, swesweepEval(t))
			if err := clitest.Wait(t, "eval after its trial finished", done); err != nil {
				t.Fatal(err)
			}
			clitest.Golden(t, tc.golden, strings.ReplaceAll(stdout.String(), run.Name, "RUN"))
		})
	}
}

// swesweepEval is an eval.json in SWE-sweep's schema, written by hand from its grader's.
func swesweepEval(t *testing.T) string {
	b, err := os.ReadFile("testdata/swesweep-eval.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An eval.json that cannot be read fails the command after every row is printed, naming the
// trial and the Secret key.
func TestEvalMalformedEval(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	o := evalOptions(srv.Cluster(ns))
	o.Attempts = 2
	stdout, _, done := clitest.Start(context.Background(), o, "demo", "testdata/fix.patch")
	run := clitest.OnlyRun(t, cl, ns)
	clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(3, 1, false)).FinishWithEval(t, cl, swesweepEval(t))
	bad := clitest.MakeTrial(run, "demo", 2).Phase(evalv1.TrialSucceeded).Rewards(clitest.SweepRewards(2, 2, true)).FinishWithEval(t, cl, `{"subtasks": [{"subtask_id": "b1"`)
	err := clitest.Wait(t, "eval after its trials finished", done)
	sweeptest.ErrorContains(t, err, "trial "+bad.Name+": secret "+ns+"/"+podbuild.ResultsSecretName(bad.Name)+" key eval.json: eval.json is not SWE-sweep's (unexpected end of JSON input), so its bugs are not shown",
		"kubectl get secret "+podbuild.ResultsSecretName(bad.Name)+" -n "+ns)
	for _, row := range []string{"demo-3f9a01c2e4b7  1        resolved", "demo-b7c2d4e6f809  1        partial", "2        Succeeded  1.0000  2/2", "score:"} {
		if !strings.Contains(stdout.String(), row) {
			t.Errorf("stdout lacks %q:\n%s", row, stdout)
		}
	}
}

// A SweepRun the controller refused before any trial ends the wait with its reason.
func TestEvalRefusedByController(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	_, _, done := clitest.Start(context.Background(), evalOptions(srv.Cluster(ns)), "demo", "testdata/fix.patch")
	run := clitest.OnlyRun(t, cl, ns)
	run.Status.Phase = evalv1.SweepRunFailedPh
	meta.SetStatusCondition(&run.Status.Conditions, metav1.Condition{Type: evalv1.SweepRunFailed, Status: metav1.ConditionTrue,
		Reason: reasons.UnknownBugs, Message: "sweeprun " + ns + "/" + run.Name + `: spec.tasks.bugs["demo"] names bug ids that task demo does not have: b9`})
	clitest.Must(t, cl.Status().Update(context.Background(), run))
	err := clitest.Wait(t, "eval after its SweepRun failed", done)
	sweeptest.ErrorContains(t, err, "sweeprun "+run.Name+" ended Failed with no trial: UnknownBugs: sweeprun "+ns+"/"+run.Name+`: spec.tasks.bugs["demo"] names bug ids`,
		"kubectl describe sweeprun "+run.Name+" -n "+ns)
}

func TestEvalNothingMeasured(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	_, _, done := clitest.Start(context.Background(), evalOptions(srv.Cluster(ns)), "hello", "testdata/fix.patch")
	run := clitest.OnlyRun(t, cl, ns)
	clitest.MakeTrial(run, "hello", 1).Phase(evalv1.TrialError).Reason("ImagePullFailed", "reg.example/t/hello-verifier: not found").Create(t, cl)
	err := clitest.Wait(t, "eval after its trial finished", done)
	sweeptest.ErrorContains(t, err, "sweeprun "+run.Name+" measured nothing: trial "+run.Name+"-hello-1 ended Error (ImagePullFailed: reg.example/t/hello-verifier: not found)",
		"kubectl describe tasktrial "+run.Name+"-hello-1 -n "+ns)
}

func TestEvalErrors(t *testing.T) {
	srv := clitest.APIServer(t)
	cl, ns := srv.Client, srv.Namespace(t)
	clitest.InstallCatalogue(t, cl, ns)
	big := filepath.Join(t.TempDir(), "big.patch")
	if err := os.WriteFile(big, make([]byte, podbuild.MaxSecretPayload+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args  []string
		flags func(*eval.Options)
		want  []string
	}{
		{[]string{"nosuch", "testdata/fix.patch"}, nil, []string{`task "nosuch" not found in namespace "` + ns + `"`, "eval.sweep.dev/task=nosuch", "sweep tasks bundle"}},
		{[]string{"demo", "testdata/missing.patch"}, nil, []string{"reading the patch", "missing.patch"}},
		{[]string{"demo", big}, nil, []string{"has 1048577 bytes, more than the 1048576 a Secret holds"}},
		{[]string{"demo", "testdata/fix.patch"}, func(o *eval.Options) { o.Attempts = 0 }, []string{"flag --attempts: want 1 to 100, got 0"}},
		{[]string{"demo", "testdata/fix.patch"}, func(o *eval.Options) { o.Timeout = 10000 * time.Hour }, []string{"flag --timeout 10000h0m0s is more than 999.999 times the task's verifier timeout of 600s"}},
		// Bug subsets are refused as the controller would refuse the SweepRun, before anything is created.
		{[]string{"demo", "testdata/fix.patch"}, func(o *eval.Options) { o.Bugs = []string{"b2", " b9", "a0"} }, []string{
			`flag --bugs b2,b9,a0 (spec.tasks.bugs of the SweepRun it would create): UnknownBugs: spec.tasks.bugs["demo"] names bug ids that task demo does not have: a0, b9; its bugs are b1,b2 (annotation eval.sweep.dev/bug-ids of configmap demo)`}},
		{[]string{"hello", "testdata/fix.patch"}, func(o *eval.Options) { o.Bugs = []string{"b1"} }, []string{
			`flag --bugs b1 (spec.tasks.bugs of the SweepRun it would create): BugSubsetUnsupported: spec.tasks.bugs["hello"]: task hello is graded by its own tests/test.sh, which takes a bug subset only through tests/swesweep_eval.json`}},
		{[]string{"demo", "testdata/fix.patch"}, func(o *eval.Options) { o.Bugs = []string{" ", ""} }, []string{"flag --bugs: name at least one bug id, comma-separated, or leave the flag out to grade every bug"}},
	} {
		o := evalOptions(srv.Cluster(ns))
		if tc.flags != nil {
			tc.flags(o)
		}
		_, _, err := clitest.Execute(context.Background(), o, tc.args...)
		sweeptest.ErrorContains(t, err, tc.want...)
	}
	list := &evalv1.SweepRunList{}
	if err := cl.List(context.Background(), list, client.InNamespace(ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("failed evals left %d SweepRuns (%v)", len(list.Items), err)
	}
}
