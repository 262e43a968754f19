package resume

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestResumeCluster(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	ctx := context.Background()
	run := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: ns}, Spec: evalv1.SweepRunSpec{
		Tasks: evalv1.TaskSelection{Names: []string{"demo"}}, Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}, Attempts: 1, Parallelism: 1}}
	clitest.Must(t, srv.Client.Create(ctx, run))
	resume := func(name string) (string, error) {
		out, _, err := clitest.Execute(ctx, &Options{Cluster: srv.Cluster(ns)}, name)
		return out, err
	}
	annotation := func() string {
		got := &evalv1.SweepRun{}
		clitest.Must(t, srv.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "nightly"}, got))
		return got.Annotations[evalv1.AnnotationResume]
	}

	_, err := resume("no-such-run")
	sweeptest.ErrorContains(t, err, `sweeprun "no-such-run" not found in namespace "`+ns+`"`)
	_, err = resume("nightly")
	sweeptest.ErrorContains(t, err, "sweeprun nightly in namespace "+ns+" is not suspended by its guard (phase <none>): nothing to resume")

	clitest.Must(t, srv.Client.Get(ctx, client.ObjectKeyFromObject(run), run))
	run.Spec.Suspend = true
	clitest.Must(t, srv.Client.Update(ctx, run))
	_, err = resume("nightly")
	sweeptest.ErrorContains(t, err, "is suspended by spec.suspend, not by its guard: set spec.suspend to false", "kubectl patch sweeprun nightly -n "+ns)
	if got := annotation(); got != "" {
		t.Fatalf("a refused resume wrote the annotation %q", got)
	}

	run.Spec.Suspend = false
	clitest.Must(t, srv.Client.Update(ctx, run))
	run.Status.Phase = evalv1.SweepRunSuspend
	run.Status.Guard = &evalv1.GuardStatus{SuspendedTime: &metav1.Time{Time: time.Now()}, Reason: reasons.ImagePullFailed, Message: "m"}
	clitest.Must(t, srv.Client.Status().Update(ctx, run))
	out, err := resume("nightly")
	if err != nil {
		t.Fatal(err)
	}
	if want := "sweeprun.eval.sweep.dev/nightly resume requested: new trials start again; the guard counts only failures from now on (it had stopped the campaign for ImagePullFailed)\n"; out != want {
		t.Errorf("stdout = %q, want %q", out, want)
	}
	token := annotation()
	if _, err := time.Parse(time.RFC3339Nano, token); err != nil {
		t.Errorf("the resume annotation %q is not a timestamp token: %v", token, err)
	}
	if !strings.HasSuffix(token, "Z") {
		t.Errorf("the token %q is not UTC", token)
	}
}
