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
)

// ErrNoResult is returned by Read when the directory holds neither file.
var ErrNoResult = errors.New("the verifier wrote neither " + FileJSON + " nor " + FileText)

// Read reads dir/reward.json or, when it does not exist, dir/reward.txt. Content that is not
// a result is an error that says what is wrong; a directory with neither file is ErrNoResult.
func Read(dir string) (Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, FileJSON))
	if err == nil {
		return ParseJSON(b)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	b, err = os.ReadFile(filepath.Join(dir, FileText))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoResult
	}
	if err != nil {
		return nil, err
	}
	return ParseText(b)
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
