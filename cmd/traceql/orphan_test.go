package main

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestWatchSupervisor: the watch ends only when the parent is another
// process. A context cancelled first, as by the SIGTERM the kernel sends
// when the supervisor's starting thread ends before its others, once
// ended the watch, and the orphan stayed on, blocked on standard input.
func TestWatchSupervisor(t *testing.T) {
	const supervisor = 7
	t.Run("cancelled first", func(t *testing.T) {
		var ppid atomic.Int64
		ppid.Store(supervisor)
		parent, cancel := context.WithCancel(context.Background())
		ctx, gone := watchSupervisor(parent, supervisor, func() int { return int(ppid.Load()) })
		cancel()
		<-ctx.Done()
		select {
		case <-gone:
			t.Fatal("orphaned while the supervisor is the parent")
		case <-time.After(3 * orphanPoll):
		}
		ppid.Store(1)
		select {
		case <-gone:
		case <-time.After(10 * time.Second):
			t.Fatal("not orphaned 10 s after the parent changed")
		}
	})
	t.Run("gone at start", func(t *testing.T) {
		ctx, gone := watchSupervisor(context.Background(), supervisor, func() int { return 1 })
		select {
		case <-gone:
		default:
			t.Fatal("a child whose supervisor is already gone is not orphaned")
		}
		var s signalled
		if !errors.As(context.Cause(ctx), &s) || s.sig != syscall.SIGTERM {
			t.Errorf("cause %v; want SIGTERM", context.Cause(ctx))
		}
	})
	t.Run("gone later", func(t *testing.T) {
		var ppid atomic.Int64
		ppid.Store(supervisor)
		ctx, gone := watchSupervisor(context.Background(), supervisor, func() int { return int(ppid.Load()) })
		time.Sleep(2 * orphanPoll)
		if ctx.Err() != nil {
			t.Fatal("cancelled while the supervisor is the parent")
		}
		ppid.Store(1)
		select {
		case <-gone:
		case <-time.After(10 * time.Second):
			t.Fatal("not orphaned 10 s after the parent changed")
		}
		var s signalled
		if !errors.As(context.Cause(ctx), &s) || s.sig != syscall.SIGTERM {
			t.Errorf("cause %v; want SIGTERM", context.Cause(ctx))
		}
	})
}
