package testresults

import "regexp"

// suiteRanEvidence matches the closing summary of a runner: pytest's "=== 3 passed in 0.1s ===",
// unittest's "Ran 5 tests in", go test's "ok  pkg" / "FAIL pkg" / "PASS", libtest's
// "test result:", Jest's "Tests:", sympy's "tests finished:", a JUnit document.
var suiteRanEvidence = regexp.MustCompile(`(?m)^(=+ .*\b(passed|failed|skipped|errors?|xfailed|xpassed|deselected|no tests ran)\b.* in [0-9.]+s|Ran [0-9]+ tests? in |(ok|FAIL)\s+\S+|PASS$|FAIL$|test result: |Tests:\s+[0-9]|=+ tests finished: )|<testsuites?[ >]`)

// SuiteRan reports whether log shows that a test runner ran to its summary. SWE-bench 5 treats
// a log with no test results and no such evidence as an invalid run.
func SuiteRan(log string) bool {
	return suiteRanEvidence.MatchString(log)
}
