package logparse

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchLogSize is the size of the generated log each parser reads.
const benchLogSize = 100 << 20

// benchLines are representative lines per parser: results mixed with the noise around them
// (tracebacks, progress, captured output).
var benchLines = map[string]func(i int) string{
	"parse_log_pytest": func(i int) string {
		return fmt.Sprintf("tests/test_mod.py::test_case_%d[param %d] PASSED [ 42%%]\n"+
			">       assert result == expected, 'value %d'\nE       AssertionError: assert 1 == 2\n"+
			"FAILED tests/test_mod.py::test_fail_%d - AssertionError: boom\n", i, i, i, i)
	},
	"parse_log_pytest_v2": func(i int) string {
		return fmt.Sprintf("tests/test_mod.py::test_case_%d \x1b[32mPASSED\x1b[0m\n\x1b[31mFAILED\x1b[0m tests/test_mod.py::\x1b[1mtest_f_%d\x1b[0m - x\n"+
			"    some captured output line %d\n", i, i, i)
	},
	"parse_log_django": func(i int) string {
		return fmt.Sprintf("test_case_%d (app.tests.CaseTests.test_case_%d) ... ok\nsome debug output %d\n"+
			"test_fail_%d (app.tests.CaseTests.test_fail_%d) ... FAIL\n", i, i, i, i, i)
	},
	"parse_log_sympy": func(i int) string {
		return fmt.Sprintf("test_case_%d ok\ntest_fail_%d F\n________ sympy/core/tests/test_x.py:test_fail_%d ________\n", i, i, i)
	},
	"parse_log_gotest": func(i int) string {
		return fmt.Sprintf("=== RUN   TestCase%d\n    case_test.go:12: log line %d\n--- PASS: TestCase%d (0.00s)\n    --- FAIL: TestCase%d/sub (0.01s)\n", i, i, i, i)
	},
	"parse_log_cargo": func(i int) string {
		return fmt.Sprintf("test module::tests::case_%d ... ok\ntest module::tests::fail_%d ... FAILED\nnote: output %d\n", i, i, i)
	},
	"parse_log_jest": func(i int) string {
		return fmt.Sprintf("  ✓ renders case %d (3 ms)\n  ✕ breaks case %d (1 ms)\n    at Object.<anonymous> (test.js:%d:5)\n", i, i, i)
	},
	JUnitName: func(i int) string {
		return fmt.Sprintf("<testcase classname=\"pkg.Case\" name=\"test_%d\" time=\"0.01\"/><testcase classname=\"pkg.Case\" name=\"fail_%d\"><failure message=\"x\">trace %d</failure></testcase>\n", i, i, i)
	},
}

func makeBenchLog(parser string, size int) string {
	var b strings.Builder
	b.Grow(size + 4096)
	if parser == JUnitName {
		b.WriteString("<testsuites><testsuite name=\"bench\">\n")
	}
	line := benchLines[parser]
	for i := 0; i == 0 || b.Len() < size; i++ {
		b.WriteString(line(i))
	}
	if parser == JUnitName {
		b.WriteString("</testsuite></testsuites>\n")
	}
	return b.String()
}

// BenchmarkParsers reports each parser's throughput (MB/s) on a generated 100 MB log:
// go test ./internal/swebench/logparse -run '^$' -bench Parsers -benchtime 2x
func BenchmarkParsers(b *testing.B) {
	for _, name := range []string{"parse_log_pytest", "parse_log_pytest_v2", "parse_log_django", "parse_log_sympy", "parse_log_gotest", "parse_log_cargo", "parse_log_jest", JUnitName} {
		log := makeBenchLog(name, benchLogSize)
		p, err := Get(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range []Dialect{Full, Official41, Official5} {
			if name == JUnitName && d != Full {
				continue
			}
			b.Run(name+"/"+d.String(), func(b *testing.B) { benchParse(b, p, log, d) })
		}
	}
}

// benchParse times p reading log under d, reporting the CPU time of the process per parse
// beside the wall time: on a shared machine the CPU time is the figure to compare with
// SWE-bench's parser, which hack/swebench-goldens/speed.sh measures the same way.
func benchParse(b *testing.B, p Parser, log string, d Dialect) {
	if timeParse(b, p, log, d) == 0 {
		b.Fatal("nothing parsed")
	}
}

// timeParse is benchParse without the check: it returns the number of ids parsed, also reported
// as the metric "ids".
func timeParse(b *testing.B, p Parser, log string, d Dialect) int {
	b.SetBytes(int64(len(log)))
	n := 0
	start := processCPU(b)
	for b.Loop() {
		n = len(p.ParseAs(log, d))
	}
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(n), "ids")
	return n
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLogFile times one parser on a log file, for hack/swebench-goldens/speed.sh:
// SWEEP_BENCH_LOG=file SWEEP_BENCH_PARSER=name go test ./internal/swebench/logparse -run '^$' -bench LogFile
func BenchmarkLogFile(b *testing.B) {
	file, name := os.Getenv("SWEEP_BENCH_LOG"), os.Getenv("SWEEP_BENCH_PARSER")
	if file == "" || name == "" {
		b.Skip("set SWEEP_BENCH_LOG and SWEEP_BENCH_PARSER")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	p, err := Get(name)
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range []Dialect{Full, Official41, Official5} {
		b.Run(d.String(), func(b *testing.B) { benchParse(b, p, string(raw), d) })
	}
}

// TestBenchLogs checks that every benchmark log gives results, and writes the one of
// SWEEP_BENCH_PARSER to SWEEP_BENCH_LOG_OUT for hack/swebench-goldens/speed.sh (or every golden
// benchmark log to SWEEP_BENCH_LOG_DIR for speed-parsers.sh), so that SWE-bench's parser is
// timed on the same log as ours.
func TestBenchLogs(t *testing.T) {
	if dir := os.Getenv("SWEEP_BENCH_LOG_DIR"); dir != "" {
		writeGoldenBenchLogs(t, dir)
		return
	}
	if out := os.Getenv("SWEEP_BENCH_LOG_OUT"); out != "" {
		name := os.Getenv("SWEEP_BENCH_PARSER")
		if benchLines[name] == nil {
			t.Fatalf("SWEEP_BENCH_PARSER=%q has no benchmark log: use one of the keys of benchLines", name)
		}
		if err := os.WriteFile(out, []byte(makeBenchLog(name, benchLogSize)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name := range benchLines {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Parse(makeBenchLog(name, 1)); len(got) == 0 {
			t.Errorf("%s reads nothing from its benchmark lines", name)
		}
	}
}
