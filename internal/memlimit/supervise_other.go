//go:build !unix

package memlimit

import (
	"io"
	"os"
)

// Supervise runs nothing outside Unix: the command runs in this process.
func Supervise(argv, env []string, limits Limits, stderrTTY bool) (int, bool) { return 0, false }

// Stderr is standard error.
func Stderr() io.Writer { return os.Stderr }
