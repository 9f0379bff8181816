package main

import (
	"context"
	"syscall"
	"time"
)

// watchSupervisor returns a context cancelled, as by SIGTERM, once the
// process's parent is no longer the supervisor pid (getppid answers
// another process, init or a subreaper, once the parent died): a
// supervised child then stops, and writeOutput, which checks its context
// before it renames the output into place, leaves -o as it was. On Linux
// the child gets SIGTERM as the supervisor dies (dieWithParent); this
// covers the other systems, and a supervisor that died before that was
// set.
func watchSupervisor(parent context.Context, pid int, getppid func() int) context.Context {
	ctx, cancel := context.WithCancelCause(parent)
	orphaned := func() bool {
		if getppid() != pid {
			cancel(signalled{syscall.SIGTERM})
			return true
		}
		return false
	}
	if orphaned() {
		return ctx
	}
	go func() {
		t := time.NewTicker(orphanPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if orphaned() {
					return
				}
			}
		}
	}()
	return ctx
}

// orphanPoll is how often a supervised child asks whether its supervisor
// is still there.
const orphanPoll = 100 * time.Millisecond

// orphanGrace is how long an orphaned child may take to clean up before
// it ends.
const orphanGrace = 2 * time.Second
