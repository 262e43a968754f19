package logparse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSize is the size of a benchmark log.
const benchSize = 1 << 20

// BenchmarkLanguageParsers reads, per non-Python parser, the logs of its golden cases
// concatenated and repeated to about benchSize, under Official5 (the figures are in
// docs/swebench.md, beside the official parser's time on the same text).
func BenchmarkLanguageParsers(b *testing.B) {
	for _, name := range []string{"parse_log_jest", "parse_log_vitest", "parse_log_karma", "parse_log_calypso", "parse_log_gotest",
		"parse_log_cargo", "parse_log_maven", "parse_log_gradle_custom", "parse_log_phpunit", "parse_log_redis", "parse_log_googletest",
		"parse_log_minitest", "parse_log_highlightjs", "parse_log_eslint", "parse_log_p5js"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "official", name+".json"))
		if err != nil {
			b.Fatal(err)
		}
		var g struct {
			Cases []struct{ Log string }
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			b.Fatal(err)
		}
		var one strings.Builder
		for _, c := range g.Cases {
			one.WriteString(c.Log)
			one.WriteString("\n")
		}
		log := strings.Repeat(one.String(), benchSize/one.Len()+1)
		p, err := Get(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			for b.Loop() {
				p.ParseAs(log, Official5)
			}
		})
	}
}
