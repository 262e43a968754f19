// Package usage is what an agent says it spent: the usage file any agent may write in its
// log directory (podcontract.UsagePath), in the field names of Harbor's AgentContext
// (harbor.models.agent.context), and the exact sums a campaign's budget compares.
//
// Harbor's semantics, kept here: n_input_tokens counts every input token, the cached ones
// included; n_cache_tokens is the part of them served from a cache; n_output_tokens the
// tokens generated; cost_usd the run's cost in US dollars. Each field may be absent (null in
// Harbor), which is not 0. The file is the agent's own claim, never measured: it feeds
// status and budgets, never a grade.
package usage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FileName is the usage file's name in the agent's log directory.
const FileName = "usage.json"

// MaxFileBytes bounds the usage file: a few dozen bytes are enough, and the collector reads
// no more.
const MaxFileBytes = 64 << 10

// MaxTokens bounds one count of a usage file: up to 2^53 every integer is exact in the
// JSON readers (Python's, JavaScript's) of an exported result.json.
const MaxTokens = 1 << 53

// MaxFileCost bounds one file's cost_usd, in dollars: a billion dollars of one trial is a
// mistake, and keeping it below keeps every sum of Dollars far from overflow.
const MaxFileCost = 1_000_000_000

// Dollars is an amount of US dollars in nano-dollars (1e-9 USD): sums and comparisons are
// exact integers, never floats.
type Dollars int64

// decimals is the precision of Dollars, in decimal places.
const decimals = 9

var nanosPerDollar = big.NewInt(1_000_000_000)

// ParseDollars parses a non-negative decimal amount such as "25.00" or "0.000001": digits, an
// optional point and at most 9 decimals (spec.budget.maxCostUSD's pattern).
func ParseDollars(s string) (Dollars, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || !digits(whole) || (strings.Contains(s, ".") && (frac == "" || !digits(frac))) || len(frac) > decimals {
		return 0, fmt.Errorf("%q is not an amount of dollars: want digits with at most %d decimals, such as 25.00", s, decimals)
	}
	if len(whole) > 18-decimals {
		return 0, fmt.Errorf("%q is above the %d dollars an amount may be", s, MaxFileCost)
	}
	n, err := strconv.ParseInt(whole+frac+strings.Repeat("0", decimals-len(frac)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an amount of dollars: %w", s, err)
	}
	return Dollars(n), nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// String is d as a decimal with at least 2 and at most 9 decimals, without trailing zeros
// beyond the second: "25.00", "0.000123457". ParseDollars reads it back exactly.
func (d Dollars) String() string {
	sign := ""
	n := int64(d)
	if n < 0 {
		sign, n = "-", -n
	}
	frac := strings.TrimRight(fmt.Sprintf("%09d", n%1_000_000_000), "0")
	for len(frac) < 2 {
		frac += "0"
	}
	return fmt.Sprintf("%s%d.%s", sign, n/1_000_000_000, frac)
}

// MarshalJSON writes d as a JSON number with its exact decimals, as cost_usd is written.
func (d Dollars) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON reads a JSON number of dollars exactly (a float's digits as written, an
// exponent allowed), rounded to the nearest nano-dollar; a negative amount, or one above
// MaxFileCost, is an error.
func (d *Dollars) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "" || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) || !json.Valid(b) {
		return fmt.Errorf("%s is not a number", truncate(s))
	}
	// A float64's exponent is within ±400: a larger one would make the exact reading below
	// build a number of that many digits.
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+")); err != nil || exp > 400 || exp < -400 {
			return fmt.Errorf("%s has an exponent beyond ±400", truncate(s))
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return fmt.Errorf("%s is not a number", truncate(s))
	}
	if r.Sign() < 0 {
		return fmt.Errorf("%s is negative", truncate(s))
	}
	if r.Cmp(new(big.Rat).SetInt64(MaxFileCost)) > 0 {
		return fmt.Errorf("%s is above %d dollars", truncate(s), MaxFileCost)
	}
	// Round half up: (num·1e9·2 + den) / (2·den).
	num := new(big.Int).Mul(r.Num(), nanosPerDollar)
	num.Mul(num, big.NewInt(2)).Add(num, r.Denom())
	num.Quo(num, new(big.Int).Mul(r.Denom(), big.NewInt(2)))
	*d = Dollars(num.Int64())
	return nil
}

// Usage is a usage file, or what a trial or a campaign reported in all. A nil field was not
// reported.
type Usage struct {
	// InputTokens counts the input tokens, the cached ones included.
	InputTokens *int64 `json:"n_input_tokens"`
	// CacheTokens counts the input tokens served from a cache.
	CacheTokens *int64 `json:"n_cache_tokens"`
	// OutputTokens counts the generated tokens.
	OutputTokens *int64 `json:"n_output_tokens"`
	// CostUSD is the cost in dollars.
	CostUSD *Dollars `json:"cost_usd"`
}

// Reported says whether u reports anything.
func (u Usage) Reported() bool {
	return u.InputTokens != nil || u.CacheTokens != nil || u.OutputTokens != nil || u.CostUSD != nil
}

// Tokens is what spec.budget.maxTokens counts: input tokens (the cached ones among them,
// as Harbor counts them) plus output tokens; cached tokens are not counted a second time.
func (u Usage) Tokens() int64 { return addSat(value(u.InputTokens), value(u.OutputTokens)) }

// Cost is the reported cost, 0 when none was reported.
func (u Usage) Cost() Dollars {
	if u.CostUSD == nil {
		return 0
	}
	return *u.CostUSD
}

// Add adds o to u, field by field: a field either reported stays reported.
func (u *Usage) Add(o Usage) {
	for _, f := range []struct{ sum, add *int64 }{{ptrOf(&u.InputTokens, o.InputTokens), o.InputTokens},
		{ptrOf(&u.CacheTokens, o.CacheTokens), o.CacheTokens}, {ptrOf(&u.OutputTokens, o.OutputTokens), o.OutputTokens}} {
		if f.add != nil {
			*f.sum = addSat(*f.sum, *f.add)
		}
	}
	if o.CostUSD != nil {
		if u.CostUSD == nil {
			u.CostUSD = new(Dollars)
		}
		*u.CostUSD = Dollars(addSat(int64(*u.CostUSD), int64(*o.CostUSD)))
	}
}

// ptrOf allocates *field when add is reported and the sum has none yet, and returns it.
func ptrOf(field **int64, add *int64) *int64 {
	if add != nil && *field == nil {
		*field = new(int64)
	}
	return *field
}

func value(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// addSat adds two non-negative counts, stopping at the largest int64 rather than wrapping.
func addSat(a, b int64) int64 {
	if a > 0 && b > 0 && a > (1<<63-1)-b {
		return 1<<63 - 1
	}
	return a + b
}

// Validate checks what Parse checks of the fields: counts are integers from 0 to MaxTokens,
// the cost is from 0 to MaxFileCost.
func (u Usage) Validate() error {
	for _, f := range []struct {
		name string
		v    *int64
	}{{"n_input_tokens", u.InputTokens}, {"n_cache_tokens", u.CacheTokens}, {"n_output_tokens", u.OutputTokens}} {
		if f.v != nil && (*f.v < 0 || *f.v > MaxTokens) {
			return fmt.Errorf("%s is %d: want an integer from 0 to 2^53", f.name, *f.v)
		}
	}
	if u.CostUSD != nil && (*u.CostUSD < 0 || *u.CostUSD > MaxFileCost*1_000_000_000) {
		return fmt.Errorf("cost_usd is %s: want a number of dollars from 0 to %d", *u.CostUSD, MaxFileCost)
	}
	if u.InputTokens != nil && u.CacheTokens != nil && *u.CacheTokens > *u.InputTokens {
		return fmt.Errorf("n_cache_tokens (%d) is more than n_input_tokens (%d), which counts the cached tokens too", *u.CacheTokens, *u.InputTokens)
	}
	return nil
}

// Parse reads a usage file: a JSON object with any of n_input_tokens, n_cache_tokens,
// n_output_tokens (integers from 0 to 2^53; null is absent) and cost_usd (a number of
// dollars from 0 to MaxFileCost, kept to the nano-dollar; null is absent). Other fields are
// allowed and ignored (Harbor's AgentContext has more). The error says what is wrong.
func Parse(data []byte) (Usage, error) {
	var u Usage
	if len(data) > MaxFileBytes {
		return u, fmt.Errorf("%d bytes, above the %d a usage file may have", len(data), MaxFileBytes)
	}
	if !utf8.Valid(data) {
		return u, errors.New("not UTF-8 text")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return u, fmt.Errorf("not a JSON object: %s", describe(err))
	}
	for _, f := range []struct {
		name string
		dst  **int64
	}{{"n_input_tokens", &u.InputTokens}, {"n_cache_tokens", &u.CacheTokens}, {"n_output_tokens", &u.OutputTokens}} {
		name, dst := f.name, f.dst
		raw, ok := fields[name]
		if !ok || bytes.Equal(raw, []byte("null")) {
			continue
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return Usage{}, fmt.Errorf("%s is %s: want an integer from 0 to 2^53", name, truncate(string(raw)))
		}
		*dst = &n
	}
	if raw, ok := fields["cost_usd"]; ok && !bytes.Equal(raw, []byte("null")) {
		var d Dollars
		if err := d.UnmarshalJSON(raw); err != nil {
			return Usage{}, fmt.Errorf("cost_usd: %w: want a number of dollars from 0 to %d", err, MaxFileCost)
		}
		u.CostUSD = &d
	}
	if err := u.Validate(); err != nil {
		return Usage{}, err
	}
	return u, nil
}

func describe(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

// truncate keeps what an error quotes of the agent's file short.
func truncate(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	for n := max; n > 0; n-- {
		if utf8.RuneStart(s[n]) {
			return s[:n] + "…"
		}
	}
	return "…"
}
