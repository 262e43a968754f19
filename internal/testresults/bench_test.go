package testresults

import (
	"bytes"
	"fmt"
	"testing"
)

// pytestLog builds a pytest -rA -v log of about size bytes: progress lines, tracebacks and a
// short summary, in the proportions of a large real suite.
func pytestLog(size int) []byte {
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		id := fmt.Sprintf("tests/pkg%d/test_mod%d.py::TestClass::test_case_%d[param-%d]", i%50, i%400, i, i%7)
		status := []string{"PASSED", "PASSED", "PASSED", "FAILED", "SKIPPED", "XFAIL"}[i%6]
		fmt.Fprintf(&buf, "%s %s%s[ %2d%%]\n", id, status, "                    ", i%100)
		if status == "FAILED" {
			buf.WriteString("    def test_case(self):\n>       assert compute(1) == 2\nE       assert 1 == 2\n\ntests/test_mod.py:42: AssertionError\n")
		}
		fmt.Fprintf(&buf, "%s %s - message for test %d\n", status, id, i)
	}
	return buf.Bytes()
}

func BenchmarkReadPytest100MB(b *testing.B) {
	log := pytestLog(100 << 20)
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadPytest(bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
	}
}
