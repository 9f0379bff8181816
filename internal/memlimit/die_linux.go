package memlimit

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel send cmd SIGTERM when this process ends, as
// it ends every run: the child's context is cancelled, its temporary
// output removed and nothing renamed. (The signal follows the thread that
// started the child; Go ends a thread only when a goroutine locked to it
// exits, which the supervisor never does.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
