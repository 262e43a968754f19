package reward

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/regularfile"
)

// ErrNoResult is returned by Read when the directory holds neither file.
var ErrNoResult = errors.New("the verifier wrote neither " + FileJSON + " nor " + FileText)

// MaxFileBytes bounds a result file: MaxKeys keys of MaxKeyLen bytes and their numbers take a
// few KiB, so a larger file is not a result and is not read whole.
const MaxFileBytes = 64 << 10

// Read reads dir/reward.json or, when it does not exist, dir/reward.txt, and says which file
// it read. Content that is not a result is an error that says what is wrong; so is a result
// file that is a symbolic link or not a regular file (code under test could point one at any
// file it can read), or above MaxFileBytes. A directory with neither file is ErrNoResult.
func Read(dir string) (Result, string, error) {
	file := filepath.Join(dir, FileJSON)
	b, err := regularfile.ReadFile(file, MaxFileBytes)
	if err == nil {
		r, err := ParseJSON(b)
		return r, file, err
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, file, err
	}
	file = filepath.Join(dir, FileText)
	b, err = regularfile.ReadFile(file, MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", ErrNoResult
	}
	if err != nil {
		return nil, file, err
	}
	r, err := ParseText(b)
	return r, file, err
}

// ParseJSON reads reward.json: one flat JSON object of finite numbers within the bounds.
func ParseJSON(b []byte) (Result, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object: %w", FileJSON, err)
	}
	if raw == nil {
		return nil, fmt.Errorf("%s is not a JSON object", FileJSON)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s has data after its object", FileJSON)
	}
	// The bounds are checked before the values, so that a huge object is refused at once.
	if len(raw) > MaxKeys {
		return nil, fmt.Errorf("%s has %d keys, at most %d allowed", FileJSON, len(raw), MaxKeys)
	}
	r := make(Result, len(raw))
	for k, v := range raw {
		f, err := parseNumber(string(v))
		if err != nil {
			return nil, fmt.Errorf("%s key %q: %s is %w", FileJSON, k, v, err)
		}
		r[k] = f
	}
	if err := r.validate(FileJSON); err != nil {
		return nil, err
	}
	return r, nil
}

// ParseText reads reward.txt: one finite number, surrounding space allowed, reported as
// KeyReward.
func ParseText(b []byte) (Result, error) {
	s := strings.TrimSpace(string(b))
	v, err := parseNumber(s)
	if err != nil {
		return nil, fmt.Errorf("%s holds %q, which is %w; want one number such as 0.5", FileText, s, err)
	}
	return Result{KeyReward: v}, nil
}

// parseNumber accepts a finite number and nothing else: no strings, booleans, null, NaN or
// infinities.
func parseNumber(s string) (float64, error) {
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("not a finite number")
	}
	return f, nil
}
