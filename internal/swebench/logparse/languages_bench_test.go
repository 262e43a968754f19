package logparse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goldenBenchSize is the size of a golden benchmark log.
const goldenBenchSize = 1 << 20

// goldenBenchLog is one row of BenchmarkGoldenLogs: a parser (read for one instance, when it
// reads the instance) and the logs of its golden cases concatenated and repeated to about
// goldenBenchSize.
type goldenBenchLog struct {
	Row        string `json:"row"`
	Parser     string `json:"parser"`
	InstanceID string `json:"instance_id,omitempty"`
	Version    string `json:"version,omitempty"`
	log        string
}

// goldenBenchLogs builds a row per golden file of testdata/official and, for the parsers that
// read the instance (testdata/official-instance), a row per version of their cases, read as the
// instance of the version's first case (the row is "<parser>@<version>").
func goldenBenchLogs(tb testing.TB) []goldenBenchLog {
	var rows []goldenBenchLog
	for _, dir := range []string{"official", "official-instance"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil || len(files) == 0 {
			tb.Fatalf("no golden in testdata/%s: %v", dir, err)
		}
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				tb.Fatal(err)
			}
			var g struct {
				Cases []struct {
					Log        string `json:"log"`
					InstanceID string `json:"instance_id"`
					Version    string `json:"version"`
				} `json:"cases"`
			}
			if err := json.Unmarshal(raw, &g); err != nil {
				tb.Fatalf("%s: %v", file, err)
			}
			parser := strings.TrimSuffix(filepath.Base(file), ".json")
			byRow := map[string]*goldenBenchLog{}
			var order []string
			texts := map[string]*strings.Builder{}
			for _, c := range g.Cases {
				row := parser
				if dir == "official-instance" {
					row = parser + "@" + c.Version
				}
				if byRow[row] == nil {
					byRow[row] = &goldenBenchLog{Row: row, Parser: parser, InstanceID: c.InstanceID, Version: c.Version}
					texts[row] = &strings.Builder{}
					order = append(order, row)
				}
				texts[row].WriteString(c.Log)
				texts[row].WriteString("\n")
			}
			for _, row := range order {
				one := texts[row].String()
				byRow[row].log = strings.Repeat(one, goldenBenchSize/len(one)+1)
				rows = append(rows, *byRow[row])
			}
		}
	}
	slices.SortFunc(rows, func(a, b goldenBenchLog) int { return strings.Compare(a.Row, b.Row) })
	return rows
}

// BenchmarkGoldenLogs times every parser under Official5 on its goldens' logs repeated to 1 MiB
// (go test ./internal/swebench/logparse -run '^$' -bench GoldenLogs -benchtime 3x), reporting
// CPU time per parse beside wall time. hack/swebench-goldens/speed-parsers.sh times SWE-bench
// 5.0.1's parser of the same name on the same logs (TestBenchLogs writes them) and prints the
// ratios; the figures are in docs/swebench.md.
func BenchmarkGoldenLogs(b *testing.B) {
	only := os.Getenv("SWEEP_BENCH_ROWS")
	for _, row := range goldenBenchLogs(b) {
		if only != "" && !slices.Contains(strings.Split(only, ","), row.Row) {
			continue
		}
		p, err := Get(row.Parser)
		if err != nil {
			b.Fatal(err)
		}
		p = p.For(Instance{ID: row.InstanceID, Version: row.Version})
		b.Run(row.Row, func(b *testing.B) { timeParse(b, p, row.log, Official5) })
	}
}

// writeGoldenBenchLogs writes every row's log to dir/<row>.log and the rows to dir/rows.json.
func writeGoldenBenchLogs(t *testing.T, dir string) {
	rows := goldenBenchLogs(t)
	for _, row := range rows {
		if err := os.WriteFile(filepath.Join(dir, row.Row+".log"), []byte(row.log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := json.MarshalIndent(rows, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}
