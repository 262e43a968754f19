package podcontract

import (
	"strings"
	"testing"
)

func TestJoinResultsRefusesInconsistentSecrets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		secrets []map[string][]byte
		wantErr string
	}{
		{name: "key twice", secrets: []map[string][]byte{{"a": nil}, {"a": nil}}, wantErr: "key a is in two results Secrets"},
		{name: "piece twice", secrets: []map[string][]byte{{"_part0.a": nil}, {"_part0.a": nil}}, wantErr: "piece 0 of a is in two"},
		{name: "gap", secrets: []map[string][]byte{{"_part0.a": nil, "_part2.a": nil}}, wantErr: "piece 1 of 2 is missing"},
		{name: "whole and pieces", secrets: []map[string][]byte{{"a": nil, "_part0.a": nil}}, wantErr: "stored whole and in pieces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := JoinResults(tc.secrets); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error = %v, want %q", err, tc.wantErr)
			}
		})
	}
	if n, err := ResultsCount(map[string][]byte{ResultsCountKey: []byte("0")}); err == nil {
		t.Errorf("ResultsCount of 0 = %d, want an error", n)
	}
	if n, err := ResultsCount(map[string][]byte{"reward.json": nil}); err != nil || n != 1 {
		t.Errorf("ResultsCount of a Secret from before = %d, %v; want 1", n, err)
	}
}
