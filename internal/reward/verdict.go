package reward

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"

	"github.com/swe-sweep/sweep-operator/internal/regularfile"
)

// FileVerdict is the file a built-in grader writes beside reward.json when the result it
// measured has a cause the trial must show: the agent's patch was refused, its tests hung,
// and so on. Only the grader writes the verifier directory (the tests run as an identity that
// cannot), so the hook may trust it; a test.sh task has none.
const FileVerdict = "verdict.json"

// Verdict is why a measured result is what it is; Reason is one of api/v1alpha1/reasons.
type Verdict struct {
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
}

// verdictReasons are the causes a grader may give a measured result; any other reason in
// verdict.json (one that would make the trial "not measured", say) is refused.
var verdictReasons = []string{reasons.PatchRefused, reasons.TestsHungOnPatch}

// ReadVerdict reads dir/verdict.json; a directory without one is the zero Verdict.
func ReadVerdict(dir string) (Verdict, error) {
	var v Verdict
	b, err := regularfile.ReadFile(filepath.Join(dir, FileVerdict), MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return v, nil
	}
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%s: %w", FileVerdict, err)
	}
	if !slices.Contains(verdictReasons, v.Reason) {
		return Verdict{}, fmt.Errorf("%s: reason %q is not one a grader gives a measured result (want one of %v)", FileVerdict, v.Reason, verdictReasons)
	}
	return v, nil
}

// EncodeVerdict is the content of verdict.json.
func EncodeVerdict(v Verdict) ([]byte, error) { return json.Marshal(v) }
