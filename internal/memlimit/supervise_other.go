//go:build !unix

package memlimit

import (
	"io"
	"os"
)

// Supervise runs nothing outside Unix: the command runs in this process.
func Supervise(argv, env []string, limits Limits, stderrTTY bool) (int, bool) { return 0, false }

// SupervisedStderr is standard error: no child is supervised here.
func SupervisedStderr() io.Writer { return os.Stderr }
