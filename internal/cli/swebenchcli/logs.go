package swebenchcli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/swebench"
	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
)

// ParseOptions of `sweep swebench parse --parser NAME LOG`.
type ParseOptions struct {
	Parser string
	// Grading, when set, reads as that version's official parser does.
	Grading string

	Log string
	clioptions.IOStreams
}

func (o *ParseOptions) Complete(streams clioptions.IOStreams, args []string) error {
	o.IOStreams, o.Log = streams, args[0]
	return nil
}

func (o *ParseOptions) Validate() error {
	if o.Parser == "" {
		return fmt.Errorf("flag --parser is required: one of %s", strings.Join(logparse.Names(), ", "))
	}
	return nil
}

func (o *ParseOptions) Run(context.Context) error {
	p, err := logparse.Get(o.Parser)
	if err != nil {
		return fmt.Errorf("flag --parser: %w", err)
	}
	log, err := os.ReadFile(o.Log)
	if err != nil {
		return fmt.Errorf("reading the log: %w", err)
	}
	section := swebench.TestOutput(string(log))
	statuses := p.Parse(section)
	if o.Grading != "" {
		version, err := swebench.ParseGradingVersion(o.Grading)
		if err != nil {
			return fmt.Errorf("flag --grading: %w", err)
		}
		if statuses, err = swebench.ParseAsVersion(p, section, version); err != nil {
			return err
		}
	}
	return clioptions.WriteStructured(o.Out, clioptions.OutputJSON, statuses)
}

// GradeOptions of `sweep swebench grade --instance F --log LOG`.
type GradeOptions struct {
	// InstanceFile holds the instance, or several with ID choosing one.
	InstanceFile, ID string
	LogFile          string
	Grading          string
	// Parser, when set, overrides the instance's and repository's log parser.
	Parser string

	clioptions.IOStreams
	version swebench.GradingVersion
}

func (o *GradeOptions) Complete(streams clioptions.IOStreams, _ []string) error {
	o.IOStreams = streams
	return nil
}

func (o *GradeOptions) Validate() error {
	if o.InstanceFile == "" || o.LogFile == "" {
		return fmt.Errorf("flags --instance and --log are required: sweep swebench grade --instance F --log LOG")
	}
	var err error
	if o.version, err = swebench.ParseGradingVersion(o.Grading); err != nil {
		return fmt.Errorf("flag --grading: %w", err)
	}
	return nil
}

func (o *GradeOptions) Run(context.Context) error {
	inst, err := pickInstance(o.InstanceFile, o.ID)
	if err != nil {
		return err
	}
	log, err := os.ReadFile(o.LogFile)
	if err != nil {
		return fmt.Errorf("reading the log: %w", err)
	}
	rep, err := swebench.Grade(inst, string(log), o.version, swebench.GradeOptions{Parser: o.Parser})
	if err != nil {
		return err
	}
	if !rep.Completed() {
		return fmt.Errorf("instance %s is an error instance under grading %s, with no report.json: %s (log %s)", inst.InstanceID, o.version, rep.Error, o.LogFile)
	}
	return clioptions.WriteStructured(o.Out, clioptions.OutputJSON, rep)
}

// pickInstance reads the one instance of file, or the one named id.
func pickInstance(file, id string) (swebench.Instance, error) {
	insts, err := swebench.LoadInstances(file)
	if err != nil {
		return swebench.Instance{}, err
	}
	if id == "" {
		if len(insts) != 1 {
			return swebench.Instance{}, fmt.Errorf("%s holds %d instances: choose one with --id", file, len(insts))
		}
		return insts[0], nil
	}
	for _, inst := range insts {
		if inst.InstanceID == id {
			return inst, nil
		}
	}
	return swebench.Instance{}, fmt.Errorf("%s has no instance %q: check --id", file, id)
}
