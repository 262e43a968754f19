package logparse

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// slowMochaTitles is parsePrismJS's reading of one report with encoding/json.
func slowMochaTitles(report string) (failures, passes []string, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(report), &fields) != nil {
		return nil, nil, false
	}
	if failures, ok = mochaTitles(fields["failures"]); !ok {
		return nil, nil, false
	}
	passes, ok = mochaTitles(fields["passes"])
	return failures, passes, ok
}

// randomJSON writes a random JSON value, mostly valid, with the shapes of a mocha report.
func randomJSON(rng *rand.Rand, b *strings.Builder, depth int) {
	strs := []string{`"a"`, `"fullTitle"`, `"x y"`, `"\u00fc\u0041"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"q\"\\\/\b\f\n\r\t"`,
		"\"\xff\"", "\"é\"", `"failures"`, `"passes"`, `"fail\u0075res"`, `""`, `"\uDBFF\uDFFF"`, `"\udc00"`}
	nums := []string{"0", "-1", "12.5", "1e3", "-0.0E+2", "2E-7"}
	if rng.IntN(40) == 0 { // invalid
		strs = []string{`"\x"`, "\"\x01\"", `"\u12"`, `"a`, "\u00a0\"b\""}
		nums = []string{"01", "1.", "-", "1e", "NaN", "Infinity", ".5", "tru", "nul"}
	}
	ws := []string{"", " ", "\n  ", "\t", "\r\n"}
	w := func() { b.WriteString(ws[rng.IntN(len(ws))]) }
	switch k := rng.IntN(8); {
	case depth > 3 || k < 2:
		b.WriteString(strs[rng.IntN(len(strs))])
	case k == 2:
		b.WriteString(nums[rng.IntN(len(nums))])
	case k == 3:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	case k == 4 || k == 5:
		b.WriteString("[")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			w()
			randomJSON(rng, b, depth+1)
			w()
		}
		b.WriteString("]")
	default:
		b.WriteString("{")
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			w()
			b.WriteString(strs[rng.IntN(len(strs))])
			w()
			b.WriteString(":")
			w()
			randomJSON(rng, b, depth+1)
		}
		b.WriteString("}")
	}
}

// randomMochaReport is a mocha report with random lists and values, sometimes cut or changed.
func randomMochaReport(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("\n")
	keys := []string{`"stats"`, `"failures"`, `"passes"`, `"tests"`, `"fail\u0075res"`}
	for i := range 2 + rng.IntN(4) {
		if i > 0 {
			b.WriteString(",\n")
		}
		key := keys[rng.IntN(len(keys))]
		if i < 2 && rng.IntN(4) > 0 {
			key = []string{`"failures"`, `"passes"`}[i]
		}
		b.WriteString("  " + key + ": ")
		if rng.IntN(5) > 0 { // a list of entries
			b.WriteString("[")
			for j := range rng.IntN(4) {
				if j > 0 {
					b.WriteString(",")
				}
				b.WriteString("\n    {\"title\": ")
				randomJSON(rng, &b, 2)
				b.WriteString(", \"fullTitle\": ")
				if rng.IntN(10) > 0 {
					randomJSON(rng, &b, 4) // a string
				} else {
					randomJSON(rng, &b, 3)
				}
				if rng.IntN(10) == 0 {
					b.WriteString(", \"fullTitle\": ")
					randomJSON(rng, &b, 3)
				}
				b.WriteString("}")
			}
			b.WriteString("]")
		} else {
			randomJSON(rng, &b, 1)
		}
	}
	b.WriteString("\n")
	s := b.String()
	switch rng.IntN(10) {
	case 0:
		s = s[:rng.IntN(len(s)+1)]
	case 1:
		at := rng.IntN(len(s) + 1)
		s = s[:at] + []string{"x", ",", "}", "]", "\"", "\\", "\x00", " ", "{", "} {"}[rng.IntN(10)] + s[at:]
	}
	return s
}

// TestMochaReportTitles: wherever the one-pass reader answers, it gives what encoding/json and
// mochaTitles give, on every golden prism report and on 100,000 random reports (each the text
// inside the report's outer braces).
func TestMochaReportTitles(t *testing.T) {
	var reports []string
	for _, log := range goldenLogs(t) {
		for _, run := range pySplitString(log, prismTestCommand)[1:] {
			reports = append(reports, pyRsplitFirst(pySplitLast(run, "{"), "}"))
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		reports = append(reports, randomMochaReport(rng))
	}
	read, titles := 0, 0
	for _, report := range reports {
		failures, passes, ok := mochaReportTitles(report)
		if !ok {
			continue
		}
		wantFailures, wantPasses, wantOK := slowMochaTitles("{" + report + "}")
		if !wantOK {
			t.Fatalf("%q: read here, refused by encoding/json", report)
		}
		if diff := cmp.Diff([][]string{wantFailures, wantPasses}, [][]string{failures, passes},
			cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
			t.Fatalf("%q (-encoding/json +reader):\n%s", report, diff)
		}
		read++
		titles += len(failures) + len(passes)
	}
	t.Logf("%d reports, %d read here, %d titles", len(reports), read, titles)
	if read < 5000 || titles < 5000 {
		t.Errorf("only %d reports read and %d titles: draw reports that are valid more often", read, titles)
	}
}
