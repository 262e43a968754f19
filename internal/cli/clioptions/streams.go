package clioptions

import (
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

// ReadFileOrStdin reads file, or in when file is "-".
func ReadFileOrStdin(in io.Reader, file string) ([]byte, error) {
	if file == "-" {
		return io.ReadAll(in)
	}
	return os.ReadFile(file)
}
