package recordstore

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/types"
)

// JobFolder is the key prefix of a SweepRun's job folder: <namespace>/<name>-<uid[:8]>/. The
// UID keeps a SweepRun created again under the same name (a GitOps prune and re-sync, a
// re-apply) from mixing its records with the earlier campaign's.
func JobFolder(namespace, name string, uid types.UID) string {
	id := string(uid)
	if len(id) > 8 {
		id = id[:8]
	}
	return namespace + "/" + name + "-" + id + "/"
}

// Write is the result of PutFiles: how many objects it wrote and how many were already there.
type Write struct {
	Written, Unchanged int
	Bytes              int64
}

// PutFiles writes a record's files below folder (ending in /), each by Put, in name order and
// the files of last after the others: a reader that finds the last (a trial's result.json)
// finds the whole record.
func (s *Store) PutFiles(ctx context.Context, folder string, files map[string][]byte, last ...string) (Write, error) {
	var w Write
	if folder != "" && folder[len(folder)-1] != '/' {
		return w, fmt.Errorf("folder %q ends in /", folder)
	}
	isLast := map[string]bool{}
	for _, name := range last {
		isLast[name] = true
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		if isLast[names[i]] != isLast[names[j]] {
			return !isLast[names[i]]
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		wrote, err := s.Put(ctx, folder+name, files[name])
		if err != nil {
			return w, err
		}
		if wrote {
			w.Written++
			w.Bytes += int64(len(files[name]))
		} else {
			w.Unchanged++
		}
	}
	return w, nil
}
