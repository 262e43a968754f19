package campaigns

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/progress"
)

// PollInterval is how often a followed campaign is read again; tests shorten it.
var PollInterval = 2 * time.Second

// Follow reads a campaign until it finishes or ctx ends, passing each snapshot to show. It
// returns the last campaign and trials read; on ctx's end the error is ctx's.
func Follow(ctx context.Context, cl client.Client, ns, name string, show func(progress.Snapshot)) (*evalv1.SweepRun, []evalv1.TaskTrial, error) {
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		run, err := GetSweepRun(ctx, cl, ns, name)
		if err != nil {
			return nil, nil, err
		}
		trials, err := Trials(ctx, cl, run)
		if err != nil {
			return nil, nil, err
		}
		snap := progress.Take(run, trials, time.Now())
		if show != nil {
			show(snap)
		}
		if snap.Finished() {
			return run, trials, nil
		}
		select {
		case <-ctx.Done():
			return run, trials, ctx.Err()
		case <-tick.C:
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
func Watch(ctx context.Context, cl client.Client, ns, name string, w, errW io.Writer) (*evalv1.SweepRun, []evalv1.TaskTrial, bool, error) {
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
func FollowQuietly(ctx context.Context, errOut io.Writer, cl client.Client, ns, name string) (*evalv1.SweepRun, []evalv1.TaskTrial, error) {
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
