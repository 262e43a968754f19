package logparse

import (
	"fmt"
	"strings"
	"testing"
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

func makeBenchLog(parser string) string {
	var b strings.Builder
	b.Grow(benchLogSize + 4096)
	if parser == JUnitName {
		b.WriteString("<testsuites><testsuite name=\"bench\">\n")
	}
	line := benchLines[parser]
	for i := 0; b.Len() < benchLogSize; i++ {
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
		log := makeBenchLog(name)
		p, err := Get(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range []Dialect{Full, Official41, Official5} {
			if name == JUnitName && d != Full {
				continue
			}
			b.Run(name+"/"+d.String(), func(b *testing.B) {
				b.SetBytes(int64(len(log)))
				for b.Loop() {
					if len(p.ParseAs(log, d)) == 0 {
						b.Fatal("nothing parsed")
					}
				}
			})
		}
	}
}
