//go:build !unix

package mute

// Stderr leaves stderr as it is where descriptors cannot be swapped.
func Stderr() (restore func()) { return func() {} }
