package trialrecord

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// VerifierFiles reads the files a finished trial's verifier left below /logs/verifier from
// its results Secrets, by path below that directory (slash-separated: "reward.json",
// "eval.json", "runs/junit.xml", ...), each checked against the manifest's size and sha256,
// and the manifest, which also lists what was not kept and why. A trial whose Secrets predate
// the manifest has its reward.json, eval.json and report.json; reward.json is also there when
// the controller wrote it for a verifier that left none. No results Secret, no files.
func VerifierFiles(ctx context.Context, cl client.Reader, tr *evalv1.TaskTrial) (map[string][]byte, podcontract.VerifierFiles, error) {
	var manifest podcontract.VerifierFiles
	broken := func(err error) error {
		return fmt.Errorf("trial %s: results Secrets %s/%s...: %w; the Secrets were changed or lost: regrade the trial", tr.Name, tr.Namespace, podbuild.ResultsSecretName(tr.Name), err)
	}
	records, err := joinSpread(ctx, cl, tr, podbuild.ResultsSecretNameAt, broken)
	if err != nil || records == nil {
		return nil, manifest, err
	}
	files, manifest, err := RecordFiles(records)
	if err != nil {
		return nil, manifest, broken(err)
	}
	return files, manifest, nil
}

// RecordFiles are the verifier's files among the records its collector sent (as the
// controller holds them at harvest, and as the results Secrets keep them), by path below
// /logs/verifier, each checked against the manifest's size and sha256, and the manifest.
func RecordFiles(records map[string][]byte) (map[string][]byte, podcontract.VerifierFiles, error) {
	var manifest podcontract.VerifierFiles
	var err error
	files := map[string][]byte{}
	if b, ok := records[podcontract.RecordVerifierFiles]; ok {
		if manifest, err = podcontract.DecodeVerifierFiles(b); err != nil {
			return nil, manifest, err
		}
	}
	for _, f := range manifest.Files {
		if !f.Kept() {
			continue
		}
		data, ok := records[f.Name]
		sum := sha256.Sum256(data)
		if !ok || int64(len(data)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			return nil, manifest, fmt.Errorf("record %s (file %s) does not match the manifest's size and sha256", f.Name, f.Path)
		}
		files[f.Path] = data
	}
	for _, name := range []string{podcontract.RecordReward, podcontract.RecordEval, podcontract.RecordSWEBenchReport} {
		if b, ok := records[name]; ok && files[name] == nil {
			files[name] = b
		}
	}
	return files, manifest, nil
}

// joinSpread reads and joins the Secrets of a trial spread by podbuild.SplitResults, named by
// nameAt; broken wraps what says they were changed or lost. No first Secret, no records.
func joinSpread(ctx context.Context, cl client.Reader, tr *evalv1.TaskTrial, nameAt func(trial string, i int) string, broken func(error) error) (map[string][]byte, error) {
	first, err := OptionalSecret(ctx, cl, tr.Namespace, nameAt(tr.Name, 0))
	if err != nil || first == nil {
		return nil, err
	}
	n, err := podcontract.ResultsCount(first)
	if err != nil {
		return nil, broken(err)
	}
	secrets := []map[string][]byte{first}
	for i := 1; i < n; i++ {
		name := nameAt(tr.Name, i)
		data, err := OptionalSecret(ctx, cl, tr.Namespace, name)
		if err != nil {
			return nil, err
		}
		if data == nil {
			return nil, broken(fmt.Errorf("secret %s, number %d of %d, is missing", name, i+1, n))
		}
		secrets = append(secrets, data)
	}
	records, err := podcontract.JoinResults(secrets)
	if err != nil {
		return nil, broken(err)
	}
	return records, nil
}

// Artifacts reads the artifacts the trial's verifier received (the patch: model.patch), by
// key, from its artifacts Secrets, each checked against the checksum the collector sent. No
// artifacts Secret (the agent stage never finished), no artifacts.
func Artifacts(ctx context.Context, cl client.Reader, tr *evalv1.TaskTrial) (map[string][]byte, error) {
	broken := func(err error) error {
		return fmt.Errorf("trial %s: artifacts Secrets %s/%s...: %w; the Secrets were changed or lost", tr.Name, tr.Namespace, podbuild.ArtifactSecretName(tr.Name), err)
	}
	records, err := joinSpread(ctx, cl, tr, podbuild.ArtifactSecretNameAt, broken)
	if err != nil || records == nil {
		return nil, err
	}
	out := map[string][]byte{}
	for key, data := range records {
		if strings.HasPrefix(key, podcontract.ArtifactChecksumKey("")) {
			continue
		}
		sum, checked := records[podcontract.ArtifactChecksumKey(key)]
		if got := sha256.Sum256(data); checked && hex.EncodeToString(got[:]) != string(sum) {
			return nil, broken(fmt.Errorf("artifact %s does not match its sha256 %s", key, sum))
		}
		out[key] = data
	}
	return out, nil
}
