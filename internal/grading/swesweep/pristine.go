package swesweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// pristineArchive is the snapshot of oracle_pristine_paths, in snapshotDir.
const pristineArchive = "pristine.tar"

// snapshotPristine archives the bundle's oracle_pristine_paths, the build outputs of the
// pristine tree that a self-hosting build overwrites (a compiler built by the last build), so
// that each gold is built as on the pristine tree and not by the previous gold's build, as
// SWE-sweep snapshots them. tar runs as the test identity, which built those outputs: it reads
// and later writes only what that identity can, whatever links the builds leave in the tree.
func (g *grader) snapshotPristine(ctx context.Context) error {
	paths := g.bundle.OraclePristinePaths
	if len(paths) == 0 {
		return nil
	}
	dir, err := os.MkdirTemp("", "sweep-pristine-")
	if err != nil {
		return err
	}
	g.snapshotDir = dir
	if err := os.Chown(dir, int(g.o.TestUser.UID), int(g.o.TestUser.GID)); err != nil {
		return fmt.Errorf("oracle_pristine_paths: giving the snapshot directory to the test identity: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	command := "tar -cf " + shellQuoteAll([]string{filepath.Join(dir, pristineArchive)}) + " -- " + shellQuoteAll(paths)
	if err := g.tarStep(ctx, command); err != nil {
		return fmt.Errorf("cannot snapshot oracle_pristine_paths %s: %w", strings.Join(paths, ", "), err)
	}
	return nil
}

// restorePristine puts the snapshot of oracle_pristine_paths back, after a reset and before a
// gold is applied.
func (g *grader) restorePristine(ctx context.Context) error {
	if g.snapshotDir == "" {
		return nil
	}
	command := "tar -xf " + shellQuoteAll([]string{filepath.Join(g.snapshotDir, pristineArchive)})
	if err := g.tarStep(ctx, command); err != nil {
		return fmt.Errorf("cannot restore oracle_pristine_paths: %w", err)
	}
	return nil
}

// tarStep runs a tar command in the workdir as the test identity.
func (g *grader) tarStep(ctx context.Context, command string) error {
	rep, err := g.shell(ctx, command, g.limit(0, defaultSetupTimeout), g.o.Log, nil, nil)
	switch {
	case err != nil:
		return err
	case rep.Canceled:
		return errCanceled
	case rep.StartError != "":
		return notStarted(rep)
	case rep.TimedOut || rep.ExitCode != 0:
		return fmt.Errorf("%s %s", command, describe(rep))
	}
	return nil
}
