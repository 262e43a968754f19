package grading

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
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
	if s.TestUser.UID != 0 {
		args = append(args, "--test-uid", strconv.FormatUint(uint64(s.TestUser.UID), 10))
	}
	if !s.Deadline.IsZero() {
		args = append(args, "--deadline", s.Deadline.UTC().Format(time.RFC3339Nano))
	}
	if s.FlakeRechecks > 0 {
		args = append(args, "--"+FlakeRechecksFlag, strconv.Itoa(int(s.FlakeRechecks)))
	}
	return Invocation{Path: s.Self, Args: args}
}

// FlakeRechecksFlag is the bundle grader's option that turns the flake re-check on.
const FlakeRechecksFlag = "flake-rechecks"

// noFlakeRechecks is the error of a grader without a flake re-check asked for one.
func noFlakeRechecks(grader string, o TrialOptions) error {
	if o.FlakeRechecks == 0 {
		return nil
	}
	return fmt.Errorf("spec.grading.flakeRechecks is %d, but task %q is graded by %s, which has no flake re-check (only the %s grader re-runs visible regressions): set it to 0 in the SweepRun, or run this task in a campaign of its own without it",
		o.FlakeRechecks, o.Task, grader, pc.GraderSWESweep)
}

// commonFlags are the options every built-in grader takes.
func commonFlags(fs *flag.FlagSet, r *Request, patchHelp, outHelp string) {
	fs.StringVar(&r.PatchPath, "patch", "/logs/artifacts/model.patch", patchHelp)
	fs.StringVar(&r.OutDir, "out", "/logs/verifier", outHelp)
	TestUserFlag(fs, &r.TestUser)
	fs.Func("deadline", "RFC 3339 time by which the result must be written (default: none)", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("%q is not an RFC 3339 time", v)
		}
		r.Deadline = t
		return nil
	})
}

// TestUserFlag declares -test-uid, the identity (gid = uid) the build and the tests run as,
// stored into id, which it sets to sandbox.Test by default. The verifier stage
// (`sweep-hook verify`) takes it too and hands it to the built-in grader.
func TestUserFlag(fs *flag.FlagSet, id *sandbox.Identity) {
	*id = sandbox.Test
	fs.Func("test-uid", fmt.Sprintf("uid and gid the build and the tests run as (default %d)", sandbox.Test.UID), func(v string) error {
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("%q is not a uid other than 0", v)
		}
		*id = sandbox.Identity{UID: uint32(n), GID: uint32(n)}
		return nil
	})
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
