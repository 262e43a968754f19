package campaigns

import (
	"context"
	"fmt"
	"io"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/progress"
)

// PollInterval is how often a followed campaign's snapshot is taken again; tests shorten it.
var PollInterval = 2 * time.Second

// Follow follows a campaign until it finishes or ctx ends, passing a snapshot to show at once
// and then every PollInterval. It lists the campaign's trials once and then keeps them, and
// the SweepRun, up to date from watches, so that following a campaign of 10,000 trials costs
// one list and the changes, not a list of every trial each PollInterval. It returns the last
// campaign and trials seen; on ctx's end the error is ctx's.
func Follow(ctx context.Context, cl client.Client, ns, name string, show func(progress.Snapshot)) (*evalv1.SweepRun, []*evalv1.TaskTrial, error) {
	wc, ok := cl.(client.WithWatch)
	if !ok {
		return nil, nil, fmt.Errorf("following sweeprun %s needs a client that can watch (clioptions.Cluster.Client gives one)", name)
	}
	f := &follower{cl: wc, ns: ns, name: name, trials: map[string]*evalv1.TaskTrial{}}
	defer f.stop()
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		if err := f.sync(ctx); err != nil {
			return nil, nil, err
		}
		run, trials := f.run, f.final()
		snap := progress.Take(run, trials, time.Now())
		if snap.Finished() {
			// The end as one read sees it: the SweepRun, then every trial it counted, so that
			// no trial's last change still in flight on the watch is missing from the report.
			var err error
			if run, err = GetSweepRun(ctx, f.cl, f.ns, f.name); err != nil {
				return nil, nil, err
			}
			if trials, err = Trials(ctx, f.cl, run); err != nil {
				return nil, nil, err
			}
			snap = progress.Take(run, trials, time.Now())
		}
		if show != nil {
			show(snap)
		}
		if snap.Finished() {
			return run, trials, nil
		}
		if err := f.apply(ctx, tick.C); err != nil {
			return run, trials, err
		}
	}
}

// follower is a campaign kept up to date from a watch of its SweepRun and one of its trials.
type follower struct {
	cl       client.WithWatch
	ns, name string
	run      *evalv1.SweepRun
	trials   map[string]*evalv1.TaskTrial
	// runWatch and trialWatch are nil when they must be started again, after a fresh read.
	runWatch, trialWatch watch.Interface
}

// sync reads what a closed (or not yet started) watch lost, and starts it again from there.
func (f *follower) sync(ctx context.Context) error {
	if f.runWatch == nil {
		run, err := GetSweepRun(ctx, f.cl, f.ns, f.name)
		if err != nil {
			return err
		}
		w, err := f.cl.Watch(ctx, &evalv1.SweepRunList{}, client.InNamespace(f.ns),
			client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", f.name)},
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: run.ResourceVersion}})
		if err != nil {
			return fmt.Errorf("watching sweeprun %q in namespace %q: %w", f.name, f.ns, err)
		}
		f.run, f.runWatch = run, w
	}
	if f.trialWatch == nil {
		items, rv, err := listTrials(ctx, f.cl, f.ns, f.name)
		if err != nil {
			return err
		}
		w, err := f.cl.Watch(ctx, &evalv1.TaskTrialList{}, client.InNamespace(f.ns), client.MatchingLabels{evalv1.LabelSweepRun: f.name},
			&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: rv}})
		if err != nil {
			return fmt.Errorf("watching the tasktrials of sweeprun %q in namespace %q: %w", f.name, f.ns, err)
		}
		clear(f.trials)
		for _, tr := range items {
			f.trials[tr.Name] = tr
		}
		f.trialWatch = w
	}
	return nil
}

// apply takes the watches' changes in until the next tick, or until a watch ends (sync then
// reads again what it may have missed).
func (f *follower) apply(ctx context.Context, tick <-chan time.Time) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			return nil
		case ev, ok := <-f.runWatch.ResultChan():
			run, isRun := ev.Object.(*evalv1.SweepRun)
			switch {
			case !ok || ev.Type == watch.Error || ev.Type == watch.Deleted:
				// Read again: a deleted campaign then fails with GetSweepRun's error.
				f.runWatch.Stop()
				f.runWatch = nil
				return nil
			case isRun && (ev.Type == watch.Added || ev.Type == watch.Modified):
				f.run = run
			}
		case ev, ok := <-f.trialWatch.ResultChan():
			tr, isTrial := ev.Object.(*evalv1.TaskTrial)
			switch {
			case !ok || ev.Type == watch.Error:
				f.trialWatch.Stop()
				f.trialWatch = nil
				return nil
			case isTrial && ev.Type == watch.Deleted:
				delete(f.trials, tr.Name)
			case isTrial && (ev.Type == watch.Added || ev.Type == watch.Modified):
				f.trials[tr.Name] = tr
			}
		}
	}
}

// final is the campaign's trials as Trials returns them.
func (f *follower) final() []*evalv1.TaskTrial {
	items := make([]*evalv1.TaskTrial, 0, len(f.trials))
	for _, tr := range f.trials {
		items = append(items, tr)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return finalInOrder(items)
}

func (f *follower) stop() {
	for _, w := range []watch.Interface{f.runWatch, f.trialWatch} {
		if w != nil {
			w.Stop()
		}
	}
}

// progressPrinter draws snapshots: on a terminal one line redrawn in place, elsewhere a line
// each time the summary changes, so that logs stay readable. Each failure is printed once.
type progressPrinter struct {
	w        io.Writer
	terminal bool
	last     string
	seen     map[string]bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	return &progressPrinter{w: w, terminal: clioptions.IsTerminal(w), seen: map[string]bool{}}
}

func (p *progressPrinter) show(s progress.Snapshot) {
	var fresh []progress.Failure
	for _, f := range s.Failures {
		if !p.seen[f.Trial] {
			p.seen[f.Trial] = true
			fresh = append(fresh, f)
		}
	}
	line := s.Line()
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
	// Failures come latest first; print them in the order they happened.
	for i := len(fresh) - 1; i >= 0; i-- {
		fmt.Fprintln(p.w, fresh[i].String())
	}
	switch {
	case p.terminal:
		fmt.Fprint(p.w, line)
	case line != p.last:
		fmt.Fprintln(p.w, line)
	}
	p.last = line
}

// end finishes the redrawn line on a terminal.
func (p *progressPrinter) end() {
	if p.terminal && p.last != "" {
		fmt.Fprintln(p.w)
	}
}

// Watch follows a campaign with a progress printer on w and reports how it ended:
// nil when it finished, a message and nil when the user interrupted (the campaign goes on),
// an error when the campaign failed.
func Watch(ctx context.Context, cl client.Client, ns, name string, w, errW io.Writer) (*evalv1.SweepRun, []*evalv1.TaskTrial, bool, error) {
	printer := newProgressPrinter(w)
	run, trials, err := Follow(ctx, cl, ns, name, printer.show)
	printer.end()
	if err != nil && ctx.Err() != nil {
		fmt.Fprintf(errW, "stopped watching; sweeprun %s keeps running: follow it again with `sweep watch %s -n %s`\n", name, name, ns)
		return run, trials, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	if run.Status.Phase == evalv1.SweepRunFailedPh {
		msg := "no reason recorded"
		if c := meta.FindStatusCondition(run.Status.Conditions, evalv1.SweepRunFailed); c != nil {
			msg = c.Reason + ": " + c.Message
		}
		return run, trials, true, fmt.Errorf("sweeprun %s failed: %s; see `kubectl describe sweeprun %s -n %s`", name, msg, name, ns)
	}
	return run, trials, true, nil
}

// FollowQuietly follows a campaign whose progress is not the verb's output: drawn on errOut
// when that is a terminal, not at all otherwise.
func FollowQuietly(ctx context.Context, errOut io.Writer, cl client.Client, ns, name string) (*evalv1.SweepRun, []*evalv1.TaskTrial, error) {
	if !clioptions.IsTerminal(errOut) {
		return Follow(ctx, cl, ns, name, nil)
	}
	printer := newProgressPrinter(errOut)
	defer printer.end()
	return Follow(ctx, cl, ns, name, printer.show)
}

// AwaitHandled waits until the controller recorded the request of token (the status field
// handled reads, status.retry or status.regrade), so that following the campaign does not
// stop at the completion the request is about to clear.
func AwaitHandled(ctx context.Context, cl client.Client, ns, name, token, field string, handled func(*evalv1.SweepRun) *evalv1.RetryStatus) error {
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		run, err := GetSweepRun(ctx, cl, ns, name)
		if err != nil {
			return err
		}
		if r := handled(run); r != nil && r.Token == token {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sweeprun %s: the operator has not handled the request yet (%s.token is not %s): is it running? `sweep infra doctor` checks it; follow the campaign with `sweep watch %s -n %s`", name, field, token, name, ns)
		case <-tick.C:
		}
	}
}
