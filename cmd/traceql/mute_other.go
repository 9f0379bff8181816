//go:build !unix

package main

// muteStderr leaves stderr as it is where descriptors cannot be swapped.
func muteStderr() (restore func()) { return func() {} }
