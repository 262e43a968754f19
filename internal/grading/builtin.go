package grading

import (
	"flag"
	"strings"
)

// builtInCommand is how the verifier stage runs a built-in grader: sweep-hook's own
// `grade NAME DIR` as a process of its own, so that a crash cannot take the stage with it.
func builtInCommand(name string, s StageInput) Invocation {
	dir := s.InputDir
	if dir == "" {
		dir = s.TestsDir
	}
	args := []string{"grade", name, dir, "--patch", s.PatchPath, "--out", s.OutDir}
	if s.Workdir != "" {
		args = append(args, "--workdir", s.Workdir)
	}
	if len(s.Bugs) > 0 {
		args = append(args, "--bugs", strings.Join(s.Bugs, ","))
	}
	return Invocation{Path: s.Self, Args: args}
}

// commonFlags are the options every built-in grader takes.
func commonFlags(fs *flag.FlagSet, r *Request, patchHelp, outHelp string) {
	fs.StringVar(&r.PatchPath, "patch", "/logs/artifacts/model.patch", patchHelp)
	fs.StringVar(&r.OutDir, "out", "/logs/verifier", outHelp)
}

// bugList is a comma-separated -bugs flag; empty leaves the list empty (all bugs).
type bugList struct{ bugs *[]string }

func (b bugList) String() string {
	if b.bugs == nil {
		return ""
	}
	return strings.Join(*b.bugs, ",")
}

func (b bugList) Set(s string) error {
	*b.bugs = nil
	if s != "" {
		*b.bugs = strings.Split(s, ",")
	}
	return nil
}
