package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// listTimeout bounds one scrape's reads of the cache.
const listTimeout = 10 * time.Second

// StatusCollector serves the gauges that derive from status, read from the manager's cache
// at each scrape. It is a manager Runnable that registers itself with controller-runtime's
// registry while the manager runs and, as reconcilers do, only on the elected leader, so that
// replicas do not serve the same series twice.
type StatusCollector struct {
	// Reader is the manager's cache (mgr.GetCache()).
	Reader client.Reader
}

// Start registers the collector until ctx ends.
func (c *StatusCollector) Start(ctx context.Context) error {
	if err := ctrlmetrics.Registry.Register(c); err != nil {
		return err
	}
	<-ctx.Done()
	ctrlmetrics.Registry.Unregister(c)
	return nil
}

// Describe implements prometheus.Collector.
func (c *StatusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{trialsDesc, scoreDesc, bugsResolvedDesc, bugsTotalDesc, progressDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. A failed read of the cache is reported to the
// scrape as an invalid metric, which fails it rather than serving partial gauges.
func (c *StatusCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	// The lists are read-only here, so the cache's objects are not copied.
	trials := &evalv1.TaskTrialList{}
	if err := c.Reader.List(ctx, trials, client.UnsafeDisableDeepCopy); err != nil {
		ch <- prometheus.NewInvalidMetric(trialsDesc, err)
		return
	}
	items := make([]*evalv1.TaskTrial, len(trials.Items))
	for i := range trials.Items {
		items[i] = &trials.Items[i]
	}
	for k, n := range CountTrials(items) {
		ch <- prometheus.MustNewConstMetric(trialsDesc, prometheus.GaugeValue, float64(n), k.Namespace, string(k.Phase), k.Reason)
	}
	runs := &evalv1.SweepRunList{}
	if err := c.Reader.List(ctx, runs, client.UnsafeDisableDeepCopy); err != nil {
		ch <- prometheus.NewInvalidMetric(scoreDesc, err)
		return
	}
	for i := range runs.Items {
		run := &runs.Items[i]
		v := SweepRunGauges(&run.Status)
		gauge := func(d *prometheus.Desc, value float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, value, run.Namespace, run.Name)
		}
		gauge(bugsTotalDesc, v.BugsTotal)
		for d, value := range map[*prometheus.Desc]*float64{scoreDesc: v.Score, bugsResolvedDesc: v.BugsResolved, progressDesc: v.Progress} {
			if value != nil {
				gauge(d, *value)
			}
		}
	}
}
