package podbuild

import (
	"maps"
	"slices"
	"strconv"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// A trial's results Secrets hold every record its verifier's collector sent (reward.json,
// eval.json, report.json, the manifest and the other files below /logs/verifier), spread over
// as many Secrets as it takes for each to carry at most MaxSecretPayload bytes (keys and
// values). The first, ResultsSecretName, holds reward.json, the grader's outputs and eval.json
// whenever they fit, under their record names, so that a reader of one key keeps working, and
// podcontract.ResultsCountKey; a record too large for one Secret is stored in pieces
// (podcontract.PieceKey), joined back by podcontract.JoinResults. The artifacts Secrets
// (ArtifactSecrets) are spread the same way.

// ResultsSecretName is the first results Secret of a trial.
func ResultsSecretName(trial string) string { return ResultsSecretNameAt(trial, 0) }

// ResultsSecretNameAt is the i-th results Secret of a trial: <trial>-results, then
// <trial>-results-1, <trial>-results-2, ...
func ResultsSecretNameAt(trial string, i int) string { return spreadSecretName(trial+"-results", i) }

// spreadSecretName is the i-th of the Secrets named first: first, then first-1, first-2, ...
func spreadSecretName(first string, i int) string {
	if i == 0 {
		return first
	}
	return first + "-" + strconv.Itoa(i)
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
	sizes := []int{len(podcontract.ResultsCountKey) + 20}
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
		room := maxPayload - len(podcontract.PieceKey(name, len(data)))
		for i := 0; len(data) > 0; i++ {
			n := min(len(data), room)
			place(podcontract.PieceKey(name, i), data[:n])
			data = data[n:]
		}
	}
	secrets[0][podcontract.ResultsCountKey] = []byte(strconv.Itoa(len(secrets)))
	return secrets
}
