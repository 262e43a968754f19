// Package podcontracttest builds what a verifier's collector sends, for tests of the code that
// reads it (the harvest, the record, export).
package podcontracttest

import (
	"testing"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// VerifierRecords are the records a collector sends for files (by path below /logs/verifier),
// each kept, with the manifest listing them and the entries of notKept.
func VerifierRecords(tb testing.TB, files map[string][]byte, notKept ...podcontract.VerifierFile) map[string][]byte {
	tb.Helper()
	records := map[string][]byte{}
	m := podcontract.VerifierFiles{Files: notKept}
	for path, data := range files {
		name := podcontract.VerifierFileRecord(path)
		records[name] = data
		m.Files = append(m.Files, podcontract.VerifierFile{Path: path, Output: podcontract.NewOutput(name, data, int64(len(data)))})
	}
	manifest, err := podcontract.EncodeVerifierFiles(m)
	if err != nil {
		tb.Fatal(err)
	}
	records[podcontract.RecordVerifierFiles] = manifest
	return records
}
