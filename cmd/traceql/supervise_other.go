//go:build !unix

package main

// supervise runs nothing outside Unix: the command runs in this process.
func supervise(argv, env []string, limits memoryLimits, stderrTTY bool) (int, bool) { return 0, false }
