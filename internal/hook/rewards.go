package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Bounds on a reward file, so that the rewards always fit in the collector's summary.
const (
	maxRewardKeys   = 32
	maxRewardKeyLen = 64
)

// readRewards reads reward.json (a flat object of finite numbers) or, when it does not
// exist, reward.txt (one number, reported as "reward"). Any other content is an error that
// says what is wrong.
func readRewards(jsonPath, textPath string) (map[string]float64, error) {
	b, err := os.ReadFile(jsonPath)
	if err == nil {
		return parseRewardJSON(b)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	b, err = os.ReadFile(textPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errors.New("the verifier wrote neither reward.json nor reward.txt")
	}
	if err != nil {
		return nil, err
	}
	v, err := parseNumber(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("reward.txt: %w", err)
	}
	return map[string]float64{"reward": v}, nil
}

func parseRewardJSON(b []byte) (map[string]float64, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("reward.json is not a JSON object: %w", err)
	}
	if raw == nil {
		return nil, errors.New("reward.json is not a JSON object")
	}
	if dec.More() {
		return nil, errors.New("reward.json has data after its object")
	}
	if len(raw) == 0 {
		return nil, errors.New("reward.json is empty")
	}
	if len(raw) > maxRewardKeys {
		return nil, fmt.Errorf("reward.json has %d keys, at most %d allowed", len(raw), maxRewardKeys)
	}
	out := map[string]float64{}
	for k, v := range raw {
		if k == "" || len(k) > maxRewardKeyLen {
			return nil, fmt.Errorf("reward.json key %q: keys must have 1 to %d bytes", k, maxRewardKeyLen)
		}
		f, err := parseNumber(string(v))
		if err != nil {
			return nil, fmt.Errorf("reward.json key %q: %s is %w", k, v, err)
		}
		out[k] = f
	}
	return out, nil
}

// parseNumber accepts a finite number and nothing else: no strings, booleans, null, NaN or
// infinities.
func parseNumber(s string) (float64, error) {
	if s == "" || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, errors.New("not a finite number")
	}
	return f, nil
}
