//go:build !unix

package main

import (
	"io"
	"os"
)

// supervise runs nothing outside Unix: the command runs in this process.
func supervise(argv, env []string, limits memoryLimits, stderrTTY bool) (int, bool) { return 0, false }

// supervisedStderr is standard error: no child is supervised here.
func supervisedStderr() io.Writer { return os.Stderr }
