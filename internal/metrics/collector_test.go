package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
)

func TestStatusCollector(t *testing.T) {
	graded := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: "run-calc-1", Namespace: "team-a"},
		Status: evalv1.TaskTrialStatus{Phase: evalv1.TrialSucceeded, Reason: reasons.Graded}}
	running := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "run", Namespace: "team-a"},
		Status: evalv1.SweepRunStatus{Trials: evalv1.TrialCounts{Total: 2, Created: 2, Succeeded: 1, Running: 1}, BugsTotal: 4, BugsResolved: "2.0000", Score: "0.5000"}}
	fresh := &evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "fresh", Namespace: "team-b"}}
	c := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithObjects(graded, running, fresh).Build()
	want := `
# HELP sweep_sweeprun_bugs_resolved A SweepRun's bugs resolved (status.bugsResolved); absent before a trial is graded.
# TYPE sweep_sweeprun_bugs_resolved gauge
sweep_sweeprun_bugs_resolved{name="run",namespace="team-a"} 2
# HELP sweep_sweeprun_bugs_total A SweepRun's bugs over its graded tasks (status.bugsTotal).
# TYPE sweep_sweeprun_bugs_total gauge
sweep_sweeprun_bugs_total{name="fresh",namespace="team-b"} 0
sweep_sweeprun_bugs_total{name="run",namespace="team-a"} 4
# HELP sweep_sweeprun_progress_ratio A SweepRun's finished trials over its planned ones (status.trials.total); absent until its tasks are selected.
# TYPE sweep_sweeprun_progress_ratio gauge
sweep_sweeprun_progress_ratio{name="run",namespace="team-a"} 0.5
# HELP sweep_sweeprun_score A SweepRun's score (status.score: bugs resolved / bugs total); absent before a trial is graded.
# TYPE sweep_sweeprun_score gauge
sweep_sweeprun_score{name="run",namespace="team-a"} 0.5
# HELP sweep_trials TaskTrials by namespace, phase and reason.
# TYPE sweep_trials gauge
sweep_trials{namespace="team-a",phase="Succeeded",reason="Graded"} 1
`
	if err := testutil.CollectAndCompare(&StatusCollector{Reader: c}, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// A cache that cannot be read fails the scrape instead of serving gauges that are partly
// missing, which would read as trials and campaigns gone.
func TestStatusCollectorFailsTheScrapeOnAReadError(t *testing.T) {
	c := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithInterceptorFuncs(interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
			return errors.New("cache not synced")
		}}).Build()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&StatusCollector{Reader: c})
	if _, err := reg.Gather(); err == nil || !strings.Contains(err.Error(), "cache not synced") {
		t.Errorf("Gather error = %v, want the read's error", err)
	}
}
