//go:build unix && !linux

package memlimit

import "os/exec"

// dieWithParent has no kernel help outside Linux: the child watches its
// parent (WatchSupervisor).
func dieWithParent(cmd *exec.Cmd) {}
