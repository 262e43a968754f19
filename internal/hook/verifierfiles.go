package hook

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/regularfile"
)

// logReserveBytes is what the verifier's other files leave of the stream budget to
// test-stdout.txt at least (or half the budget, when that is less): files are sent whole or
// not at all, the log is cut to what remains.
const logReserveBytes = 1 << 20

// otherFiles are the entries below the verifier directory as the collector found them: the
// declared outputs, read before, and every other file, read here.
type otherFiles struct {
	entries []pc.VerifierFile
	// declared maps an entry to the declared output it is (its index in the outputs).
	declared map[int]int
	records  []pc.Record
	// manifestBytes bounds the manifest's size so far.
	manifestBytes int
	incomplete    bool
}

// collectOtherFiles walks dir (the verifier directory) and reads every regular file in it, at
// any depth, that is not a declared output: each whole within maxRecord and what is left of
// budget less the log's reserve, or not at all. Symbolic links and other files that are not
// regular are refused, never followed or read (regularfile.Walk). Every entry is charged to
// budget for its line in the manifest, which the collector sends too.
func collectOtherFiles(dir string, files []outputFile, maxRecord int64, budget *int64) *otherFiles {
	declared := map[string]int{}
	for i, f := range files {
		if filepath.Dir(f.path) == filepath.Clean(dir) {
			declared[filepath.Base(f.path)] = i
		}
	}
	o := &otherFiles{declared: map[int]int{}}
	reserve := min(logReserveBytes, max(*budget, 0)/2)
	complete, err := regularfile.Walk(dir, pc.MaxVerifierEntries, func(rel string, f *os.File, st fs.FileInfo, err error) {
		if f != nil {
			defer func() { _ = f.Close() }() // read-only: its close has nothing to report
		}
		entry := pc.VerifierFile{Path: rel, Output: pc.Output{Name: pc.VerifierFileRecord(rel)}}
		if why := pc.ValidVerifierPath(rel); why != "" {
			entry.Path = strconv.Quote(rel)
			err = errors.New(why)
		}
		cost := manifestCost(entry)
		if o.incomplete || o.manifestBytes+cost > pc.MaxVerifierManifestBytes {
			o.incomplete = true
			return
		}
		o.manifestBytes += cost
		*budget -= int64(cost)
		if i, ok := declared[rel]; ok {
			o.declared[len(o.entries)] = i
			o.entries = append(o.entries, entry)
			return
		}
		if err != nil {
			entry.Missing, entry.Refused = true, err.Error()
			o.entries = append(o.entries, entry)
			return
		}
		var data []byte
		entry.Output, data = readOpen(entry.Name, f, st, min(maxRecord, max(*budget-reserve-1024, 0)), false)
		if entry.Kept() {
			*budget -= int64(len(data)) + 1024
			o.records = append(o.records, pc.Record{Name: entry.Name, Data: data})
		}
		o.entries = append(o.entries, entry)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) || !complete {
		o.incomplete = true
	}
	return o
}

// manifestCost bounds what entry adds to the manifest once its output is known: its path, its
// record, a refusal that names the path again (an error of the walk names it with the
// verifier directory before it), the sizes, the sha256 and the keys.
func manifestCost(entry pc.VerifierFile) int {
	path, _ := json.Marshal(entry.Path) // a string always marshals
	return 2*len(path) + len(entry.Name) + 320
}

// manifest is the manifest record, the declared outputs' entries taken from outputs.
func (o *otherFiles) manifest(outputs []pc.Output) ([]byte, error) {
	m := pc.VerifierFiles{Files: o.entries, Incomplete: o.incomplete}
	for entry, i := range o.declared {
		m.Files[entry].Output = outputs[i]
		m.Files[entry].Inline = nil
	}
	return pc.EncodeVerifierFiles(m)
}
