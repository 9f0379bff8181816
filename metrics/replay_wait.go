package metrics

import (
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// What a synchronization waits for, and waits between streams, as the
// trace's sync records (Kineto's cuda_sync events, Nsight's
// SYNCHRONIZATION rows with the CUDA_EVENT records they wait on) say: a
// cudaStreamSynchronize waits for its own stream only, a
// cudaEventSynchronize for the work before its event's record, and a
// stream that waits on an event (cudaStreamWaitEvent) runs its next work
// only once the event's stream has reached the record. Without such
// records a synchronization waits for the whole device, as before.

// A syncWait is what a callBlockStream or callBlockEvent waits for.
type syncWait struct {
	stream int64 // callBlockStream: the stream
	item   int32 // callBlockEvent: the last work before the event's record
}

// A crossWait is an item's wait on another stream's work: it starts no
// earlier than gap after item ends.
type crossWait struct {
	item int32
	gap  int64
}

// blocks reports whether the call holds its thread until device work is
// done.
func (c *rCall) blocks() bool {
	switch c.kind {
	case callBlockAll, callBlockOwn, callBlockStream, callBlockEvent:
		return true
	}
	return false
}

// resolveWaits reads the trace's sync records for the replayed calls and
// items: each synchronization with a record of its stream or event waits
// for that alone, and each wait of a stream on an event becomes an
// item's crossWait (its gap set in buildReplay). byStream lists each
// stream's items in launch order; callOf maps APICalls to replayed calls.
func (g *replayGraph) resolveWaits(byStream map[int64][]int32, callOf []int32) {
	whole := g.t
	if len(whole.Syncs) == 0 {
		return
	}
	// Correlation ids are the process's where the reader says so (Nsight).
	syncOf := make(map[corrKey]*trace.Sync, len(whole.Syncs))
	records := false
	for i := range whole.Syncs {
		s := &whole.Syncs[i]
		if s.Correlation != 0 {
			syncOf[keyOf(whole, s.PID, s.Correlation)] = s
		}
		records = records || s.WaitRecord > 0
	}
	recordAt := map[corrKey]int64{} // cudaEventRecord's correlation → its start
	if records {
		for i := range whole.APICalls {
			if c := &whole.APICalls[i]; strings.Contains(c.Name, "EventRecord") {
				recordAt[keyOf(whole, c.PID, c.Correlation)] = c.Start
			}
		}
	}
	// lastBefore is the last item on stream s launched before recorded
	// time x; -1 for none.
	lastBefore := func(s, x int64) int32 {
		its := byStream[s]
		k, _ := slices.BinarySearchFunc(its, x, func(ii int32, x int64) int {
			if g.calls[g.items[ii].call].recStart < x {
				return -1
			}
			return 1
		})
		if k == 0 {
			return -1
		}
		return its[k-1]
	}
	recordItem := func(s *trace.Sync) int32 {
		at, ok := recordAt[keyOf(whole, s.PID, s.WaitRecord)]
		if !ok || s.WaitRecord <= 0 || s.WaitStream < 0 {
			return -1
		}
		return lastBefore(s.WaitStream, at)
	}
	for i := range whole.APICalls {
		c := &whole.APICalls[i]
		s := syncOf[keyOf(whole, c.PID, c.Correlation)]
		if s == nil {
			continue
		}
		switch ci := callOf[i]; {
		case strings.Contains(c.Name, "WaitEvent"):
			// The waiting stream's next work, launched after this call.
			rec := recordItem(s)
			its := byStream[s.Stream]
			k, _ := slices.BinarySearchFunc(its, c.Start, func(ii int32, x int64) int {
				if g.calls[g.items[ii].call].recStart < x {
					return -1
				}
				return 1
			})
			if rec < 0 || k == len(its) {
				continue
			}
			if g.after == nil {
				g.after = map[int32]crossWait{}
			}
			g.after[its[k]] = crossWait{item: rec}
			g.items[its[k]].waits = true
		case ci < 0 || g.calls[ci].kind != callBlockAll || g.calls[ci].recStart != c.Start:
		case strings.Contains(c.Name, "StreamSynchronize") && s.Stream >= 0:
			g.calls[ci].kind = callBlockStream
			g.setWait(ci, syncWait{stream: s.Stream, item: -1})
		case strings.Contains(c.Name, "EventSynchronize") && s.WaitRecord > 0:
			// Without the record (an Nsight export without CUDA_EVENT) it
			// waits for the whole device, as without sync records.
			if rec := recordItem(s); rec >= 0 {
				g.calls[ci].kind = callBlockEvent
				g.setWait(ci, syncWait{stream: -1, item: rec})
			} else {
				g.calls[ci].kind = callOther // its event has no work before it
			}
		}
	}
}

func (g *replayGraph) setWait(ci int32, w syncWait) {
	if g.waits == nil {
		g.waits = map[int32]syncWait{}
	}
	g.waits[ci] = w
}
