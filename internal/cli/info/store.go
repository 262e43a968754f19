package info

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/cli/storeread"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/passk"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// storeTrials downloads the job folder a store URL names into a temporary directory and reads
// it exactly as a job directory; what it says of its files names them by the store's URL.
func storeTrials(ctx context.Context, errOut io.Writer, rawURL string, perBug bool) ([]passk.Trial, harborjob.UsageTotals, error) {
	var sum harborjob.UsageTotals
	dir, err := os.MkdirTemp("", "sweep-info-")
	if err != nil {
		return nil, sum, err
	}
	defer func() { _ = os.RemoveAll(dir) }() // a copy of the store's files; the store keeps them
	job, n, err := storeread.Download(ctx, rawURL, dir)
	if err != nil {
		return nil, sum, err
	}
	inStore := func(s string) string { return strings.ReplaceAll(s, dir, strings.TrimSuffix(job.URL, "/")) }
	warnings := &replacingWriter{w: errOut, replace: inStore}
	trials, err := dirTrials(warnings, dir, perBug)
	if err == nil {
		sum, err = dirUsage(warnings, dir)
	}
	if err != nil {
		return nil, sum, errors.New(inStore(err.Error()))
	}
	if len(trials) == 0 {
		return nil, sum, fmt.Errorf("no SWE-sweep %s found in the job folder %s (%d files): its trials are not recorded yet, or it is not a job folder", reward.FileJSON, job.URL, n)
	}
	for i := range trials {
		trials[i].Source = inStore(trials[i].Source)
	}
	return trials, sum, nil
}

// replacingWriter writes each line with replace applied: warnings about a downloaded copy
// name the store's files.
type replacingWriter struct {
	w       io.Writer
	replace func(string) string
}

func (r *replacingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(r.w, r.replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
