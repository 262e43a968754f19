package podbuild

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A trial's results Secrets hold every record its verifier's collector sent (reward.json,
// eval.json, report.json, the manifest and the other files below /logs/verifier), spread over
// as many Secrets as it takes for each to carry at most MaxSecretPayload bytes (keys and
// values). The first, ResultsSecretName, holds reward.json, the grader's outputs and eval.json
// whenever they fit, under their record names, so that a reader of one key keeps working, and
// ResultsCountKey; a record too large for one Secret is stored in pieces, under keys made by
// pieceKey. Record names never start with "_" and a letter that is no hex digit
// (podcontract.VerifierFileRecord), so these keys cannot collide with a record's.

// ResultsSecretName is the first results Secret of a trial.
func ResultsSecretName(trial string) string { return ResultsSecretNameAt(trial, 0) }

// ResultsSecretNameAt is the i-th results Secret of a trial: <trial>-results, then
// <trial>-results-1, <trial>-results-2, ...
func ResultsSecretNameAt(trial string, i int) string {
	if i == 0 {
		return trial + "-results"
	}
	return trial + "-results-" + strconv.Itoa(i)
}

// ResultsCountKey is the first results Secret's key that says how many there are. A first
// Secret without it is one written before results were spread: it is the only one.
const ResultsCountKey = "_results-secrets"

// piecePrefix starts the key of a piece of a record: "_part<i>.<record>".
const piecePrefix = "_part"

func pieceKey(record string, i int) string { return piecePrefix + strconv.Itoa(i) + "." + record }

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

// SplitResults spreads records over the data of as few results Secrets as it can, each within
// maxPayload bytes: the records named in first in that order, then the others by name, each
// into the first Secret with room for it; a record larger than a Secret goes in pieces. The
// first Secret also holds ResultsCountKey. No records, no Secrets.
func SplitResults(records map[string][]byte, first []string, maxPayload int) []map[string][]byte {
	var order []string
	for _, name := range first {
		if _, ok := records[name]; ok && !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(records)) {
		if !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	if len(order) == 0 {
		return nil
	}
	// Room for the count, whatever it becomes.
	secrets := []map[string][]byte{{}}
	sizes := []int{len(ResultsCountKey) + 20}
	place := func(key string, data []byte) {
		need := len(key) + len(data)
		for i := range secrets {
			if sizes[i]+need <= maxPayload {
				secrets[i][key], sizes[i] = data, sizes[i]+need
				return
			}
		}
		secrets, sizes = append(secrets, map[string][]byte{key: data}), append(sizes, need)
	}
	for _, name := range order {
		data := records[name]
		if len(name)+len(data) <= maxPayload {
			place(name, data)
			continue
		}
		// The longest piece key this record can need, so that every piece fits an empty Secret.
		room := maxPayload - len(pieceKey(name, len(data)))
		for i := 0; len(data) > 0; i++ {
			n := min(len(data), room)
			place(pieceKey(name, i), data[:n])
			data = data[n:]
		}
	}
	secrets[0][ResultsCountKey] = []byte(strconv.Itoa(len(secrets)))
	return secrets
}

// ResultsCount is how many results Secrets the first one's data says there are.
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
// 8 MiB compressed (podcontract.DefaultLimits), and its records at most 16 MiB each.
const maxResultsSecrets = 1024

// JoinResults reassembles the records from the data of a trial's results Secrets: a record's
// pieces are joined, and a key found twice or a gap between pieces is an error. (A missing
// last piece shows against the size and sha256 the verifier's manifest gives.)
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
