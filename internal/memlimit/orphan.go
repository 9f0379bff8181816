package memlimit

import (
	"context"
	"time"
)

// WatchSupervisor returns a context cancelled with cause (as by SIGTERM)
// once the process's parent is no longer the supervisor pid (getppid
// answers another process, init or a subreaper, once the parent died): a
// supervised child then stops, and writeOutput, which checks its context
// before it renames the output into place, leaves -o as it was. On Linux
// the child gets SIGTERM as the supervisor dies (dieWithParent); this
// covers the other systems, and a supervisor that died before that was
// set.
func WatchSupervisor(parent context.Context, pid int, getppid func() int, cause error) context.Context {
	ctx, cancel := context.WithCancelCause(parent)
	orphaned := func() bool {
		if getppid() != pid {
			cancel(cause)
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

// OrphanGrace is how long an orphaned child may take to clean up before
// it ends. A cancelled run removes its temporary files within moments on
// a quiet machine; on a loaded one (load 20 on 2 cores) 2 s once ran out
// with a temporary file still there, so the grace is generous: it only
// delays the end of a child blocked on standard input.
const OrphanGrace = 5 * time.Second
