// Package hook implements sweep-hook's stages inside trial Pods: the agent stage, the verifier
// stage and the collector. Every path comes from Paths so that tests run the stages in
// temporary directories without root.
package hook

import (
	"io"
	"path/filepath"

	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// Paths are the files and directories a stage uses.
type Paths struct {
	Spec        string
	Instruction string
	Done        string
	// StageLock is the stage lock (podcontract.StageLockPath, stagelock.go).
	StageLock string
	Input     string // the stage's inputs, by key
	Solution  string
	Patch     string // where the default collector writes the agent's patch
	AgentLog  string
	// Usage is the agent's usage file (podcontract.UsagePath).
	Usage       string
	VerifierDir string
	Tests       string // holds test.sh
	// TerminationLog is where the collector writes its summary.
	TerminationLog string
	// LogEcho also gets the stage log as it comes (the main container's stdout in a Pod);
	// nil keeps it in the log file alone.
	LogEcho io.Writer
}

// PodPaths are the paths of a real trial Pod.
func PodPaths() Paths {
	return Paths{
		Spec:           pc.SpecPath,
		Instruction:    pc.InstructionPath,
		Done:           pc.DonePath,
		StageLock:      pc.StageLockPath,
		Input:          pc.InputDir,
		Solution:       pc.SolutionDir,
		Patch:          pc.PatchPath,
		AgentLog:       pc.AgentLogPath,
		Usage:          pc.UsagePath,
		VerifierDir:    pc.VerifierLogDir,
		Tests:          "/tests",
		TerminationLog: "/dev/termination-log",
	}
}

// RootedPaths are PodPaths moved under root.
func RootedPaths(root string) Paths {
	p := PodPaths()
	for _, f := range []*string{&p.Spec, &p.Instruction, &p.Done, &p.StageLock, &p.Input, &p.Solution, &p.Patch,
		&p.AgentLog, &p.Usage, &p.VerifierDir, &p.Tests, &p.TerminationLog} {
		*f = filepath.Join(root, *f)
	}
	return p
}

func (p Paths) testStdout() string { return filepath.Join(p.VerifierDir, pc.RecordTestStdout) }
func (p Paths) rewardJSON() string { return filepath.Join(p.VerifierDir, reward.FileJSON) }
func (p Paths) evalJSON() string   { return filepath.Join(p.VerifierDir, pc.RecordEval) }
