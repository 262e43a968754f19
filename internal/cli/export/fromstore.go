package export

import (
	"context"
	"fmt"

	"github.com/swe-sweep/sweep-operator/internal/cli/storeread"
)

// fromStore copies a campaign's job folder from the artifact store into o.Dir as the store
// holds it: the record the manager wrote is already in Harbor's layout, so SWE-sweep's and
// Harbor's tools read the copy, and so does `sweep info DIR`. It needs no cluster: the
// campaign's objects may be long gone.
func (o *Options) fromStore(ctx context.Context) error {
	job, n, err := storeread.Download(ctx, o.Name, o.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "copied %d files of the job folder %s to %s\n", n, job.URL, o.Dir)
	return nil
}
