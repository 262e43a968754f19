package podcontract

import (
	"fmt"
	"strconv"
	"strings"
)

// Records too large for one Secret (the verifier's results, the agent's artifacts) are spread
// over several Secrets (podbuild.SplitResults) and joined back here, by the controller's readers
// and by the verifier stage, which sees the artifacts Secrets merged into one directory. A
// record larger than a Secret is stored in pieces, under keys made by PieceKey. Record names
// never start with "_" and a letter that is no hex digit (VerifierFileRecord), so these keys
// cannot collide with a record's.

// ResultsCountKey is the first Secret's key that says how many Secrets there are. A first
// Secret without it is one written before records were spread: it is the only one.
const ResultsCountKey = "_results-secrets"

// piecePrefix starts the key of a piece of a record: "_part<i>.<record>".
const piecePrefix = "_part"

// PieceKey is the key of piece i of record.
func PieceKey(record string, i int) string { return piecePrefix + strconv.Itoa(i) + "." + record }

// pieceOf parses a piece's key.
func pieceOf(key string) (record string, i int, ok bool) {
	rest, ok := strings.CutPrefix(key, piecePrefix)
	if !ok {
		return "", 0, false
	}
	num, record, ok := strings.Cut(rest, ".")
	i, err := strconv.Atoi(num)
	if !ok || err != nil || i < 0 || strconv.Itoa(i) != num || record == "" {
		return "", 0, false
	}
	return record, i, true
}

// ResultsCount is how many Secrets the first one's data says there are.
func ResultsCount(first map[string][]byte) (int, error) {
	b, ok := first[ResultsCountKey]
	if !ok {
		return 1, nil
	}
	n, err := strconv.Atoi(string(b))
	if err != nil || n < 1 || n > maxResultsSecrets {
		return 0, fmt.Errorf("key %s holds %q, not a count of Secrets", ResultsCountKey, b)
	}
	return n, nil
}

// maxResultsSecrets bounds the count a reader believes: the collector's stream is at most
// 8 MiB compressed (DefaultLimits), and its records at most 16 MiB each.
const maxResultsSecrets = 1024

// JoinResults reassembles the records from the data of Secrets spread by
// podbuild.SplitResults: a record's pieces are joined, and a key found twice or a gap between
// pieces is an error. (A missing last piece shows against the size and sha256 the verifier's
// manifest, or the artifacts' checksums, give.)
func JoinResults(secrets []map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	pieces := map[string]map[int][]byte{}
	for s, data := range secrets {
		for key, b := range data {
			if key == ResultsCountKey {
				continue
			}
			if record, i, ok := pieceOf(key); ok {
				if pieces[record] == nil {
					pieces[record] = map[int][]byte{}
				}
				if _, dup := pieces[record][i]; dup {
					return nil, fmt.Errorf("piece %d of %s is in two results Secrets (the second is number %d)", i, record, s)
				}
				pieces[record][i] = b
				continue
			}
			if _, dup := out[key]; dup {
				return nil, fmt.Errorf("key %s is in two results Secrets (the second is number %d)", key, s)
			}
			out[key] = b
		}
	}
	for record, parts := range pieces {
		if _, dup := out[record]; dup {
			return nil, fmt.Errorf("record %s is stored whole and in pieces", record)
		}
		var joined []byte
		for i := range len(parts) {
			p, ok := parts[i]
			if !ok {
				return nil, fmt.Errorf("record %s: piece %d of %d is missing", record, i, len(parts))
			}
			joined = append(joined, p...)
		}
		out[record] = joined
	}
	return out, nil
}

// MaxArtifactBytes is what the agent's artifacts (the patch) may hold together to reach the
// verifier; larger ones end the agent stage with PatchTooLarge. The agent stage's stream
// carries at most DefaultLimits' MaxStreamBytes (8 MiB, kept below the kubelet's 10 MiB log
// rotation), counted uncompressed, with the agent's log after the artifacts: 7 MiB leaves the
// stream's framing room.
const MaxArtifactBytes = 7 << 20

// ArtifactChecksumKey is the key of the artifacts Secrets holding the sha256 (hex) of artifact
// key as the collector read it: the verifier checks the artifact it reassembles against it.
func ArtifactChecksumKey(key string) string { return "_sha256." + key }
