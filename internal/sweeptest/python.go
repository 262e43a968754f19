package sweeptest

import (
	"os/exec"
	"testing"
)

// PythonWithPytest is a python3 that can import pytest: the first on PATH, else the system's
// (a version manager's shim on PATH may lack the system's packages). The test fails when
// there is none.
func PythonWithPytest(t testing.TB) string {
	t.Helper()
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(c); err == nil && exec.Command(path, "-c", "import pytest").Run() == nil {
			return path
		}
	}
	t.Fatal("no python3 with pytest: apt-get install -y python3 python3-pytest")
	return ""
}
