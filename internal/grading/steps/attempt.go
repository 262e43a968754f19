package steps

import (
	"fmt"
	"io"
	"time"
)

// Attempt runs one grading: a panic in grade becomes an error, a failure is logged, and the
// seconds it took are returned. What a failed grading writes is the grader's own choice.
func Attempt(log io.Writer, grade func() error) (seconds float64, err error) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("grader panic: %v", p)
		}
		if err != nil {
			fmt.Fprintf(log, "[grader] failed: %v\n", err)
		}
		seconds = time.Since(start).Seconds()
	}()
	return 0, grade()
}

// Timings records how long named steps take, adding up repeats.
type Timings map[string]float64

// Time runs fn and adds the seconds it took under name.
func (t Timings) Time(name string, fn func() error) error {
	start := time.Now()
	err := fn()
	t[name] += time.Since(start).Seconds()
	return err
}
