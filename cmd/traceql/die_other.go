//go:build unix && !linux

package main

import "os/exec"

// dieWithParent has no kernel help outside Linux: the child watches its
// parent (watchSupervisor).
func dieWithParent(cmd *exec.Cmd) {}
