package proctree

import (
	"errors"
	"os/exec"
)

// Shell is the shell that runs a stage's scripts: bash when the image has it, else sh.
func Shell() (string, error) {
	for _, name := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("neither bash nor sh is on PATH")
}
