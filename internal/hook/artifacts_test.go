package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// The verifier puts a patch back whole from the merged artifacts Secrets, in pieces or not,
// when its checksum matches; a missing or changed piece is ArtifactsLost, never a patch less.
func TestRestoreArtifacts(t *testing.T) {
	patch := "diff --git a/x b/x\n" + strings.Repeat("+data\n", 10)
	sumKey := pc.ArtifactChecksumKey(pc.PatchKey)
	inPieces := map[string]string{sumKey: sha256Hex(patch), pc.ResultsCountKey: "3",
		pc.PieceKey(pc.PatchKey, 0): patch[:20], pc.PieceKey(pc.PatchKey, 1): patch[20:40], pc.PieceKey(pc.PatchKey, 2): patch[40:]}
	without := func(key string) map[string]string {
		m := maps.Clone(inPieces)
		delete(m, key)
		return m
	}
	for _, tc := range []struct {
		name      string
		inputs    map[string]string
		wantPatch string // "" : not restored
		wantErr   string
	}{
		{name: "whole", inputs: map[string]string{sumKey: sha256Hex(patch), pc.PatchKey: patch}, wantPatch: patch},
		{name: "in pieces", inputs: inPieces, wantPatch: patch},
		{name: "no checksum: a Secret from before checksums", inputs: map[string]string{pc.PatchKey: patch}, wantPatch: patch},
		{name: "no patch: the agent stage produced none", inputs: map[string]string{}},
		{name: "the last piece missing", inputs: without(pc.PieceKey(pc.PatchKey, 2)), wantErr: "not the " + sha256Hex(patch) + " the collector sent"},
		{name: "a middle piece missing", inputs: without(pc.PieceKey(pc.PatchKey, 1)), wantErr: "piece 1 of 2 is missing"},
		{name: "every piece missing", inputs: map[string]string{sumKey: sha256Hex(patch)}, wantErr: "has a checksum in"},
		{name: "changed", inputs: map[string]string{sumKey: sha256Hex(patch), pc.PatchKey: patch + "+more\n"}, wantErr: "a piece is missing or changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range tc.inputs {
				files[filepath.Join("sweep/input", k)] = v
			}
			paths := podRoot(t, files)
			log, err := newCappedLog(filepath.Join(t.TempDir(), "log"), 1<<10, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = restoreArtifacts(verifierSpec(paths).Artifacts, paths.Input, log)
			var lost *artifactsLostError
			if tc.wantErr != "" {
				if !errors.As(err, &lost) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want an artifactsLostError with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(paths.Patch)
			if tc.wantPatch == "" {
				if !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a patch was restored: %q, %v", got, err)
				}
				return
			}
			if string(got) != tc.wantPatch {
				t.Errorf("restored %d bytes, want the %d of the patch", len(got), len(tc.wantPatch))
			}
		})
	}
}

// The kubelet's own entries of a Secret volume are not inputs.
func TestReadInputsSkipsTheKubeletsEntries(t *testing.T) {
	dir := t.TempDir()
	sweeptest.WriteFiles(t, dir, map[string]string{"..2026_12_01/model.patch": "p", "..2026_12_01/" + pc.ArtifactChecksumKey(pc.PatchKey): "s"})
	for _, name := range []string{pc.PatchKey, pc.ArtifactChecksumKey(pc.PatchKey)} {
		mustSymlink(t, filepath.Join("..2026_12_01", name), filepath.Join(dir, name))
	}
	mustSymlink(t, "..2026_12_01", filepath.Join(dir, "..data"))
	got, err := readInputs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[pc.PatchKey]) != "p" {
		t.Errorf("inputs = %q, want the two keys", got)
	}
}

// A verifier whose patch arrived changed grades nothing and says ArtifactsLost.
func TestVerifyRefusesLostArtifacts(t *testing.T) {
	paths := podRoot(t, map[string]string{"sweep/input/model.patch": "diff\n", "sweep/input/" + pc.ArtifactChecksumKey(pc.PatchKey): sha256Hex("other\n"),
		"tests/test.sh": "echo 1 > \"$VERIFIER_DIR/reward.txt\"\n"})
	t.Setenv("VERIFIER_DIR", paths.VerifierDir)
	openToOthers(t, paths)
	d, err := RunVerify(context.Background(), verifierSpec(paths), paths, VerifyOptions{Self: selfBinary, TestUser: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	if d.Reason != reasons.ArtifactsLost || len(d.Rewards) != 0 || !strings.Contains(d.Message, "did not reach the verifier whole") {
		t.Errorf("done = reason %q, message %q, rewards %v; want ArtifactsLost and no rewards", d.Reason, d.Message, d.Rewards)
	}
	if _, err := os.Stat(filepath.Join(paths.VerifierDir, "reward.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("test.sh ran: %v", err)
	}
}
