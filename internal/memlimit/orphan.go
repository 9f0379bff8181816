package memlimit

import (
	"context"
	"time"
)

// WatchSupervisor returns a context cancelled with cause (as by SIGTERM)
// once the process's parent is no longer the supervisor pid (getppid
// answers another process, init or a subreaper, once the parent died), and
// a channel closed then: a supervised child then stops, and outfile.Write,
// which checks its context before it renames the output into place,
// leaves -o as it was. On Linux the child gets SIGTERM as the supervisor
// dies (dieWithParent); this covers the other systems, and a supervisor
// that died before that was set.
//
// The watch goes on after ctx is cancelled: SIGKILL ends a process's
// threads one by one, and the kernel sends the child its SIGTERM as the
// thread that started it ends, while getppid still answers the
// supervisor, whose other threads live on for a moment. A child that
// took that signal for the end of its watch stayed, blocked on standard
// input, after its supervisor was gone (issue 66).
func WatchSupervisor(parent context.Context, pid int, getppid func() int, cause error) (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancelCause(parent)
	gone := make(chan struct{})
	orphaned := func() bool {
		if getppid() != pid {
			cancel(cause)
			close(gone)
			return true
		}
		return false
	}
	if orphaned() {
		return ctx, gone
	}
	go func() {
		t := time.NewTicker(orphanPoll)
		defer t.Stop()
		for range t.C {
			if orphaned() {
				return
			}
		}
	}()
	return ctx, gone
}

// orphanPoll is how often a supervised child asks whether its supervisor
// is still there.
const orphanPoll = 100 * time.Millisecond

// OrphanGrace is how long an orphaned child may take to end its run
// before it exits, even blocked on standard input. Its temporary files do
// not wait for it: they are removed as the run is cancelled (outfile.Write,
// spoolStdin).
const OrphanGrace = 2 * time.Second
