package trialrecord

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/podcontract/podcontracttest"
)

// resultsSecrets are the results Secrets of trial t1 as the controller stores files with
// their manifest; change, when set, alters the Secrets' data first.
func resultsSecrets(t *testing.T, files map[string][]byte, change func([]map[string][]byte)) []client.Object {
	t.Helper()
	records := podcontracttest.VerifierRecords(t, files)
	data := podbuild.SplitResults(records, []string{podcontract.RecordReward}, 1<<10)
	if change != nil {
		change(data)
	}
	var out []client.Object
	for i, d := range data {
		out = append(out, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: podbuild.ResultsSecretNameAt("t1", i)}, Data: d})
	}
	return out
}

func TestVerifierFiles(t *testing.T) {
	trial := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t1"}}
	big := []byte(strings.Repeat("0123456789", 300))
	files := map[string][]byte{"reward.json": []byte(`{"reward": 1}`), "eval.json": big, "runs/a.txt": []byte("a"), "b.bin": {0, 0xff}}
	for _, tc := range []struct {
		name    string
		objects []client.Object
		want    map[string][]byte
		wantErr string
	}{
		{name: "no results Secret"},
		{name: "spread over Secrets, eval.json in pieces", objects: resultsSecrets(t, files, nil), want: files},
		{name: "a Secret from before the manifest",
			objects: []client.Object{&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t1-results"},
				Data: map[string][]byte{"reward.json": []byte(`{"reward": 1}`), "eval.json": []byte(`{}`)}}},
			want: map[string][]byte{"reward.json": []byte(`{"reward": 1}`), "eval.json": []byte(`{}`)}},
		{name: "a Secret lost", objects: resultsSecrets(t, files, nil)[:2], wantErr: "secret t1-results-2, number 3 of 4, is missing"},
		{name: "a record changed", objects: resultsSecrets(t, files, func(d []map[string][]byte) { d[0]["reward.json"] = []byte(`{"reward": 0}`) }),
			wantErr: "record reward.json (file reward.json) does not match the manifest's size and sha256"},
		{name: "a piece cut", objects: resultsSecrets(t, files, func(d []map[string][]byte) {
			for _, s := range d {
				if p, ok := s["_part2.eval.json"]; ok {
					s["_part2.eval.json"] = p[:1] // the last piece: no gap shows it, the manifest does
				}
			}
		}), wantErr: "record eval.json (file eval.json) does not match"},
		{name: "a bad count", objects: resultsSecrets(t, files, func(d []map[string][]byte) { d[0][podcontract.ResultsCountKey] = []byte("many") }),
			wantErr: `key _results-secrets holds "many"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithObjects(tc.objects...).Build()
			got, _, err := VerifierFiles(context.Background(), cl, trial)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "regrade the trial") {
					t.Fatalf("error = %v, want %q and what to do", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

// artifactsSecrets are trial t1's artifacts Secrets as harvest writes them; drop, when not
// negative, leaves out the Secret of that index.
func artifactsSecrets(artifacts map[string][]byte, sums map[string]string, drop int) []client.Object {
	var out []client.Object
	for i, d := range podbuild.ArtifactSecrets(artifacts, sums) {
		if i != drop {
			out = append(out, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: podbuild.ArtifactSecretNameAt("t1", i)}, Data: d})
		}
	}
	return out
}

func TestArtifacts(t *testing.T) {
	trial := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t1"}}
	patch := []byte(strings.Repeat("+0123456789\n", 300<<10)) // 3.6 MiB
	sum := sha256.Sum256(patch)
	artifacts := map[string][]byte{podcontract.PatchKey: patch}
	sums := map[string]string{podcontract.PatchKey: hex.EncodeToString(sum[:])}
	for _, tc := range []struct {
		name    string
		objects []client.Object
		want    map[string][]byte
		wantErr string
	}{
		{name: "no artifacts Secret"},
		{name: "spread over Secrets, without the bookkeeping keys", objects: artifactsSecrets(artifacts, sums, -1), want: artifacts},
		{name: "a Secret from before checksums", objects: []client.Object{&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "t1-artifacts"},
			Data: map[string][]byte{podcontract.PatchKey: []byte("diff")}}}, want: map[string][]byte{podcontract.PatchKey: []byte("diff")}},
		{name: "a Secret lost", objects: artifactsSecrets(artifacts, sums, 2), wantErr: "secret t1-artifacts-2, number 3 of 4, is missing"},
		{name: "a changed patch", objects: artifactsSecrets(artifacts, map[string]string{podcontract.PatchKey: "00"}, -1), wantErr: "artifact model.patch does not match its sha256 00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := fake.NewClientBuilder().WithObjects(tc.objects...).Build()
			got, err := Artifacts(context.Background(), cl, trial)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "trial t1: artifacts Secrets ns/t1-artifacts") {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("artifacts (-want +got):\n%s", diff)
			}
		})
	}
}
