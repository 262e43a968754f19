package hook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// cappedLog writes a log file of at most about limit bytes: the first half of the output as
// it comes, and the last half when it is closed, with a line saying how much was left out in
// between. Both ends matter: the start shows what ran, the end how it failed.
type cappedLog struct {
	mu    sync.Mutex
	f     *os.File
	half  int64
	head  int64 // bytes written to the file so far
	tail  []byte
	total int64
	// echo, when set, also gets the whole output as it comes: the main container's stdout,
	// so that `sweep logs -f` follows a stage while it runs. Its errors are ignored: a log
	// nobody reads must not fail the stage.
	echo io.Writer
}

func newCappedLog(path string, limit int64, echo io.Writer) (*cappedLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return &cappedLog{f: f, half: max(limit/2, 1), head: st.Size(), total: st.Size(), echo: echo}, nil
}

func (l *cappedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	l.total += int64(n)
	if l.echo != nil {
		_, _ = l.echo.Write(p) // see echo
	}
	if room := l.half - l.head; room > 0 {
		k := min(int64(len(p)), room)
		if _, err := l.f.Write(p[:k]); err != nil {
			return 0, err
		}
		l.head += k
		p = p[k:]
	}
	if len(p) > 0 {
		l.tail = append(l.tail, p...)
		if int64(len(l.tail)) > 2*l.half { // trim now and then, not on every write
			l.tail = append(l.tail[:0], l.tail[int64(len(l.tail))-l.half:]...)
		}
	}
	return n, nil
}

// Printf writes a line of sweep-hook's own into the log.
func (l *cappedLog) Printf(format string, args ...any) {
	fmt.Fprintf(l, "[sweep-hook] "+format+"\n", args...)
}

// Close writes the tail and returns the output's size before capping.
func (l *cappedLog) Close() (LogInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tail := l.tail
	omitted := l.total - l.head - int64(len(tail))
	if int64(len(tail)) > l.half {
		omitted += int64(len(tail)) - l.half
		tail = tail[int64(len(tail))-l.half:]
	}
	if omitted > 0 {
		fmt.Fprintf(l.f, "\n[sweep-hook] ... %d bytes of output omitted ...\n", omitted)
	}
	_, werr := l.f.Write(tail)
	cerr := l.f.Close()
	info := LogInfo{OriginalSize: l.total, Truncated: omitted > 0}
	if werr != nil {
		return info, werr
	}
	return info, cerr
}
