package clioptions

import (
	"bytes"
	"context"
	"io"
	"os"
)

// IOStreams are what a verb reads and writes, as kubectl's IOStreams: the verb's result on Out,
// progress and notes on ErrOut, so that scripts can read Out alone.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// NewTestIOStreams are streams for tests, as kubectl's: empty input, and the buffers Out and
// ErrOut write to.
func NewTestIOStreams() (IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return IOStreams{In: &bytes.Buffer{}, Out: out, ErrOut: errOut}, out, errOut
}

// ReadFileOrStdin reads file, or in when file is "-".
func ReadFileOrStdin(in io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(in)
	}
	return os.ReadFile(file)
}

// Verb is what every verb's Options does, in kubectl's order: take the arguments and streams,
// check the flags, then do the work.
type Verb interface {
	Complete(streams IOStreams, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// Execute runs a verb whose flags are already set.
func Execute(ctx context.Context, v Verb, streams IOStreams, args []string) error {
	if err := v.Complete(streams, args); err != nil {
		return err
	}
	if err := v.Validate(); err != nil {
		return err
	}
	return v.Run(ctx)
}
