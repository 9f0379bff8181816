//go:build unix

package mute

import (
	"os"

	"golang.org/x/sys/unix"
)

// Stderr sends what is written to descriptor 2 to /dev/null until the
// returned func is called. parquet-go reports a page whose offsets do not
// match its values with println, to descriptor 2 whatever the program's
// streams: for a damaged part, traceql's one line says it instead. Call
// it before anything else of the run writes to stderr.
func Stderr() (restore func()) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return func() {}
	}
	defer null.Close()
	saved, err := unix.Dup(2)
	if err != nil {
		return func() {}
	}
	if unix.Dup2(int(null.Fd()), 2) != nil {
		unix.Close(saved)
		return func() {}
	}
	return func() {
		unix.Dup2(saved, 2)
		unix.Close(saved)
	}
}
