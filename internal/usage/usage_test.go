package usage

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func count(n int64) *int64    { return &n }
func cost(d Dollars) *Dollars { return &d }

func TestParse(t *testing.T) {
	cases := map[string]struct {
		file    string
		want    Usage
		wantErr string
	}{
		"every field": {file: `{"n_input_tokens": 1200, "n_cache_tokens": 200, "n_output_tokens": 300, "cost_usd": 0.0123}`,
			want: Usage{InputTokens: count(1200), CacheTokens: count(200), OutputTokens: count(300), CostUSD: cost(12_300_000)}},
		"Harbor's nulls are absent":           {file: `{"n_input_tokens": null, "n_cache_tokens": null, "n_output_tokens": 7, "cost_usd": null}`, want: Usage{OutputTokens: count(7)}},
		"unknown fields are allowed":          {file: `{"n_output_tokens": 7, "rollout_details": [1, 2], "metadata": {"model": "x"}}`, want: Usage{OutputTokens: count(7)}},
		"an empty object reports none":        {file: `{}`, want: Usage{}},
		"zero is reported":                    {file: `{"n_input_tokens": 0, "cost_usd": 0}`, want: Usage{InputTokens: count(0), CostUSD: cost(0)}},
		"a float's digits are kept exactly":   {file: `{"cost_usd": 0.1}`, want: Usage{CostUSD: cost(100_000_000)}},
		"an exponent":                         {file: `{"cost_usd": 1.5e-3}`, want: Usage{CostUSD: cost(1_500_000)}},
		"rounded to the nano-dollar, half up": {file: `{"cost_usd": 0.0000000015}`, want: Usage{CostUSD: cost(2)}},
		"below half a nano-dollar is 0":       {file: `{"cost_usd": 0.0000000004}`, want: Usage{CostUSD: cost(0)}},
		"2^53 tokens":                         {file: `{"n_output_tokens": 9007199254740992}`, want: Usage{OutputTokens: count(MaxTokens)}},
		"negative tokens":                     {file: `{"n_input_tokens": -5}`, wantErr: "n_input_tokens is -5: want an integer from 0 to 2^53"},
		"fractional tokens":                   {file: `{"n_output_tokens": 1.5}`, wantErr: "n_output_tokens is 1.5: want an integer from 0 to 2^53"},
		"tokens as a string":                  {file: `{"n_output_tokens": "12"}`, wantErr: `n_output_tokens is "12": want an integer`},
		"tokens above 2^53":                   {file: `{"n_output_tokens": 9007199254740993}`, wantErr: "n_output_tokens is 9007199254740993: want an integer from 0 to 2^53"},
		"tokens beyond int64":                 {file: `{"n_output_tokens": 99999999999999999999}`, wantErr: "n_output_tokens is 99999999999999999999"},
		"cached above input":                  {file: `{"n_input_tokens": 10, "n_cache_tokens": 11}`, wantErr: "n_cache_tokens (11) is more than n_input_tokens (10)"},
		"negative cost":                       {file: `{"cost_usd": -0.5}`, wantErr: "cost_usd: -0.5 is negative"},
		"cost as a string":                    {file: `{"cost_usd": "1.00"}`, wantErr: `cost_usd: "1.00" is not a number`},
		"cost above a billion":                {file: `{"cost_usd": 1e10}`, wantErr: "cost_usd: 1e10 is above 1000000000 dollars"},
		"a huge exponent":                     {file: `{"cost_usd": 1e999999}`, wantErr: "cost_usd: 1e999999 has an exponent beyond ±400"},
		"a huge negative exponent":            {file: `{"cost_usd": 1e-999999999}`, wantErr: "has an exponent beyond ±400"},
		"a float64's smallest":                {file: `{"cost_usd": 5e-324}`, want: Usage{CostUSD: cost(0)}},
		"not an object":                       {file: `[1, 2]`, wantErr: "not a JSON object"},
		"null":                                {file: `null`, wantErr: "not a JSON object: null"},
		"not JSON":                            {file: `n_input_tokens=5`, wantErr: "not a JSON object"},
		"not UTF-8":                           {file: "{\"x\": \"\xff\"}", wantErr: "not UTF-8 text"},
		"too large":                           {file: `{"x": "` + strings.Repeat("a", MaxFileBytes) + `"}`, wantErr: "above the 65536 a usage file may have"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Parse([]byte(tc.file))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse error = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDollars(t *testing.T) {
	cases := map[string]struct {
		in      string
		want    Dollars
		wantErr bool
	}{
		"whole dollars":    {in: "25", want: 25_000_000_000},
		"cents":            {in: "25.00", want: 25_000_000_000},
		"a nano-dollar":    {in: "0.000000001", want: 1},
		"nine digits":      {in: "999999999.999999999", want: 999_999_999_999_999_999},
		"ten decimals":     {in: "0.0000000001", wantErr: true},
		"ten whole digits": {in: "1000000000", wantErr: true},
		"negative":         {in: "-1", wantErr: true},
		"no digits":        {in: "", wantErr: true},
		"a point alone":    {in: "1.", wantErr: true},
		"no whole part":    {in: ".5", wantErr: true},
		"an exponent":      {in: "1e3", wantErr: true},
		"spaces":           {in: " 1", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParseDollars(tc.in)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseDollars(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("ParseDollars(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestDollarsString(t *testing.T) {
	for d, want := range map[Dollars]string{0: "0.00", 1: "0.000000001", 25_000_000_000: "25.00", 12_300_000: "0.0123", 1_500_000_000: "1.50", 123_456_789_012: "123.456789012"} {
		if got := d.String(); got != want {
			t.Errorf("Dollars(%d).String() = %q, want %q", int64(d), got, want)
		}
		if back, err := ParseDollars(want); err != nil || back != d {
			t.Errorf("ParseDollars(%q) = %d, %v, want %d", want, back, err, int64(d))
		}
	}
}

func TestAdd(t *testing.T) {
	// 0.1 + 0.2 is 0.3 exactly, which float64 sums miss.
	var sum Usage
	sum.Add(Usage{InputTokens: count(100), CacheTokens: count(40), CostUSD: cost(100_000_000)})
	sum.Add(Usage{InputTokens: count(50), OutputTokens: count(5), CostUSD: cost(200_000_000)})
	sum.Add(Usage{})
	want := Usage{InputTokens: count(150), CacheTokens: count(40), OutputTokens: count(5), CostUSD: cost(300_000_000)}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("sum (-want +got):\n%s", diff)
	}
	if got := sum.Tokens(); got != 155 {
		t.Errorf("Tokens() = %d, want 155: input (cached included) + output", got)
	}
	if sum.CostUSD.String() != "0.30" {
		t.Errorf("cost = %s, want 0.30", sum.CostUSD)
	}
	big := Usage{InputTokens: count(1<<63 - 1), OutputTokens: count(1)}
	if got := big.Tokens(); got != 1<<63-1 {
		t.Errorf("Tokens() of a sum past int64 = %d, want it to stop at the largest int64", got)
	}
}

func TestUsageJSON(t *testing.T) {
	u := Usage{InputTokens: count(10), CostUSD: cost(1_230_000_000)}
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n_input_tokens":10,"n_cache_tokens":null,"n_output_tokens":null,"cost_usd":1.23}`; string(b) != want {
		t.Errorf("json = %s, want %s", b, want)
	}
	var back Usage
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(u, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
