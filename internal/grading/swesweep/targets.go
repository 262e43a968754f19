package swesweep

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// SWE-sweep's pytest suite names a test patch's targets by the test functions it adds and
// the ones its hunks fall in.
var (
	addedTestFunc = regexp.MustCompile(`^\+\s*def\s+(test_[A-Za-z0-9_]+)`)
	hunkTestFunc  = regexp.MustCompile(`^@@ .*@@.*\bdef\s+(test_[A-Za-z0-9_]+)`)
)

// testFuncNames are the test functions a test patch adds or changes, sorted.
func testFuncNames(patch []byte) []string {
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		for _, re := range []*regexp.Regexp{addedTestFunc, hunkTestFunc} {
			if m := re.FindSubmatch(sc.Bytes()); m != nil {
				names = append(names, string(m[1]))
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// targetFiles are the paths of a bug's test patch (as git reads them) that are regular files
// once it is applied; for a pytest suite only the .py ones, as SWE-sweep's pytest suite runs.
func targetFiles(dir string, paths []string, format testresults.Format) []string {
	var files []string
	for _, p := range paths {
		if format == testresults.FormatPytest && !strings.HasSuffix(p, ".py") {
			continue
		}
		if info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && info.Mode().IsRegular() {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// bugCommand is the bug_tests command for one bug: {tests}, {files} and {names} replaced
// ({tests} without ProcessLevelFailure, which names no test).
func bugCommand(command string, failToPass, files, names []string) string {
	failToPass = slices.DeleteFunc(slices.Clone(failToPass), func(id string) bool { return id == ProcessLevelFailure })
	keyword := ""
	if len(names) > 0 {
		keyword = "-k " + shellQuoteAll([]string{strings.Join(names, " or ")})
	}
	return strings.NewReplacer("{tests}", shellQuoteAll(failToPass), "{files}", shellQuoteAll(files), "{names}", keyword).Replace(command)
}

func shellQuoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
